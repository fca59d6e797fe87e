package execute

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/kb/schema"
)

// A write that fails midway puts back every file the patch had written:
// modified files, created ones and deleted ones.
func TestApplyPatchRollsBack(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"a.py": "a = 1\n", "b.py": "b = 1\n", "gone.py": "g\n", "z.py": "z = 1\n"}
	for p, text := range files {
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	real := writeFile
	t.Cleanup(func() { writeFile = real })
	writeFile = func(p string, data []byte, mode fs.FileMode) error {
		if filepath.Base(p) == "z.py" {
			return errors.New("disk full")
		}
		return real(p, data, mode)
	}
	_, err := Apply(root, []schema.Edit{
		{File: "a.py", Search: "a = 1", Replace: "a = 2"},
		{File: "new/c.py", Replace: "c = 1\n"},
		{File: "gone.py", Search: "g\n"},
		{File: "b.py", Search: "b = 1", Replace: "b = 2"},
		{File: "z.py", Search: "z = 1", Replace: "z = 2"},
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "back as it was") {
		t.Fatalf("got %v", err)
	}
	for p, text := range files {
		b, err := os.ReadFile(filepath.Join(root, p))
		info, _ := os.Stat(filepath.Join(root, p))
		if err != nil || string(b) != text || info.Mode().Perm() != 0o640 {
			t.Errorf("%s after the rollback: %q, %v", p, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new/c.py")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the created file is still there: %v", err)
	}
}
