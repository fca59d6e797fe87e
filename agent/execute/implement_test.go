package execute_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/execute"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb/schema"
)

// Reads for the implement prompt follow the rule writes follow: a path
// FilesToEdit refuses is one Apply refuses, and the content behind a link
// out of the worktree (a file, or a file through a linked directory) never
// reaches the prompt.
func TestFilesToEditWorktreeRule(t *testing.T) {
	r := gittest.New(t)
	r.Write("calc.py", "x = 1\n")
	r.Write("pkg/b.py", "y = 2\n")
	r.Commit("files")
	r.LinkOutside()
	if err := os.Symlink("calc.py", filepath.Join(r.Dir, "inlink.py")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path    string
		want    string // the content shown; "" when not shown
		refused string // the refusal's reason; "" when not refused
	}{
		{"calc.py", "x = 1\n", ""},
		{"pkg/../pkg/b.py", "", "escapes the worktree (..)"},
		{"./pkg/b.py", "y = 2\n", ""},
		{"new.py", "", ""}, // created by the coder: absent, not refused
		{"link.txt", "", "the file is a symbolic link"},
		{"linkdir/secret.txt", "", "escapes the worktree through a symbolic link"},
		{"linkdir/new.txt", "", "escapes the worktree through a symbolic link"},
		{"inlink.py", "", "the file is a symbolic link"},
		{"../x.py", "", "escapes the worktree (..)"},
		{filepath.Join(r.Dir, "calc.py"), "", "an absolute path"},
		{".git/config", "", "inside .git"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			files, refused, err := execute.FilesToEdit(r.Dir, []string{tc.path})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if strings.Contains(f.Content, gittest.OutsideSecret) {
					t.Fatalf("the outside file is in the prompt: %+v", f)
				}
			}
			switch {
			case tc.want != "" && (len(files) != 1 || files[0].Content != tc.want):
				t.Errorf("files %+v, want %q", files, tc.want)
			case tc.want == "" && len(files) != 0:
				t.Errorf("files %+v, want none", files)
			}
			if tc.refused == "" {
				if len(refused) != 0 {
					t.Errorf("refused %+v", refused[0])
				}
				return
			}
			if len(refused) != 1 || refused[0].Path != tc.path || !strings.Contains(refused[0].Reason, tc.refused) {
				t.Fatalf("refused %v, want %s: %s", refused, tc.path, tc.refused)
			}
			// One rule: the write is refused for the same reason.
			_, err = execute.Apply(r.Dir, []schema.Edit{{File: tc.path, Search: "x", Replace: "y"}})
			var ee *schema.EditError
			if !errors.As(err, &ee) || ee.Reason != refused[0].Reason {
				t.Errorf("write: %v, want %q", err, refused[0].Reason)
			}
		})
	}
}
