package eval

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// IsTestPath reports whether a path is a test file by the conventions of
// the languages cra reads: test_*.py, *_test.py, *_test.go, *.test.js and
// *.spec.ts (and their kin), and anything under test/, tests/, __tests__/
// or spec/.
func IsTestPath(p string) bool {
	for _, dir := range strings.Split(path.Dir(p), "/") {
		switch dir {
		case "test", "tests", "__tests__", "spec":
			return true
		}
	}
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch {
	case ext == ".py" && (strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test")):
		return true
	case ext == ".go" && strings.HasSuffix(stem, "_test"):
		return true
	case strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec"):
		return true
	}
	return false
}

// layCommitTests writes the commit's test files, as the commit left them,
// over the worktree at dir (deleting those it deleted): a change is judged
// by the tests its author wrote for it, which the run may not have
// written (SWE-bench's hidden tests).
func layCommitTests(dir string, t Task) error {
	byFile := map[string][]schema.Edit{}
	for _, e := range t.Truth.Implement.Edits {
		byFile[e.File] = append(byFile[e.File], e)
	}
	for _, f := range t.Truth.Implement.Files {
		if !IsTestPath(f.Path) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		if schema.DeletesFile([]byte(f.Content), byFile[f.Path]) {
			if err := os.Remove(dst); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		after, err := schema.ApplyEdits([]byte(f.Content), byFile[f.Path])
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, after, 0o644); err != nil {
			return err
		}
	}
	return nil
}
