package kb

import (
	"context"
	"reflect"
	"testing"

	"github.com/cra-dev/cra/kb/schema"
)

func symbolIDOf(s Symbol) int64 { return s.ID }

func TestKnowledgeSymbolsForFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		tests := []struct {
			file int64
			kind string
			want []int64
		}{
			{1, "", []int64{100, 101, 102, 103}}, // by start line, not id
			{1, "method", []int64{101, 102}},
			{1, "enum", []int64{}},
			{7, "", []int64{}},
			{99, "", []int64{}},
		}
		for _, tt := range tests {
			ss, err := k.GetSymbolsForFile(ctx, tt.file, tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			assertIDs(t, "GetSymbolsForFile", idsOf(ss, symbolIDOf), tt.want)
		}

		parent := int64(100)
		want := Symbol{ID: 101, FileID: 1, FilePath: "pkg/a.py", Name: "get", Kind: "method", StartLine: 5, EndLine: 10,
			Signature: "def get(self, key):", ParentID: &parent,
			Raises: []string{"KeyError"}, ErrorStrings: []string{"cache miss for key"}, Mutates: []string{}}
		s, err := k.GetSymbolByID(ctx, 101)
		if err != nil || !reflect.DeepEqual(*s, want) {
			t.Errorf("GetSymbolByID(101) = %+v, %v; want %+v", s, err, want)
		}
		s, err = k.GetSymbolByID(ctx, 100)
		if err != nil || s.ParentID != nil || s.Raises != nil {
			t.Errorf("GetSymbolByID(100) = %+v, %v; want no parent and NULL facts as nil", s, err)
		}
		s, err = k.GetSymbolByID(ctx, 141)
		if err != nil || s.Receiver != "Server" || s.FilePath != "cmd/main.go" {
			t.Errorf("GetSymbolByID(141) = %+v, %v; want receiver Server in cmd/main.go", s, err)
		}
		_, err = k.GetSymbolByID(ctx, 999)
		assertNotFound(t, "GetSymbolByID(999)", err)
	})
}

func TestKnowledgeSearchSymbolsByName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		tests := []struct {
			name    string
			repo    int64
			pattern string
			limit   int
			want    []int64
		}{
			// exact (any case) first, then shorter names, then path and line
			{"substring ranking", 1, "load", 0, []int64{141, 110, 113, 121, 130, 111, 112, 120}},
			{"limit", 1, "LOAD", 2, []int64{141, 110}},
			{"glob prefix", 1, "load*", 0, []int64{141, 110, 113, 121, 130, 120}},
			{"glob suffix is whole-name", 1, "*Loader", 0, []int64{111, 112}},
			{"glob single char", 1, "?oad", 0, []int64{141, 110, 113}},
			{"glob without match", 1, "oad*", 0, []int64{}},
			{"underscore is literal", 1, "r_", 0, []int64{120}},
			{"percent is literal", 1, "%", 0, []int64{}},
			{"no match", 1, "zzz", 0, []int64{}},
			{"other repo", 2, "load", 0, []int64{151, 150}},
		}
		for _, tt := range tests {
			ss, err := k.SearchSymbolsByName(ctx, tt.repo, tt.pattern, tt.limit)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			assertIDs(t, tt.name, idsOf(ss, symbolIDOf), tt.want)
		}
		ss, err := k.SearchSymbolsByName(ctx, 1, "FileLoader", 0)
		if err != nil || len(ss) != 1 || ss[0].FilePath != "pkg/b.py" {
			t.Errorf("SearchSymbolsByName(FileLoader) = %+v, %v; want it with its file path", ss, err)
		}
		if _, err := k.SearchSymbolsByName(ctx, 1, "", 0); err == nil {
			t.Error("an empty pattern should be an error")
		}
	})
}

func TestKnowledgeSymbolNeighbors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		type n struct {
			id   int64
			kind string
			dir  Direction
		}
		tests := []struct {
			symbol int64
			dir    Direction
			kinds  []string
			want   []n
		}{
			{110, Outgoing, nil, []n{{120, "call", Outgoing}, {111, "type_ref", Outgoing}}},
			// 113 calls 110 twice: listed once
			{110, Incoming, nil, []n{{103, "call", Incoming}, {113, "call", Incoming}}},
			{110, Both, nil, []n{{120, "call", Outgoing}, {111, "type_ref", Outgoing}, {103, "call", Incoming}, {113, "call", Incoming}}},
			{110, Both, []string{"call"}, []n{{120, "call", Outgoing}, {103, "call", Incoming}, {113, "call", Incoming}}},
			{110, Both, []string{"type_ref", "inherit"}, []n{{111, "type_ref", Outgoing}}},
			{110, Both, []string{}, []n{{120, "call", Outgoing}, {111, "type_ref", Outgoing}, {103, "call", Incoming}, {113, "call", Incoming}}},
			{110, Outgoing, []string{"inherit"}, []n{}},
			{111, Incoming, nil, []n{{112, "inherit", Incoming}, {110, "type_ref", Incoming}}}, // by kind
			{111, Outgoing, nil, []n{}},
			{999, Both, nil, []n{}},
		}
		for _, tt := range tests {
			ns, err := k.GetSymbolNeighbors(ctx, tt.symbol, tt.dir, tt.kinds)
			if err != nil {
				t.Fatal(err)
			}
			if ns == nil {
				t.Errorf("GetSymbolNeighbors(%d, %s, %v) = nil, want a slice", tt.symbol, tt.dir, tt.kinds)
			}
			got := []n{}
			for _, x := range ns {
				got = append(got, n{x.Symbol.ID, x.Kind, x.Direction})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("GetSymbolNeighbors(%d, %s, %v) = %v, want %v", tt.symbol, tt.dir, tt.kinds, got, tt.want)
			}
		}
		ns, err := k.GetSymbolNeighbors(ctx, 140, Outgoing, nil)
		if err != nil || len(ns) != 1 || ns[0].Symbol.FilePath != "cmd/main.go" || ns[0].Symbol.Name != "Load" {
			t.Errorf("neighbors of main = %+v, %v; want Load with its file path", ns, err)
		}
		if _, err := k.GetSymbolNeighbors(ctx, 110, "sideways", nil); err == nil {
			t.Error("an unknown direction should be an error")
		}
	})
}

func TestKnowledgeDocstringsAndComments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		ds, err := k.GetDocstringsForFile(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		// module level first, then by the symbol's line
		assertIDs(t, "GetDocstringsForFile(1)", idsOf(ds, func(d Docstring) int64 { return d.ID }), []int64{2, 3, 1})
		sym := int64(101)
		want := Docstring{ID: 1, FileID: 1, SymbolID: &sym, SymbolName: "get", Content: "Get a value.", Format: "google",
			Fields: &schema.DocFields{
				Summary: "Get a value.",
				Params:  []schema.DocParam{{Name: "key", Type: "str", Description: "the key"}},
				Returns: &schema.DocType{Type: "Any", Description: "the value"},
				Raises:  []schema.DocType{{Type: "KeyError", Description: "when missing"}},
			}}
		if len(ds) == 3 {
			if !reflect.DeepEqual(ds[2], want) {
				t.Errorf("docstring of get = %+v (fields %+v), want %+v", ds[2], ds[2].Fields, want)
			}
			if m := ds[0]; m.SymbolID != nil || m.SymbolName != "" || m.Fields != nil || m.Format != "plain" {
				t.Errorf("module docstring = %+v", m)
			}
			if ds[1].Format != "" || ds[1].SymbolName != "Cache" {
				t.Errorf("docstring of Cache = %+v, want NULL format as \"\"", ds[1])
			}
		}
		ds, err = k.GetDocstringsForFile(ctx, 7)
		assertIDs(t, "GetDocstringsForFile(7)", idsOf(ds, func(d Docstring) int64 { return d.ID }), []int64{})
		if err != nil {
			t.Fatal(err)
		}

		cs, err := k.GetRationaleComments(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		assertIDs(t, "GetRationaleComments(1)", idsOf(cs, func(c Comment) int64 { return c.ID }), []int64{3, 1})
		sym = 102
		wantC := Comment{ID: 1, FileID: 1, SymbolID: &sym, Line: 15, Content: "copy to avoid aliasing the caller's dict", Kind: "rationale", IsRationale: true}
		if len(cs) == 2 && !reflect.DeepEqual(cs[1], wantC) {
			t.Errorf("comment = %+v, want %+v", cs[1], wantC)
		}
		cs, err = k.GetRationaleComments(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		assertIDs(t, "GetRationaleComments(2)", idsOf(cs, func(c Comment) int64 { return c.ID }), []int64{})
	})
}

func TestParsedFieldsScan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   any
		want *schema.DocFields
	}{
		{"NULL", nil, nil},
		{"summary only", map[string]any{"summary": "s", "params": nil, "returns": nil, "raises": nil},
			&schema.DocFields{Summary: "s", Params: []schema.DocParam{}, Raises: []schema.DocType{}}},
		{"empty returns struct", map[string]any{"returns": map[string]any{"type": nil, "description": nil}},
			&schema.DocFields{Params: []schema.DocParam{}, Raises: []schema.DocType{}}},
	}
	for _, tt := range tests {
		got := &schema.DocFields{Summary: "stale"}
		if err := (parsedFields{&got}).Scan(tt.in); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	var got *schema.DocFields
	if err := (parsedFields{&got}).Scan("text"); err == nil {
		t.Error("scanning a string should fail")
	}
}
