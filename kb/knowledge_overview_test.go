package kb

import (
	"context"
	"reflect"
	"testing"
	"time"
)

func commitIDOf(c Commit) int64 { return c.ID }

func TestKnowledgeRecentCommits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		tests := []struct {
			file  int64
			limit int
			want  []int64
		}{
			// newest first; 3 and 4 share a timestamp: by hash. (1, 2) is stored twice.
			{1, 0, []int64{3, 4, 2, 1}},
			{1, 2, []int64{3, 4}},
			{2, 10, []int64{3}},
			{7, 10, []int64{}},
			{10, -1, []int64{5}},
		}
		for _, tt := range tests {
			cs, err := k.GetRecentCommitsForFile(ctx, tt.file, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			assertIDs(t, "GetRecentCommitsForFile", idsOf(cs, commitIDOf), tt.want)
		}
		cs, err := k.GetRecentCommitsForFile(ctx, 1, 3)
		if err != nil || len(cs) != 3 {
			t.Fatalf("GetRecentCommitsForFile(1, 3) = %+v, %v", cs, err)
		}
		want := Commit{ID: 3, RepoID: 1, Hash: "ccc3", Author: "ann", Message: "third",
			Timestamp: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), FilesChanged: 1, Insertions: 1, Deletions: 1,
			Parents: []string{"bbb2"}}
		cs[0].Timestamp = cs[0].Timestamp.UTC()
		if !reflect.DeepEqual(cs[0], want) {
			t.Errorf("commit ccc3 = %+v, want %+v", cs[0], want)
		}
		if c := cs[1]; c.Hash != "ddd4" || c.Author != "" || c.FilesChanged != 0 || c.Parents == nil || c.IsMerge {
			t.Errorf("commit with NULLs = %+v, want zero values and empty parents", c)
		}
	})
}

func TestKnowledgeFileContext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		fc, err := k.GetFileContext(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if fc.File.Path != "pkg/a.py" {
			t.Errorf("file = %+v", fc.File)
		}
		assertIDs(t, "symbols", idsOf(fc.Symbols, symbolIDOf), []int64{100, 101, 102, 103})
		assertIDs(t, "docstrings", idsOf(fc.Docstrings, func(d Docstring) int64 { return d.ID }), []int64{2, 3, 1})
		assertIDs(t, "rationale comments", idsOf(fc.RationaleComments, func(c Comment) int64 { return c.ID }), []int64{3, 1})
		assertIDs(t, "dependencies", idsOf(fc.Dependencies, func(d FileDependency) int64 { return d.File.ID }), []int64{2})
		// (1, 4) changed together once: below FileContextMinCoChange
		assertIDs(t, "co-changes", idsOf(fc.CoChanges, func(c CoChangeNeighbor) int64 { return c.File.ID }), []int64{2, 3})
		assertIDs(t, "commits", idsOf(fc.RecentCommits, commitIDOf), []int64{3, 4, 2, 1})

		fc, err = k.GetFileContext(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		// both directions
		assertIDs(t, "dependencies of b", idsOf(fc.Dependencies, func(d FileDependency) int64 { return d.File.ID }), []int64{3, 1, 4, 4})

		fc, err = k.GetFileContext(ctx, 7)
		if err != nil {
			t.Fatal(err)
		}
		empty := []int64{}
		assertIDs(t, "symbols of e", idsOf(fc.Symbols, symbolIDOf), empty)
		assertIDs(t, "docstrings of e", idsOf(fc.Docstrings, func(d Docstring) int64 { return d.ID }), empty)
		assertIDs(t, "comments of e", idsOf(fc.RationaleComments, func(c Comment) int64 { return c.ID }), empty)
		assertIDs(t, "dependencies of e", idsOf(fc.Dependencies, func(d FileDependency) int64 { return d.File.ID }), empty)
		assertIDs(t, "co-changes of e", idsOf(fc.CoChanges, func(c CoChangeNeighbor) int64 { return c.File.ID }), empty)
		assertIDs(t, "commits of e", idsOf(fc.RecentCommits, commitIDOf), empty)

		_, err = k.GetFileContext(ctx, 99)
		assertNotFound(t, "GetFileContext(99)", err)
	})
}

func TestKnowledgeRepoOverview(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		type deg struct {
			file    int64
			in, out int
		}
		tests := []struct {
			repo                    int64
			files, symbols, commits int
			languages, domains      []NameCount
			mostConnected           []deg
		}{
			{1, 7, 14, 4,
				[]NameCount{{"python", 5}, {"go", 1}, {"typescript", 1}},
				// "Loading" and "loading" are one domain
				[]NameCount{{"loading", 2}, {"caching", 1}, {"web", 1}},
				// b: imported by a and d (twice, one file), imports c
				[]deg{{2, 2, 1}, {1, 0, 1}, {3, 1, 0}, {4, 0, 1}}},
			{2, 2, 2, 1,
				[]NameCount{{"go", 1}, {"python", 1}},
				[]NameCount{{"caching", 1}},
				[]deg{{11, 1, 0}, {10, 0, 1}}},
		}
		for _, tt := range tests {
			o, err := k.GetRepoOverview(ctx, tt.repo)
			if err != nil {
				t.Fatal(err)
			}
			if o.Repo.ID != tt.repo || o.FileCount != tt.files || o.SymbolCount != tt.symbols || o.CommitCount != tt.commits {
				t.Errorf("overview of %d: repo %d, %d files, %d symbols, %d commits; want %d, %d, %d",
					tt.repo, o.Repo.ID, o.FileCount, o.SymbolCount, o.CommitCount, tt.files, tt.symbols, tt.commits)
			}
			if !reflect.DeepEqual(o.Languages, tt.languages) || !reflect.DeepEqual(o.Domains, tt.domains) {
				t.Errorf("overview of %d: languages %v, domains %v; want %v, %v", tt.repo, o.Languages, o.Domains, tt.languages, tt.domains)
			}
			got := []deg{}
			for _, c := range o.MostConnected {
				got = append(got, deg{c.File.ID, c.In, c.Out})
			}
			if !reflect.DeepEqual(got, tt.mostConnected) {
				t.Errorf("overview of %d: most connected %v, want %v", tt.repo, got, tt.mostConnected)
			}
		}
		_, err := k.GetRepoOverview(ctx, 99)
		assertNotFound(t, "GetRepoOverview(99)", err)
	})
}

func TestKnowledgeCaps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// repo 3: files f1000..f1029, the first 15 a chain 1000 -> ... -> 1014,
	// all co-changing 3 times with pkg/e.py (7)
	dir := knowledgeHome(t, `INSERT INTO repos (id, path, indexed_at) VALUES (3, '/src/gamma', now())`,
		`INSERT INTO files (id, repo_id, path, language, content_hash, size_bytes)
			SELECT i, 3, printf('f%d', i), 'go', 'h', 1 FROM range(1000, 1030) t(i)`,
		`INSERT INTO dependencies (source_file_id, target_file_id, kind)
			SELECT i, i + 1, 'import' FROM range(1000, 1014) t(i)`,
		`INSERT INTO co_changes (file_a_id, file_b_id, count) SELECT 7, i, 3 FROM range(1000, 1030) t(i)`)
	s, err := Open(ctx, dir, Curated, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := NewKnowledgeBase(s.DB)
	o, err := k.GetRepoOverview(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.MostConnected) != mostConnectedFiles || o.MostConnected[0].File.ID != 1001 {
		t.Errorf("most connected = %d files starting with %+v; want %d starting with 1001", len(o.MostConnected), o.MostConnected[0], mostConnectedFiles)
	}
	fc, err := k.GetFileContext(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(fc.CoChanges) != FileContextMaxCoChange || fc.CoChanges[0].File.ID != 1000 {
		t.Errorf("file context co-changes = %d starting with %+v; want %d starting with 1000", len(fc.CoChanges), fc.CoChanges[0], FileContextMaxCoChange)
	}
	if cs, err := k.GetCoChangeNeighbors(ctx, 7, 1); err != nil || len(cs) != 30 {
		t.Errorf("GetCoChangeNeighbors(7, 1) = %d neighbors, %v; want all 30", len(cs), err)
	}
}

func TestKnowledgeAdapterForStage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		a, err := k.GetAdapterForStage(ctx, "scope")
		if err != nil {
			t.Fatal(err)
		}
		a.DeployedAt = a.DeployedAt.UTC()
		want := Adapter{ID: 2, StageName: "scope", BaseModel: "coding", ModelTag: "qwen3:4b-scope-v2", Version: 2,
			Active: true, PerformanceNotes: "recall 0.9", DeployedAt: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)}
		if !reflect.DeepEqual(*a, want) {
			t.Errorf("GetAdapterForStage(scope) = %+v, want %+v (v3 is inactive)", *a, want)
		}
		for _, stage := range []string{"precision", "plan"} { // only inactive; none
			_, err := k.GetAdapterForStage(ctx, stage)
			assertNotFound(t, "GetAdapterForStage("+stage+")", err)
		}
	})
}
