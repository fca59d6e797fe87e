package execute_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/execute"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// tree writes files under a new root and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, text := range files {
		abs := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// snapshot reads every file under root (links as "-> target").
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestApplyPatch(t *testing.T) {
	base := map[string]string{"a.py": "def f():\n    return 1\n\ndef g():\n    return 2\n", "pkg/b.py": "x = 1\n", "bin.dat": "ab\x00cd"}
	for _, tc := range []struct {
		name  string
		edits []schema.Edit
		want  map[string]string // changed or new files; "" value: deleted
		files []string
	}{
		{"modify", []schema.Edit{{File: "a.py", Search: "    return 1\n", Replace: "    return 10\n"}},
			map[string]string{"a.py": "def f():\n    return 10\n\ndef g():\n    return 2\n"}, []string{"a.py"}},
		{"edits of a file in order", []schema.Edit{
			{File: "a.py", Search: "return 1\n", Replace: "return 3\n"}, {File: "a.py", Search: "return 3\n\n", Replace: "return 4\n\n"}},
			map[string]string{"a.py": "def f():\n    return 4\n\ndef g():\n    return 2\n"}, []string{"a.py"}},
		{"create in a new directory", []schema.Edit{{File: "new/c.py", Replace: "y = 2\n"}},
			map[string]string{"new/c.py": "y = 2\n"}, []string{"new/c.py"}},
		{"delete", []schema.Edit{{File: "pkg/b.py", Search: "x = 1\n"}}, map[string]string{"pkg/b.py": ""}, []string{"pkg/b.py"}},
		{"a cleaned path", []schema.Edit{{File: "./pkg//b.py", Search: "x = 1", Replace: "x = 2"}}, map[string]string{"pkg/b.py": "x = 2\n"}, []string{"pkg/b.py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, base)
			got, err := execute.Apply(root, tc.edits)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Files(), tc.files) {
				t.Errorf("files %v, want %v", got.Files(), tc.files)
			}
			after := snapshot(t, root)
			want := map[string]string{}
			for k, v := range base {
				want[k] = v
			}
			for k, v := range tc.want {
				want[k] = v
				if v == "" {
					delete(want, k)
				}
			}
			if !maps(after, want) {
				t.Errorf("tree %q, want %q", after, want)
			}
		})
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Every refusal names the edit and the reason, and writes nothing — not
// even the valid edits before the refused one.
func TestApplyPatchRefusals(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"a.py": "a = 1\na = 1\n", "b.py": "b = 1\n", "bin.dat": "ab\x00cd"}
	valid := schema.Edit{File: "b.py", Search: "b = 1", Replace: "b = 2"}
	for _, tc := range []struct {
		name   string
		edit   schema.Edit
		reason string
	}{
		{"not found", schema.Edit{File: "b.py", Search: "zzz", Replace: "y"}, "search text not found"},
		{"twice", schema.Edit{File: "a.py", Search: "a = 1\n", Replace: "y"}, "occurs more than once"},
		{"missing file", schema.Edit{File: "nope.py", Search: "x", Replace: "y"}, "does not exist"},
		{"empty search on a file", schema.Edit{File: "a.py", Replace: "y"}, "empty search on a non-empty file"},
		{"binary", schema.Edit{File: "bin.dat", Search: "ab", Replace: "y"}, "binary"},
		{"dot dot", schema.Edit{File: "../x.py", Replace: "y"}, "escapes the worktree"},
		{"dot dot inside", schema.Edit{File: "pkg/../../x.py", Replace: "y"}, "escapes the worktree"},
		{"absolute", schema.Edit{File: "/etc/passwd", Search: "root", Replace: "y"}, "absolute path"},
		{"symlinked dir escape", schema.Edit{File: "out/secret.txt", Search: "s", Replace: "y"}, "escapes the worktree through a symbolic link"},
		{"new file through a link", schema.Edit{File: "out/new.txt", Replace: "y"}, "escapes the worktree through a symbolic link"},
		{"a link", schema.Edit{File: "link.py", Search: "b", Replace: "y"}, "symbolic link"},
		{"git", schema.Edit{File: ".git/config", Replace: "y"}, "inside .git"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, base)
			if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("b.py", filepath.Join(root, "link.py")); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, root)
			_, err := execute.Apply(root, []schema.Edit{valid, tc.edit})
			var pe *schema.EditError
			if !errors.As(err, &pe) || pe.Index != 2 || !strings.Contains(pe.Reason, tc.reason) {
				t.Fatalf("got %v, want edit 2 refused: %s", err, tc.reason)
			}
			if after := snapshot(t, root); !maps(after, before) {
				t.Errorf("the tree changed: %q", after)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "s\n" {
				t.Errorf("outside the worktree: %q", b)
			}
		})
	}
}

// Fuzz the parser and the applier together: whatever a model answers, the
// tree is either unchanged (an error) or changed only as the edits say,
// and nothing outside it is touched.
func FuzzApplyPatch(f *testing.F) {
	f.Add("x = 1\ny = 2\n", prompt.RenderEdits([]schema.Edit{{File: "a.py", Search: "x = 1\n", Replace: "x = 3\n"}}))
	f.Add("x = 1\n", prompt.RenderEdits([]schema.Edit{{File: "new.py", Replace: "z\n"}, {File: "a.py", Search: "x = 1\n"}}))
	f.Add("x\n", `<edit file="../a.py">`+"\n<search>\nx\n</search>\n<replacement>\ny\n</replacement>\n</edit>")
	f.Add("x\n", `<edit file="/tmp/a.py">`+"\n<search>\n</search>\n<replacement>\ny\n</replacement>\n</edit>")
	f.Fuzz(func(t *testing.T, content, answer string) {
		edits, err := prompt.ParseEdits(answer)
		if err != nil {
			return
		}
		parent := t.TempDir()
		root := filepath.Join(parent, "root")
		if err := os.MkdirAll(filepath.Join(root, "pkg"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"a.py", "pkg/b.py"} {
			if err := os.WriteFile(filepath.Join(root, p), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshot(t, parent)
		got, err := execute.Apply(root, edits)
		after := snapshot(t, parent)
		if err != nil {
			if !maps(after, before) {
				t.Fatalf("refused (%v) but the tree changed:\n%q\n%q", err, before, after)
			}
			return
		}
		for k := range after {
			if !strings.HasPrefix(k, "root/") {
				t.Fatalf("wrote outside the worktree: %s", k)
			}
		}
		for _, p := range got.Files() {
			var mine []schema.Edit
			for _, e := range edits {
				if filepath.Clean(e.File) == p {
					mine = append(mine, e)
				}
			}
			var old []byte
			if b, ok := before["root/"+p]; ok {
				old = []byte(b)
			}
			want, _ := schema.ApplyEdits(old, mine)
			if now, ok := after["root/"+p]; ok && now != string(want) {
				t.Fatalf("%s is %q, its edits give %q", p, now, want)
			}
		}
	})
}
