package kb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// knowledgeHome makes a home whose curated store holds
// testdata/knowledge/fixture.sql after running extra statements.
func knowledgeHome(t *testing.T, extra ...string) string {
	t.Helper()
	ctx := context.Background()
	dir := initHome(t) // Attach wants both stores
	s, err := Open(ctx, dir, Curated, Options{Write: true, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fixture, err := os.ReadFile(filepath.Join("testdata", "knowledge", "fixture.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append([]string{string(fixture)}, extra...) {
		if _, err := s.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// eachKnowledgeBase runs fn on the fixture twice: through a read-only Store
// on curated.duckdb and through an Attached session (search_path raw,curated).
func eachKnowledgeBase(t *testing.T, fn func(t *testing.T, k *KnowledgeBase)) {
	t.Helper()
	ctx := context.Background()
	dir := knowledgeHome(t)
	t.Run("store", func(t *testing.T) {
		s, err := Open(ctx, dir, Curated, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		fn(t, NewKnowledgeBase(s.DB))
	})
	t.Run("attach", func(t *testing.T) {
		a, err := Attach(ctx, dir, false, "")
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		fn(t, NewKnowledgeBase(a.Conn))
	})
}

// ids maps items to their ids, keeping a nil slice nil so that comparing
// with []int64{} catches a nil result.
func idsOf[T any](items []T, id func(T) int64) []int64 {
	if items == nil {
		return nil
	}
	out := []int64{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

func fileIDOf(f File) int64 { return f.ID }

func assertIDs(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func assertNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("%s: err = %v, want one wrapping ErrNotFound", what, err)
	}
}

func TestKnowledgeRepos(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		rs, err := k.Repos(ctx)
		if err != nil {
			t.Fatal(err)
		}
		assertIDs(t, "Repos", idsOf(rs, func(r Repo) int64 { return r.ID }), []int64{1, 2})
		want := Repo{ID: 2, Path: "/src/beta", RemoteURL: "https://example.com/beta.git",
			IndexedAt: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), DerivedStale: true}
		r, err := k.RepoByPath(ctx, "/src/beta")
		if err != nil {
			t.Fatal(err)
		}
		r.IndexedAt = r.IndexedAt.UTC()
		if !reflect.DeepEqual(*r, want) {
			t.Errorf("RepoByPath = %+v, want %+v", *r, want)
		}
		if r, err := k.RepoByID(ctx, 1); err != nil || r.Path != "/src/alpha" || r.TreeRev != "worktree" || !r.IsGit {
			t.Errorf("RepoByID(1) = %+v, %v", r, err)
		}
		_, err = k.RepoByPath(ctx, "/src/nope")
		assertNotFound(t, "RepoByPath(/src/nope)", err)
		_, err = k.RepoByID(ctx, 99)
		assertNotFound(t, "RepoByID(99)", err)
	})
}

func TestKnowledgeFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		tests := []struct {
			repo     int64
			language string
			want     []int64
		}{
			{1, "", []int64{6, 1, 2, 3, 4, 7, 5}}, // by path
			{1, "python", []int64{1, 2, 3, 4, 7}},
			{1, "go", []int64{6}},
			{1, "rust", []int64{}},
			{2, "", []int64{11, 10}},
			{99, "", []int64{}},
		}
		for _, tt := range tests {
			fs, err := k.GetFiles(ctx, tt.repo, tt.language)
			if err != nil {
				t.Fatal(err)
			}
			assertIDs(t, "GetFiles", idsOf(fs, fileIDOf), tt.want)
		}

		f, err := k.GetFileByID(ctx, 6)
		want := File{ID: 6, RepoID: 1, Path: "cmd/main.go", Language: "go", ContentHash: "h6", SizeBytes: 600, ErrorNodes: 2}
		if err != nil || !reflect.DeepEqual(*f, want) {
			t.Errorf("GetFileByID(6) = %+v, %v; want %+v", f, err, want)
		}
		if f, err := k.GetFileByID(ctx, 7); err != nil || f.ErrorNodes != 0 {
			t.Errorf("GetFileByID(7) = %+v, %v; want NULL error_nodes as 0", f, err)
		}
		for _, tt := range []struct {
			repo int64
			path string
			want int64
		}{{1, "pkg/a.py", 1}, {2, "pkg/a.py", 10}} {
			f, err := k.GetFileByPath(ctx, tt.repo, tt.path)
			if err != nil || f.ID != tt.want {
				t.Errorf("GetFileByPath(%d, %s) = %+v, %v; want id %d", tt.repo, tt.path, f, err, tt.want)
			}
		}
		_, err = k.GetFileByPath(ctx, 2, "pkg/b.py")
		assertNotFound(t, "GetFileByPath(2, pkg/b.py)", err)
		_, err = k.GetFileByID(ctx, 99)
		assertNotFound(t, "GetFileByID(99)", err)
	})
}

func TestKnowledgeSearchFilesByMetadata(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		tests := []struct {
			name        string
			repo        int64
			q           MetadataQuery
			want        []int64
			wantOverlap []int
		}{
			{"no criteria: every file with metadata", 1, MetadataQuery{}, []int64{1, 2, 3, 5}, nil},
			{"domain, case-insensitive", 1, MetadataQuery{Domain: "LOADING"}, []int64{2, 3}, nil},
			{"module", 1, MetadataQuery{Module: "web"}, []int64{5}, nil},
			{"concepts by overlap then path", 1, MetadataQuery{Concepts: []string{"CACHE", "eviction"}}, []int64{1, 5, 2}, []int{2, 2, 1}},
			{"concept case-insensitive on both sides", 1, MetadataQuery{Concepts: []string{"locking"}}, []int64{1}, []int{1}},
			{"all criteria must hold", 1, MetadataQuery{Domain: "loading", Module: "pkg", Concepts: []string{"cache"}}, []int64{2}, nil},
			{"no overlap", 1, MetadataQuery{Concepts: []string{"nothing"}}, []int64{}, nil},
			{"no such domain", 1, MetadataQuery{Domain: "nothing"}, []int64{}, nil},
			{"other repo", 2, MetadataQuery{Domain: "caching"}, []int64{10}, nil},
		}
		for _, tt := range tests {
			ms, err := k.SearchFilesByMetadata(ctx, tt.repo, tt.q)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			assertIDs(t, tt.name, idsOf(ms, func(m MetadataMatch) int64 { return m.File.ID }), tt.want)
			if tt.wantOverlap != nil {
				var got []int
				for _, m := range ms {
					got = append(got, m.ConceptOverlap)
				}
				if !reflect.DeepEqual(got, tt.wantOverlap) {
					t.Errorf("%s: overlaps = %v, want %v", tt.name, got, tt.wantOverlap)
				}
			}
		}
		ms, err := k.SearchFilesByMetadata(ctx, 1, MetadataQuery{Module: "pkg", Domain: "caching"})
		want := FileMetadata{Purpose: "caching", Module: "pkg", Domain: "caching",
			Concepts: []string{"cache", "eviction", "Locking"}, PublicAPISurface: []string{"Cache"}}
		if err != nil || len(ms) != 1 || !reflect.DeepEqual(ms[0].Metadata, want) {
			t.Errorf("metadata of pkg/a.py = %+v, %v; want %+v", ms, err, want)
		}
		ms, err = k.SearchFilesByMetadata(ctx, 1, MetadataQuery{Domain: "loading"})
		if err != nil || len(ms) != 2 || ms[0].Metadata.PublicAPISurface == nil {
			t.Errorf("NULL public_api_surface should read as an empty list: %+v, %v", ms, err)
		}
	})
}

func TestKnowledgeMetadataUnpopulated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := knowledgeHome(t, "DELETE FROM file_metadata")
	s, err := Open(ctx, dir, Curated, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Through a transaction too: *sql.Tx is a Querier.
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []MetadataQuery{{}, {Domain: "caching"}, {Concepts: []string{"cache"}}} {
		ms, err := NewKnowledgeBase(tx).SearchFilesByMetadata(ctx, 1, q)
		if err != nil || ms == nil || len(ms) != 0 {
			t.Errorf("SearchFilesByMetadata(%+v) on an empty file_metadata = %#v, %v; want an empty slice", q, ms, err)
		}
	}
	o, err := NewKnowledgeBase(s.DB).GetRepoOverview(ctx, 1)
	if err != nil || o.Domains == nil || len(o.Domains) != 0 {
		t.Errorf("overview domains on an empty file_metadata = %#v, %v; want an empty slice", o, err)
	}
}

func TestLikePattern(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"load", "%load%"},
		{"load*", "load%"},
		{"?oad", "_oad"},
		{"r_", `%r\_%`},
		{"a%b", `%a\%b%`},
		{`a\b`, `%a\\b%`},
		{"*_x?", `%\_x_`},
	}
	for _, tt := range tests {
		if got := likePattern(tt.in); got != tt.want {
			t.Errorf("likePattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestToStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      any
		want    []string
		wantErr bool
	}{
		{nil, nil, false},
		{[]any{}, []string{}, false},
		{[]any{"a", nil, "b"}, []string{"a", "", "b"}, false},
		{[]any{1}, nil, true},
		{"a", nil, true},
	}
	for _, tt := range tests {
		got, err := toStrings(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("toStrings(%#v) = %#v, %v; want %#v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
