package bootstrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// One bad repository is recorded with its reason and skipped; the others
// in the batch are mined.
func TestBootstrapBadRepositories(t *testing.T) {
	t.Parallel()
	good, _ := project(t)

	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "main.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := gittest.New(t)

	shallowSrc, _ := project(t)
	shallow := filepath.Join(t.TempDir(), "shallow")
	shallowSrc.Git("clone", "-q", "--depth", "2", "file://"+shallowSrc.Dir, shallow)

	corrupt, _ := project(t)
	blob := corrupt.Git("rev-parse", "HEAD~1:app/store.py")
	if err := os.Remove(filepath.Join(corrupt.Dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, path, reason string
		registered         bool // in curated.repos: indexed, as its HEAD can be
	}{
		{"not a repository", plain, "not a git repository", false},
		{"no commits", empty.Dir, "no commits", false},
		{"shallow clone", shallow, "shallow clone", false},
		{"corrupt objects", corrupt.Dir, "object not found", true},
		{"missing path", filepath.Join(t.TempDir(), "gone"), "no such file", false},
	}
	paths := []string{good.Dir}
	for _, c := range cases {
		paths = append(paths, c.path)
	}
	home := newHome(t)
	sum := mine(t, home, testOptions(), paths...)
	if sum.Failed != len(cases) {
		t.Errorf("%d repositories failed, want %d", sum.Failed, len(cases))
	}
	if res := sum.Repos[0]; res.Status != kb.StatusOK || res.Verified == 0 || !res.Indexed {
		t.Errorf("the good repository: %s (%s), %d verified, indexed %v; want ok, indexed, with ground truth", res.Status, res.Error, res.Verified, res.Indexed)
	}
	for i, c := range cases {
		res := sum.Repos[i+1]
		if res.Status != kb.StatusFailed || !strings.Contains(res.Error, c.reason) {
			t.Errorf("%s: status %s, error %q; want failed with %q", c.name, res.Status, res.Error, c.reason)
		}
		rows := rawRows(t, home, "SELECT last_status, last_error FROM bootstrap_repos WHERE repo_path = ?", res.Repo)
		if len(rows) != 1 || !strings.HasPrefix(rows[0], "failed\t") || !strings.Contains(rows[0], c.reason) {
			t.Errorf("%s: bootstrap_repos has %q; want the failure and its reason", c.name, rows)
		}
		if rows := storetest.Rows(t, home, kb.Curated, "SELECT id FROM repos WHERE path = ?", res.Repo); (len(rows) == 1) != c.registered {
			t.Errorf("%s: curated.repos rows %q; want registered %v (only what bootstrap can read is)", c.name, rows, c.registered)
		}
	}
}
