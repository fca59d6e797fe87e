// Package gittest builds real git repositories for tests with the git CLI:
// files, commits with fixed authors and dates, branches and merges. Dates
// advance one minute per commit so histories are deterministic.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Repo is a work tree with a .git directory, built in t.TempDir().
type Repo struct {
	t    testing.TB
	Dir  string
	when time.Time
}

// Epoch is the author and committer date of the first commit.
var Epoch = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// New runs `git init` in a new temporary directory, on branch main.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{t: t, Dir: t.TempDir(), when: Epoch}
	r.Git("init", "-q", "-b", "main")
	r.Git("config", "core.autocrlf", "false")
	return r
}

// Open returns the existing work tree at dir (a clone, a Synthetic
// repository) to add commits to, dated from a year after Epoch.
func Open(t testing.TB, dir string) *Repo {
	t.Helper()
	return &Repo{t: t, Dir: dir, when: Epoch.Add(365 * 24 * time.Hour)}
}

// Git runs git in the repository and returns its trimmed stdout; a failure
// fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := r.run(args...)
	if err != nil {
		r.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func (r *Repo) run(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	date := r.when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Ada Tester", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Ada Tester", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Dir, "LC_ALL=C",
	)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, stderr.String())
	}
	return strings.TrimRight(string(out), "\n"), nil
}

// Write writes content to the work-tree path (slash separated), creating
// directories. It does not stage.
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	r.WriteBytes(path, []byte(content))
}

// WriteBytes writes raw bytes (binary files, invalid UTF-8).
func (r *Repo) WriteBytes(path string, content []byte) {
	r.t.Helper()
	full := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, content, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Remove deletes a work-tree path (file or directory).
func (r *Repo) Remove(path string) {
	r.t.Helper()
	if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(path))); err != nil {
		r.t.Fatal(err)
	}
}

// Commit stages everything (`git add -A`) and commits with message; it
// returns the new commit's hash. Empty commits are allowed.
func (r *Repo) Commit(message string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	r.when = r.when.Add(time.Minute)
	return r.Git("rev-parse", "HEAD")
}

// CommitAs is Commit with another author ("Name <email>"), such as a bot.
func (r *Repo) CommitAs(author, message string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "--author", author, "-m", message)
	r.when = r.when.Add(time.Minute)
	return r.Git("rev-parse", "HEAD")
}

// Merge merges branch into the current branch with a merge commit (--no-ff)
// and returns its hash. A conflict fails the test.
func (r *Repo) Merge(branch, message string) string {
	r.t.Helper()
	r.Git("merge", "-q", "--no-ff", "-m", message, branch)
	r.when = r.when.Add(time.Minute)
	return r.Git("rev-parse", "HEAD")
}

// Head is the hash of HEAD.
func (r *Repo) Head() string { return r.Git("rev-parse", "HEAD") }

// OutsideSecret is the content of the file LinkOutside's links lead to: a
// test asserts it never reaches a prompt or a row.
const OutsideSecret = "TOPSECRET-OUTSIDE-CONTENT-12345"

// LinkOutside commits two symbolic links leaving the work tree — link.txt
// to a file outside holding OutsideSecret, and linkdir to the directory
// holding it (so linkdir/secret.txt is that file too) — and returns the
// new commit's hash.
func (r *Repo) LinkOutside() string {
	r.t.Helper()
	outside := r.t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte(OutsideSecret+"\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
	for link, target := range map[string]string{"link.txt": secret, "linkdir": outside} {
		if err := os.Symlink(target, filepath.Join(r.Dir, link)); err != nil {
			r.t.Fatal(err)
		}
	}
	return r.Commit("links out of the tree")
}
