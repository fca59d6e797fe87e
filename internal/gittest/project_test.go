package gittest

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The generated project has the shape it promises, read back with git.
func TestProjectHasTheShapeOfARealRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1,500-commit repository")
	}
	dir := t.TempDir()
	s := Project{}.Build(t, dir)
	t.Log(s)
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	count := func(args ...string) int {
		n, err := strconv.Atoi(git(args...))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("rev-list", "--all", "--count"); n != s.Commits || n < 1500 {
		t.Errorf("%d commits, shape says %d (want 1,500 or more)", n, s.Commits)
	}
	if n := count("rev-list", "--merges", "--count", "main"); n != s.Merges || n < 40 {
		t.Errorf("%d merges, shape says %d", n, s.Merges)
	}
	// Every merge brings 2 to 4 commits of its branch.
	for _, m := range strings.Fields(git("rev-list", "--merges", "main")) {
		if n := count("rev-list", "--count", m+"^1.."+m+"^2"); n < 2 || n > 4 {
			t.Errorf("merge %.8s brings %d commits", m, n)
			break
		}
	}
	renames := git("log", "--all", "-M", "--diff-filter=R", "--name-status", "--format=")
	if n := strings.Count(renames, "\nR") + 1; renames == "" || n != s.Renames {
		t.Errorf("%d renames found by git, shape says %d", n, s.Renames)
	}
	if s.LargestBytes < 350<<10 || s.LargestBytes > 450<<10 || s.TestFileBytes < 90<<10 || s.TestFileBytes > 130<<10 {
		t.Errorf("largest source %d KB, test file %d KB: want ~400 and ~100", s.LargestBytes>>10, s.TestFileBytes>>10)
	}
	if !strings.Contains(git("log", "--all", "--numstat", "--format=", "--", "docs/_static/logo.png"), "-\t-\t") {
		t.Error("no binary file in the history")
	}
	if git("branch", "--list", "feature/*") == "" || git("tag") == "" {
		t.Error("no unmerged branch or no tag")
	}
}
