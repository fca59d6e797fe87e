package retrieval

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/cra-dev/cra/kb"
)

// A kept file's text is read by the worktree rule: a file swapped for a
// link out of the repository since it was indexed is not read, even when
// what the link leads to has the indexed content.
func TestReadIndexedKeepsToTheRepository(t *testing.T) {
	const text = "def add(a, b):\n    return a + b\n"
	sum := sha256.Sum256([]byte(text))
	hash := hex.EncodeToString(sum[:])
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "calc.py"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		make       func(repo string) error
		ok         bool
	}{
		{"a file", "calc.py", func(repo string) error { return os.WriteFile(filepath.Join(repo, "calc.py"), []byte(text), 0o644) }, true},
		{"a link to a file outside", "calc.py", func(repo string) error {
			return os.Symlink(filepath.Join(outside, "calc.py"), filepath.Join(repo, "calc.py"))
		}, false},
		{"a file in a linked directory", "pkg/calc.py", func(repo string) error { return os.Symlink(outside, filepath.Join(repo, "pkg")) }, false},
		{"a path with ..", "../calc.py", func(string) error { return nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			if err := os.Mkdir(repo, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(repo); err != nil {
				t.Fatal(err)
			}
			got, err := ReadIndexed(kb.Repo{Path: repo}, &kb.File{Path: tc.path, ContentHash: hash})
			if ok := err == nil && got == text; ok != tc.ok {
				t.Errorf("read %q, %v; want read: %v", got, err, tc.ok)
			}
		})
	}
}
