package kb

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestKnowledgeDependencies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		type d struct {
			file int64
			kind string
			dir  Direction
		}
		tests := []struct {
			file int64
			dir  Direction
			want []d
		}{
			{2, Outgoing, []d{{3, "import", Outgoing}}}, // stored twice, listed once
			{2, Incoming, []d{{1, "import", Incoming}, {4, "import", Incoming}, {4, "type_ref", Incoming}}},
			{2, Both, []d{{3, "import", Outgoing}, {1, "import", Incoming}, {4, "import", Incoming}, {4, "type_ref", Incoming}}},
			{1, Incoming, []d{}},
			{7, Both, []d{}},
			{10, Outgoing, []d{{11, "import", Outgoing}}},
		}
		for _, tt := range tests {
			ds, err := k.GetDependencies(ctx, tt.file, tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if ds == nil {
				t.Errorf("GetDependencies(%d, %s) = nil, want a slice", tt.file, tt.dir)
			}
			got := []d{}
			for _, x := range ds {
				got = append(got, d{x.File.ID, x.Kind, x.Direction})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("GetDependencies(%d, %s) = %v, want %v", tt.file, tt.dir, got, tt.want)
			}
		}
		if _, err := k.GetDependencies(ctx, 2, ""); err == nil {
			t.Error("an empty direction should be an error")
		}
	})
}

// subgraphString renders files as id:distance and edges as src>dst:kind.
func subgraphString(g *DependencySubgraph) string {
	s := ""
	for _, f := range g.Files {
		s += fmt.Sprintf("%d:%d ", f.File.ID, f.Distance)
	}
	s += "|"
	for _, e := range g.Edges {
		s += fmt.Sprintf(" %d>%d:%s", e.SourceFileID, e.TargetFileID, e.Kind)
	}
	return s
}

func TestKnowledgeDependencySubgraph(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		tests := []struct {
			seeds []int64
			depth int
			want  string
		}{
			{[]int64{1}, 0, "1:0 |"},
			{[]int64{1}, 1, "1:0 2:1 | 1>2:import"},
			// d reached against the direction of d -> b
			{[]int64{1}, 2, "1:0 2:1 3:2 4:2 | 1>2:import 2>3:import 4>2:import 4>2:type_ref"},
			{[]int64{1}, 5, "1:0 2:1 3:2 4:2 | 1>2:import 2>3:import 4>2:import 4>2:type_ref"},
			{[]int64{3}, 1, "3:0 2:1 | 2>3:import"},
			// by distance then path; a seed reachable from another seed stays at 0
			{[]int64{3, 1}, 1, "1:0 3:0 2:1 | 1>2:import 2>3:import"},
			{[]int64{1, 1, 999}, 0, "1:0 |"},
			{[]int64{7}, 3, "7:0 |"},
			{[]int64{10}, 1, "10:0 11:1 | 10>11:import"},
			{[]int64{}, 2, "|"},
			{nil, 2, "|"},
		}
		for _, tt := range tests {
			g, err := k.GetDependencySubgraph(ctx, tt.seeds, tt.depth)
			if err != nil {
				t.Fatal(err)
			}
			if g.Files == nil || g.Edges == nil {
				t.Errorf("GetDependencySubgraph(%v, %d) has nil lists: %+v", tt.seeds, tt.depth, g)
			}
			if got := subgraphString(g); got != tt.want {
				t.Errorf("GetDependencySubgraph(%v, %d) = %q, want %q", tt.seeds, tt.depth, got, tt.want)
			}
		}
		g, err := k.GetDependencySubgraph(ctx, []int64{1}, 1)
		if err != nil || len(g.Files) != 2 || g.Files[1].File.Path != "pkg/b.py" {
			t.Errorf("subgraph files should carry the file: %+v, %v", g, err)
		}
		if _, err := k.GetDependencySubgraph(ctx, []int64{1}, -1); err == nil {
			t.Error("a negative depth should be an error")
		}
	})
}

// scaleHome holds a chain of 10,000 files (i imports i+1, ids 1..10000) and
// a star of 10,000 leaves importing one hub (id 20000, leaves 20001..30000).
func scaleHome(t testing.TB) *Store {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, Curated, Options{Write: true, Command: "test", create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, q := range []string{
		`INSERT INTO repos (id, path, indexed_at) VALUES (1, '/scale', now())`,
		`INSERT INTO files (id, repo_id, path, language, content_hash, size_bytes)
			SELECT i, 1, printf('chain/%05d.py', i), 'python', 'h', 1 FROM range(1, 10001) t(i)`,
		`INSERT INTO files (id, repo_id, path, language, content_hash, size_bytes)
			SELECT i, 1, printf('star/%05d.py', i), 'python', 'h', 1 FROM range(20000, 30001) t(i)`,
		`INSERT INTO dependencies (source_file_id, target_file_id, kind)
			SELECT i, i + 1, 'import' FROM range(1, 10000) t(i)`,
		`INSERT INTO dependencies (source_file_id, target_file_id, kind)
			SELECT i, 20000, 'import' FROM range(20001, 30001) t(i)`,
	} {
		if _, err := s.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestKnowledgeDependencySubgraphScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := NewKnowledgeBase(scaleHome(t).DB)
	tests := []struct {
		name             string
		seeds            []int64
		depth            int
		files, edges     int
		distanceOf       map[int64]int
		wantMaxDistances int
	}{
		{"chain middle, depth 2", []int64{5000}, 2, 5, 4, map[int64]int{4998: 2, 4999: 1, 5000: 0, 5001: 1, 5002: 2}, 2},
		{"chain end, depth 50", []int64{1}, 50, 51, 50, map[int64]int{1: 0, 51: 50}, 50},
		{"star leaf, depth 2", []int64{20001}, 2, 10001, 10000, map[int64]int{20001: 0, 20000: 1, 30000: 2}, 2},
		{"star hub, depth 2", []int64{20000}, 2, 10001, 10000, map[int64]int{20000: 0, 25000: 1}, 1},
		{"both, depth 2", []int64{5000, 20001}, 2, 10006, 10004, map[int64]int{5002: 2, 20000: 1}, 2},
	}
	for _, tt := range tests {
		start := time.Now()
		g, err := k.GetDependencySubgraph(ctx, tt.seeds, tt.depth)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d files, %d edges in %v", tt.name, len(g.Files), len(g.Edges), took)
		if len(g.Files) != tt.files || len(g.Edges) != tt.edges {
			t.Errorf("%s: %d files and %d edges, want %d and %d", tt.name, len(g.Files), len(g.Edges), tt.files, tt.edges)
		}
		got, maxD := map[int64]int{}, 0
		for _, f := range g.Files {
			if _, ok := tt.distanceOf[f.File.ID]; ok {
				got[f.File.ID] = f.Distance
			}
			maxD = max(maxD, f.Distance)
		}
		if !reflect.DeepEqual(got, tt.distanceOf) || maxD != tt.wantMaxDistances {
			t.Errorf("%s: distances %v (max %d), want %v (max %d)", tt.name, got, maxD, tt.distanceOf, tt.wantMaxDistances)
		}
	}
}

func BenchmarkDependencySubgraph(b *testing.B) {
	ctx := context.Background()
	k := NewKnowledgeBase(scaleHome(b).DB)
	for _, bc := range []struct {
		name  string
		seeds []int64
	}{{"chain", []int64{5000}}, {"star", []int64{20001}}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := k.GetDependencySubgraph(ctx, bc.seeds, 2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestKnowledgeCoChangeNeighbors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		tests := []struct {
			file      int64
			minCount  int
			want      []int64
			wantCount []int
		}{
			{1, 0, []int64{2, 3, 4}, []int{5, 2, 1}},
			{1, 1, []int64{2, 3, 4}, []int{5, 2, 1}},
			{1, 2, []int64{2, 3}, []int{5, 2}},
			{1, 6, []int64{}, []int{}},
			// file 2 is file_b of (1, 2) and file_a of (2, 4)
			{2, 1, []int64{1, 4}, []int{5, 3}},
			// file 4 is file_b of three pairs, file_a of (4, 5); ties by path
			{4, 2, []int64{2, 3, 5}, []int{3, 3, 2}},
			{7, 1, []int64{}, []int{}},
		}
		for _, tt := range tests {
			cs, err := k.GetCoChangeNeighbors(ctx, tt.file, tt.minCount)
			if err != nil {
				t.Fatal(err)
			}
			assertIDs(t, fmt.Sprintf("GetCoChangeNeighbors(%d, %d)", tt.file, tt.minCount),
				idsOf(cs, func(c CoChangeNeighbor) int64 { return c.File.ID }), tt.want)
			counts := []int{}
			for _, c := range cs {
				counts = append(counts, c.Count)
			}
			if !reflect.DeepEqual(counts, tt.wantCount) {
				t.Errorf("GetCoChangeNeighbors(%d, %d) counts = %v, want %v", tt.file, tt.minCount, counts, tt.wantCount)
			}
		}
		cs, err := k.GetCoChangeNeighbors(ctx, 2, 1)
		if err != nil || len(cs) != 2 || cs[0].LastCommitHash != "ccc3" || cs[0].File.Path != "pkg/a.py" {
			t.Errorf("GetCoChangeNeighbors(2, 1) = %+v, %v", cs, err)
		}
	})
}
