package kb

import (
	"context"
	"reflect"
	"testing"
)

func TestKnowledgeCallEdges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		for _, tc := range []struct {
			repo int64
			want []SymbolReference
		}{
			// calls only (no type_ref 110→111, no inherit 112→111), 113→110 once
			{1, []SymbolReference{{103, 110, "call"}, {110, 120, "call"}, {113, 110, "call"}, {140, 141, "call"}}},
			{2, []SymbolReference{{150, 151, "call"}}},
			{99, []SymbolReference{}},
		} {
			got, err := k.CallEdges(ctx, tc.repo)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("CallEdges(%d) = %v, %v; want %v", tc.repo, got, err, tc.want)
			}
		}
	})
}

func TestKnowledgeRepoDocstrings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		ds, err := k.RepoDocstrings(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			ID         int64
			Path       string
			SymbolName string
			Content    string
		}
		var got []row
		for _, d := range ds {
			got = append(got, row{d.ID, d.Path, d.SymbolName, d.Content})
		}
		// the module's first, then by the line of the symbol (Cache at 1, get at 5)
		want := []row{{2, "pkg/a.py", "", "Cache utilities."}, {3, "pkg/a.py", "Cache", "A cache."}, {1, "pkg/a.py", "get", "Get a value."}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("RepoDocstrings(1) = %+v, want %+v", got, want)
		}
		if ds[0].SymbolID != nil || ds[1].SymbolID == nil || *ds[1].SymbolID != 100 {
			t.Errorf("symbol ids = %v, %v; want nil for the module, 100 for Cache", ds[0].SymbolID, ds[1].SymbolID)
		}
		if ds, err := k.RepoDocstrings(ctx, 2); err != nil || len(ds) != 0 {
			t.Errorf("RepoDocstrings(2) = %v, %v; want none", ds, err)
		}
	})
}

func TestKnowledgeGetCommitsForFileMatching(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := knowledgeHome(t, `UPDATE commits SET message = 'Fix the cache miss' WHERE id = 2;
		UPDATE commits SET message = 'BUGFIX: evict' WHERE id = 3`)
	s, err := Open(ctx, dir, Curated, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := NewKnowledgeBase(s.DB)
	hashes := func(cs []Commit) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, c.Hash)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		file    int64
		pattern string
		limit   int
		want    []string
	}{
		{"any case, at a word start, newest first", 1, `\b(fix|bug)`, 0, []string{"ccc3", "bbb2"}},
		{"limit", 1, `\b(fix|bug)`, 1, []string{"ccc3"}},
		{"a missing message matches nothing", 1, `.`, 0, []string{"ccc3", "bbb2", "aaa1"}},
		{"another file", 2, `fix`, 0, []string{"ccc3"}},
		{"no match", 1, `revert`, 0, []string{}},
	} {
		got, err := k.GetCommitsForFileMatching(ctx, tc.file, tc.pattern, tc.limit)
		if err != nil || !reflect.DeepEqual(hashes(got), tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, hashes(got), err, tc.want)
		}
	}
}
