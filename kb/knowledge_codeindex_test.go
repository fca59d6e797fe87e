package kb

import (
	"context"
	"reflect"
	"testing"
)

func TestKnowledgeSearchCodeIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		entryID := func(e CodeIndexEntry) int64 { return e.ID }
		tests := []struct {
			name string
			repo int64
			q    CodeIndexQuery
			want []int64
		}{
			// functions, methods and classes only (no LOADERS, no AppConfig), by path and line
			{"everything", 1, CodeIndexQuery{}, []int64{140, 141, 100, 101, 102, 103, 110, 111, 112, 113, 120, 130}},
			{"limit", 1, CodeIndexQuery{Limit: 2}, []int64{140, 141}},
			{"raises", 1, CodeIndexQuery{Raises: "ValueError"}, []int64{103, 110}},
			{"raises is exact", 1, CodeIndexQuery{Raises: "valueerror"}, []int64{}},
			{"raises, other repo", 2, CodeIndexQuery{Raises: "ValueError"}, []int64{150}},
			{"mutates", 1, CodeIndexQuery{Mutates: "self._data"}, []int64{102}},
			{"mutates is exact", 1, CodeIndexQuery{Mutates: "_data"}, []int64{}},
			{"error string substring, any case", 1, CodeIndexQuery{ErrorString: "invalid input"}, []int64{103}},
			{"error string", 1, CodeIndexQuery{ErrorString: "CACHE MISS"}, []int64{101}},
			{"error string without match", 1, CodeIndexQuery{ErrorString: "nothing"}, []int64{}},
			{"name ranks exact first", 1, CodeIndexQuery{Name: "load"}, []int64{141, 110, 113, 130, 111, 112, 120}},
			{"name and limit", 1, CodeIndexQuery{Name: "load", Limit: 1}, []int64{141}},
			{"qualified name", 1, CodeIndexQuery{Name: "cache.get"}, []int64{101}},
			{"receiver glob", 1, CodeIndexQuery{Name: "Server.*"}, []int64{141}},
			{"qualified method substring", 1, CodeIndexQuery{Name: "Loader.load"}, []int64{113}},
			{"all criteria must hold", 1, CodeIndexQuery{Name: "load", Raises: "IOError"}, []int64{110}},
			{"criteria that exclude each other", 1, CodeIndexQuery{Raises: "KeyError", Mutates: "_registry"}, []int64{}},
		}
		for _, tt := range tests {
			es, err := k.SearchCodeIndex(ctx, tt.repo, tt.q)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			assertIDs(t, tt.name, idsOf(es, entryID), tt.want)
		}

		es, err := k.SearchCodeIndex(ctx, 1, CodeIndexQuery{Name: "load", Raises: "IOError"})
		want := CodeIndexEntry{ID: 110, RepoID: 1, FilePath: "pkg/b.py", SymbolName: "load", QualifiedName: "load",
			SymbolType: "function", LineStart: 1, LineEnd: 10, Signature: "def load(path):",
			Calls:    []string{"loader_factory"}, // the type_ref to BaseLoader is no call
			CalledBy: []string{"FileLoader.load", "helper"},
			Raises:   []string{"ValueError", "IOError"}, Mutates: []string{"_registry"}, ErrorStrings: []string{"cannot load"},
			SourceHash: "h2"}
		if err != nil || len(es) != 1 || !reflect.DeepEqual(es[0], want) {
			t.Errorf("entry of load = %+v, %v; want %+v", es, err, want)
		}
		es, err = k.SearchCodeIndex(ctx, 1, CodeIndexQuery{Name: "get"})
		if err != nil || len(es) != 1 || es[0].Docstring != "Get a value." || es[0].QualifiedName != "Cache.get" ||
			es[0].Calls == nil || es[0].Raises == nil {
			t.Errorf("entry of get = %+v, %v; want its docstring, qualified name and empty lists", es, err)
		}
	})
}
