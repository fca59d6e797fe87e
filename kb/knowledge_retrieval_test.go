package kb

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRepoContents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachKnowledgeBase(t, func(t *testing.T, k *KnowledgeBase) {
		c, err := k.RepoContents(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range c.Files {
			files = append(files, f.Path+":"+f.Language)
		}
		want := []string{"cmd/main.go:go", "pkg/a.py:python", "pkg/b.py:python", "pkg/c.py:python", "pkg/d.py:python",
			"pkg/e.py:python", "web/app.ts:typescript"}
		if !slices.Equal(files, want) {
			t.Errorf("files %v, want %v (repository 1 only, by path)", files, want)
		}
		// pkg/a.py's symbols by start line, the methods not top level.
		var aSyms []string
		for _, s := range c.Symbols {
			if s.Path == "pkg/a.py" {
				aSyms = append(aSyms, s.Text+map[bool]string{true: "^", false: ""}[s.TopLevel])
			}
		}
		if want := []string{"Cache^", "get", "set", "helper^"}; !slices.Equal(aSyms, want) {
			t.Errorf("pkg/a.py symbols %v, want %v", aSyms, want)
		}
		var docs []string
		for _, d := range c.Docstrings {
			docs = append(docs, d.Path+":"+d.Text)
		}
		if want := []string{"pkg/a.py:Get a value.", "pkg/a.py:Cache utilities.", "pkg/a.py:A cache."}; !slices.Equal(docs, want) {
			t.Errorf("docstrings %v, want %v (by id)", docs, want)
		}
		var descs []string
		for _, d := range c.Descriptions {
			descs = append(descs, d.Path+":"+d.Text)
		}
		if want := []string{"pkg/a.py:caching pkg cache eviction Locking", "pkg/b.py:loading pkg plugins cache",
			"pkg/c.py:Loading pkg factory", "web/app.ts:web web ui cache eviction"}; !slices.Equal(descs, want) {
			t.Errorf("descriptions %v, want %v", descs, want)
		}
		// Imports only, each stored edge (b -> c is stored twice).
		wantEdges := []PathEdge{{From: "pkg/a.py", To: "pkg/b.py"}, {From: "pkg/b.py", To: "pkg/c.py"},
			{From: "pkg/b.py", To: "pkg/c.py"}, {From: "pkg/d.py", To: "pkg/b.py"}}
		if !reflect.DeepEqual(c.Imports, wantEdges) {
			t.Errorf("imports %v, want %v", c.Imports, wantEdges)
		}
		var co []string
		for _, x := range c.CoChanges {
			co = append(co, x.A+"+"+x.B+"="+string(rune('0'+x.Count)))
		}
		slices.Sort(co)
		if got := strings.Join(co, " "); got != "pkg/a.py+pkg/b.py=5 pkg/a.py+pkg/c.py=2 pkg/a.py+pkg/d.py=1 "+
			"pkg/b.py+pkg/d.py=3 pkg/c.py+pkg/d.py=3 pkg/d.py+web/app.ts=2" {
			t.Errorf("co-changes %s", got)
		}

		for _, tt := range []struct {
			repo             int64
			files, described int
		}{{1, 7, 4}, {2, 2, 1}, {99, 0, 0}} {
			files, described, err := k.DescribedFiles(ctx, tt.repo)
			if err != nil || files != tt.files || described != tt.described {
				t.Errorf("DescribedFiles(%d) = %d, %d, %v; want %d, %d", tt.repo, files, described, err, tt.files, tt.described)
			}
		}
	})
}
