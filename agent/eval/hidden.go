package eval

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/config"
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

// testsPassWithCommitTests runs the repository's test command on the
// run's result with the commit's own test files laid over it (as the
// commit left them): the change is judged by the tests its author wrote
// for it, which the run may not have written (SWE-bench's hidden tests).
func testsPassWithCommitTests(ctx context.Context, home string, t Task, tc config.Testing, branch string) (bool, error) {
	id := orchestrator.ScratchPrefix + "evaltests-" + t.Commit[:16]
	orchestrator.DiscardWorktree(ctx, home, t.Repo, id)
	wt, err := orchestrator.AddWorktree(ctx, home, t.Repo, branch, id)
	if err != nil {
		return false, err
	}
	defer orchestrator.DiscardWorktree(context.WithoutCancel(ctx), home, t.Repo, id)
	byFile := map[string][]schema.Edit{}
	for _, e := range t.Truth.Implement.Edits {
		byFile[e.File] = append(byFile[e.File], e)
	}
	for _, f := range t.Truth.Implement.Files {
		if !IsTestPath(f.Path) {
			continue
		}
		dst := filepath.Join(wt.Dir, filepath.FromSlash(f.Path))
		if schema.DeletesFile([]byte(f.Content), byFile[f.Path]) {
			if err := os.Remove(dst); err != nil && !os.IsNotExist(err) {
				return false, err
			}
			continue
		}
		after, err := schema.ApplyEdits([]byte(f.Content), byFile[f.Path])
		if err != nil {
			return false, err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(dst, after, 0o644); err != nil {
			return false, err
		}
	}
	rep, err := orchestrator.Validate(ctx, wt.Dir, tc)
	return rep.Passed(), err
}
