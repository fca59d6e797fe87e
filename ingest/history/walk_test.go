package history

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

func TestWalkMatchesGitLog(t *testing.T) {
	tests := []struct {
		name  string
		build func(t *testing.T, r *gittest.Repo)
	}{
		{"renames and directory deletes", func(t *testing.T, r *gittest.Repo) {
			r.Write("src/a.go", "package a\n\nfunc A() {}\n")
			r.Write("src/b.go", "package a\n")
			r.Write("docs/guide/intro.md", "# Intro\n")
			r.Write("docs/guide/more.md", "# More\ntext\n")
			r.Commit("add files")
			r.Git("mv", "src/a.go", "src/renamed.go")
			r.Commit("rename")
			r.Remove("src/b.go")
			r.Write("lib/b.go", "package a\n\nvar B = 1\n")
			r.Commit("rename with edit")
			r.Remove("docs")
			r.Commit("delete a whole directory tree")
		}},
		{"binary files", func(t *testing.T, r *gittest.Repo) {
			r.WriteBytes("img.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
			r.Write("text.txt", "text\n")
			r.Commit("add binary")
			r.WriteBytes("img.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR more"))
			r.Commit("modify binary")
			r.WriteBytes("text.txt", []byte("now\x00binary\n"))
			r.Commit("text becomes binary")
			// A NUL past git's 8000-byte sniff window leaves the file text.
			r.Write("late.txt", strings.Repeat("x\n", 4500)+"\x00\n")
			r.Commit("late NUL")
			chmod(t, r, "img.png", 0o755)
			r.Commit("binary mode change")
			r.Remove("img.png")
			r.Commit("delete binary")
		}},
		{"merges", func(t *testing.T, r *gittest.Repo) {
			r.Write("a.txt", "one\ntwo\nthree\n")
			r.Commit("base")
			r.Git("checkout", "-q", "-b", "topic")
			r.Write("b.txt", "topic\n")
			r.Commit("topic work")
			r.Git("checkout", "-q", "main")
			r.Write("a.txt", "one\n2\nthree\n")
			r.Commit("main work")
			r.Merge("topic", "merge topic")
			r.Git("checkout", "-q", "-b", "evil")
			r.Write("c.txt", "c\n")
			r.Commit("evil work")
			r.Git("checkout", "-q", "main")
			r.Git("merge", "-q", "--no-ff", "--no-commit", "evil")
			r.Write("a.txt", "one\n2\n3\n")
			r.Commit("merge with extra edits")
			r.Git("checkout", "-q", "-b", "conflict", "main~1")
			r.Write("a.txt", "uno\n2\n3\n")
			r.Commit("conflicting work")
			r.Git("checkout", "-q", "main")
			r.Write("a.txt", "eins\n2\n3\n")
			r.Commit("main side of the conflict")
			mergeWithConflict(t, r, "conflict")
			r.Write("a.txt", "one (resolved)\n2\n3\nmore\n")
			r.Commit("merge conflict resolved")
			r.Write("a.txt", "1\n2\n3\n")
			r.Commit("after the merges")
		}},
		{"newlines and crlf", func(t *testing.T, r *gittest.Repo) {
			r.Write("no-eol.txt", "a\nb")
			r.Write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
			r.Write("empty.txt", "")
			r.Commit("add")
			r.Write("no-eol.txt", "a\nb\n")
			r.Write("crlf.txt", "one\r\ntwo\nthree\r\n")
			r.Commit("add newline at eof, mix line ends")
			r.Write("no-eol.txt", "a\nb\nc")
			r.Write("empty.txt", "\n")
			r.Commit("drop it again")
			r.Remove("empty.txt")
			r.Commit("delete")
		}},
		{"modes and symlinks", func(t *testing.T, r *gittest.Repo) {
			r.Write("run.sh", "#!/bin/sh\necho hi\n")
			r.Write("target.txt", "target\n")
			symlink(t, r, "target.txt", "link")
			r.Commit("add")
			chmod(t, r, "run.sh", 0o755)
			r.Commit("chmod +x")
			chmod(t, r, "run.sh", 0o644)
			r.Write("run.sh", "#!/bin/sh\necho bye\n")
			r.Commit("chmod -x with an edit")
			r.Remove("link")
			symlink(t, r, "run.sh", "link")
			r.Commit("retarget symlink")
			r.Remove("link")
			r.Write("link", "now a file\nwith two lines\n")
			r.Commit("symlink to file")
			r.Remove("target.txt")
			symlink(t, r, "link", "target.txt")
			r.Commit("file to symlink")
		}},
		{"submodule", func(t *testing.T, r *gittest.Repo) {
			sub := gittest.New(t)
			sub.Write("s.txt", "1\n")
			sub.Commit("sub one")
			sub.Write("s.txt", "2\n")
			sub.Commit("sub two")
			r.Write("top.txt", "top\n")
			r.Commit("top")
			r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "deps/sub")
			r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.Dir, "deps/other")
			r.Commit("add submodules")
			r.Git("-C", "deps/sub", "checkout", "-q", "HEAD~1")
			r.Commit("move submodule")
			r.Git("rm", "-q", "deps/other")
			r.Commit("remove submodule")
			r.Git("rm", "-q", "--cached", "deps/sub")
			r.Remove("deps/sub")
			r.Write("deps/sub", "a file\nwhere a submodule was\n")
			r.Commit("submodule to file")
			r.Git("rm", "-q", "deps/sub")
			r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", "-f", sub.Dir, "deps/sub")
			r.Commit("file to submodule")
		}},
		{"file and directory swap places", func(t *testing.T, r *gittest.Repo) {
			r.Write("d", "a file\n")
			r.Commit("file")
			r.Remove("d")
			r.Write("d/x", "in a dir\n")
			r.Write("d/y/z", "deeper\n")
			r.Commit("now a directory")
			r.Remove("d")
			r.Write("d", "a file again\n")
			r.Commit("file again")
		}},
		{"empty commits", func(t *testing.T, r *gittest.Repo) {
			r.Commit("empty root")
			r.Write("a", "a\n")
			r.Commit("a")
			r.Commit("empty")
		}},
		{"unicode and odd paths", func(t *testing.T, r *gittest.Repo) {
			r.Write("dir with space/ü file.txt", "ü\n")
			r.Write("日本/ファイル.md", "こんにちは\n")
			r.Write("tab\tname.txt", "tab\n")
			r.Write(`quote"d.txt`, "q\n")
			r.Write("a-b/c", "sorts after a/ in git's tree order\n")
			r.Write("a/c", "a/c\n")
			r.Write("a.b", "a.b\n")
			r.Commit("odd paths")
			r.Write("dir with space/ü file.txt", "ü\nü\n")
			r.Write("a/c", "changed\n")
			r.Commit("edit them")
		}},
		{"author and message", func(t *testing.T, r *gittest.Repo) {
			r.Write("a", "a\n")
			r.Git("add", "-A")
			r.Git("commit", "-q", "--author", "Zoë Ünicode <zoe@example.org>", "-m", "subject\n\nbody line\n\n\n")
			r.Write("a", "b\n")
			r.Git("add", "-A")
			r.Git("-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "--cleanup=verbatim", "-F", latin1Message(t))
		}},
		{"large file with scattered edits", func(t *testing.T, r *gittest.Repo) {
			rnd := rand.New(rand.NewPCG(7, 7))
			text := randomText(rnd, 6000, 400)
			r.WriteBytes("big.txt", text)
			r.Commit("big")
			for i := range 4 {
				text = editText(rnd, text, 200*(i+1), 400)
				r.WriteBytes("big.txt", text)
				r.Commit(fmt.Sprintf("edit %d", i))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gittest.New(t)
			tt.build(t, r)
			requireSameAsGit(t, r.Dir, r.Head())
		})
	}
}

// mergeWithConflict starts merging branch and expects git to stop on a
// conflict, leaving the resolution to the caller.
func mergeWithConflict(t *testing.T, r *gittest.Repo, branch string) {
	t.Helper()
	cmd := exec.Command("git", "merge", "-q", "--no-ff", branch)
	cmd.Dir = r.Dir
	cmd.Env = append(gitEnv(r.Dir), "GIT_COMMITTER_NAME=Ada Tester", "GIT_COMMITTER_EMAIL=ada@example.com")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "CONFLICT") {
		t.Fatalf("git merge %s = %v, want a conflict: %s", branch, err, out)
	}
}

// latin1Message writes a commit message in ISO-8859-1 and returns its path.
func latin1Message(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "msg")
	if err := os.WriteFile(p, []byte("caf\xe9 cr\xe8me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func chmod(t *testing.T, r *gittest.Repo, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(r.Dir, filepath.FromSlash(path)), mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, r *gittest.Repo, target, path string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(r.Dir, filepath.FromSlash(path))); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
}

// history builds a small history with branches and merges.
func history(t *testing.T) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	for i := range 4 {
		r.Write("main.txt", strings.Repeat("line\n", i+1))
		r.Commit(fmt.Sprintf("main %d", i))
	}
	for _, b := range []string{"x", "y"} {
		r.Git("checkout", "-q", "-b", b, "main~2")
		for i := range 3 {
			r.Write(b+".txt", strings.Repeat(b+"\n", i+1))
			r.Commit(fmt.Sprintf("%s %d", b, i))
		}
		r.Git("checkout", "-q", "main")
		r.Merge(b, "merge "+b)
	}
	return r
}

func TestWalkOrderAcrossBranches(t *testing.T) {
	r := history(t)
	r.Git("checkout", "-q", "-b", "criss", "main~1")
	r.Write("c.txt", "c\n")
	r.Commit("criss")
	r.Merge("main", "criss-cross 1")
	r.Git("checkout", "-q", "main")
	r.Merge("criss~1", "criss-cross 2")
	r.Merge("criss", "criss-cross 3")
	got := requireSameAsGit(t, r.Dir, r.Head()) // requireSameAsGit checks the order too
	if got[0].Message != "main 0" || got[len(got)-1].Hash != r.Head() {
		t.Errorf("first %q, last %s; want the root first and head last", got[0].Message, got[len(got)-1].Hash)
	}
}

func TestWalkKnown(t *testing.T) {
	r := history(t)
	first := walkAll(t, r.Dir, r.Head(), Options{})
	known := map[string]bool{}
	for _, c := range first {
		known[c.Hash] = true
	}
	isKnown := func(h string) bool { return known[h] }
	if again := walkAll(t, r.Dir, r.Head(), Options{Known: isKnown}); len(again) != 0 {
		t.Fatalf("second walk delivered %d commits, want none", len(again))
	}

	r.Git("checkout", "-q", "-b", "late")
	r.Write("late.txt", "late\n")
	branch := r.Commit("late branch work")
	r.Git("checkout", "-q", "main")
	r.Write("main.txt", "changed\n")
	mainWork := r.Commit("late main work")
	merge := r.Merge("late", "merge late")

	got := walkAll(t, r.Dir, r.Head(), Options{Known: isKnown})
	var hashes []string
	for _, c := range got {
		hashes = append(hashes, c.Hash)
	}
	if len(hashes) != 3 || hashes[2] != merge || !slices.Contains(hashes, branch) || !slices.Contains(hashes, mainWork) {
		t.Fatalf("delivered %v, want %s and %s then the merge %s", hashes, mainWork, branch, merge)
	}
	want := gitLog(t, r.Dir, r.Head())[:3]
	for _, d := range diffCommits(want, got) {
		t.Error(d)
	}
}

// Want chooses the commits delivered by committer time, in the walk's own
// order and with their diffs, and the walk still goes through the others:
// the commits it wants below one it does not want are delivered.
func TestWalkWant(t *testing.T) {
	r := history(t)
	all := walkAll(t, r.Dir, r.Head(), Options{})
	var cutoff time.Time // a branch commit's: the commits below the merges are wanted
	for _, c := range all {
		if c.Message == "x 1" {
			cutoff = c.CommitTime
		}
	}
	got := walkAll(t, r.Dir, r.Head(), Options{Want: func(hash string, committed time.Time) bool {
		return committed.Before(cutoff)
	}})
	var want []Commit
	for _, c := range all {
		if c.CommitTime.Before(cutoff) {
			want = append(want, c)
		}
	}
	if len(want) == 0 || len(want) == len(all) {
		t.Fatalf("%d of %d commits before the cutoff: the case proves nothing", len(want), len(all))
	}
	hashes := func(cs []Commit) (out []string) {
		for _, c := range cs {
			out = append(out, c.Hash)
		}
		return out
	}
	if !slices.Equal(hashes(got), hashes(want)) {
		t.Errorf("delivered %v, want %v in the walk's order", hashes(got), hashes(want))
	}
	for _, d := range diffCommits(want, got) {
		t.Error(d)
	}
}

func TestWalkBareRepository(t *testing.T) {
	r := history(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	r.Git("clone", "-q", "--bare", r.Dir, bare)
	requireSameAsGit(t, bare, r.Head())
}

func TestWalkShallowClone(t *testing.T) {
	r := gittest.New(t)
	for i := range 6 {
		r.Write(fmt.Sprintf("f%d.txt", i%3), strings.Repeat("x\n", i+1))
		r.Commit(fmt.Sprintf("c%d", i))
	}
	clone := filepath.Join(t.TempDir(), "shallow")
	r.Git("clone", "-q", "--depth", "3", "file://"+r.Dir, clone)
	got := requireSameAsGit(t, clone, r.Head())
	if len(got) != 3 {
		t.Fatalf("walked %d commits of the shallow clone, want 3", len(got))
	}
	if boundary := got[0]; len(boundary.Parents) != 0 || len(boundary.Files) != 3 {
		t.Errorf("boundary commit has parents %v and %d files; want it diffed against the empty tree (3 files)",
			boundary.Parents, len(boundary.Files))
	}
}

func TestWalkErrors(t *testing.T) {
	r := history(t)
	tests := []struct {
		name, repo, head, want string
	}{
		{"short head", r.Dir, "abc123", "not a full 40-hex"},
		{"unknown head", r.Dir, strings.Repeat("0123456789", 4), "is not a commit"},
		{"head is a tree", r.Dir, r.Git("rev-parse", "HEAD^{tree}"), "is not a commit"},
		{"not a repository", t.TempDir(), r.Head(), "repository does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Walk(context.Background(), tt.repo, tt.head, Options{}, func(Commit) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Walk = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestWalkMissingObject removes one loose object and expects an error that
// names it and a commit needing it (with two workers, either may fail first).
func TestWalkMissingObject(t *testing.T) {
	tests := []struct {
		name    string
		object  string // revision of the object to remove
		commits []string
	}{
		{"blob", "two:a.txt", []string{"two", "three"}},
		{"tree", "two^{tree}", []string{"two", "three"}},
		{"parent commit", "one", []string{"two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gittest.New(t)
			for _, msg := range []string{"one", "two", "three"} {
				r.Write("a.txt", msg+"\n")
				r.Git("tag", msg, r.Commit(msg))
			}
			obj := r.Git("rev-parse", tt.object)
			if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", obj[:2], obj[2:])); err != nil {
				t.Fatal(err)
			}
			err := Walk(context.Background(), r.Dir, r.Head(), Options{Workers: 2}, func(Commit) error { return nil })
			if err == nil || !strings.Contains(err.Error(), obj) {
				t.Fatalf("Walk = %v, want an error naming %s", err, obj)
			}
			if !errors.Is(err, plumbing.ErrObjectNotFound) {
				t.Errorf("Walk = %v, want it to wrap plumbing.ErrObjectNotFound", err)
			}
			named := false
			for _, c := range tt.commits {
				named = named || strings.Contains(err.Error(), r.Git("rev-parse", c))
			}
			if !named {
				t.Errorf("Walk = %v, want it to name one of commits %v", err, tt.commits)
			}
		})
	}
}

func TestWalkStopsOnFnError(t *testing.T) {
	r := history(t)
	stop := errors.New("stop here")
	calls := 0
	err := Walk(context.Background(), r.Dir, r.Head(), Options{Workers: 3}, func(Commit) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Fatalf("Walk = %v after %d calls, want %v after 2", err, calls, stop)
	}
}

func TestWalkCancellation(t *testing.T) {
	r := history(t)
	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		err := Walk(ctx, r.Dir, r.Head(), Options{}, func(Commit) error { calls++; return nil })
		if !errors.Is(err, context.Canceled) || calls != 0 {
			t.Fatalf("Walk = %v after %d calls, want context.Canceled before any", err, calls)
		}
	})
	t.Run("during", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		err := Walk(ctx, r.Dir, r.Head(), Options{Workers: 2}, func(Commit) error {
			calls++
			cancel()
			return nil
		})
		if err != context.Canceled || calls != 1 {
			t.Fatalf("Walk = %v after %d calls, want context.Canceled after 1", err, calls)
		}
	})
}
