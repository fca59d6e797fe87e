package walk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

type walkFunc func(fn func(Entry) error) error

func collect(t *testing.T, walk walkFunc) []Entry {
	t.Helper()
	var got []Entry
	if err := walk(func(e Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatalf("walk: %v", err)
	}
	return got
}

func openRepo(t testing.TB, dir string) *git.Repository {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestWalkFixture(t *testing.T) {
	f := buildFixture(t)
	asRoot := os.Geteuid() == 0
	ctx := t.Context()
	opts := Options{MaxFileBytes: fixtureMax}
	head := plumbing.NewHash(f.head)
	work, bare := openRepo(t, f.repo.Dir), openRepo(t, f.bare)
	inMemory := memoryCopy(t, work, head)

	dirWant := func(r row) string {
		if r.perm && asRoot {
			return r.dirAsRoot
		}
		return r.dir
	}
	treeWant := func(r row) string { return r.tree }
	cases := []struct {
		name string
		walk walkFunc
		want func(row) string
	}{
		{"Dir", func(fn func(Entry) error) error { return Dir(ctx, f.repo.Dir, opts, fn) }, dirWant},
		{"Tree", func(fn func(Entry) error) error { return Tree(ctx, work, head, opts, fn) }, treeWant},
		{"TreeBareClone", func(fn func(Entry) error) error { return Tree(ctx, bare, head, opts, fn) }, treeWant},
		{"TreeMemoryStorage", func(fn func(Entry) error) error { return Tree(ctx, inMemory, head, opts, fn) }, treeWant},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := collect(t, c.walk)
			var want, have []string
			for _, r := range f.rows {
				if s := c.want(r); s != absent {
					want = append(want, golden(r.path, s))
				}
			}
			for _, e := range got {
				have = append(have, golden(e.Path, e.Skip))
			}
			if !slices.Equal(have, want) {
				t.Errorf("entries differ (-want +got):\n%s", diffLines(want, have))
			}
			for _, e := range got {
				checkEntry(t, f, e)
			}
		})
	}
}

// memoryCopy copies every object of repo into a repository held in
// memory: Tree must not depend on objects being on disk.
func memoryCopy(t *testing.T, repo *git.Repository, head plumbing.Hash) *git.Repository {
	t.Helper()
	mem := memory.NewStorage()
	iter, err := repo.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	err = iter.ForEach(func(o plumbing.EncodedObject) error {
		_, err := mem.SetEncodedObject(o)
		return err
	})
	if err == nil {
		err = mem.SetReference(plumbing.NewHashReference(plumbing.HEAD, head))
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := git.Open(mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func golden(path, skip string) string {
	if skip == "" {
		skip = "index"
	}
	return fmt.Sprintf("%-28q %s", path, skip)
}

// diffLines lists lines missing from got and lines not wanted; when both
// hold the same lines, the order differs and both are listed in full.
func diffLines(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			fmt.Fprintf(&b, "+ %s\n", g)
		}
	}
	if b.Len() == 0 {
		fmt.Fprintf(&b, "order differs:\nwant:\n  %s\ngot:\n  %s\n", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
	}
	return b.String()
}

// details are substrings the Detail of some entries must hold.
var details = map[string]string{
	"big.txt":        "5.4 KiB > max_file_bytes 4 KiB",
	"image.png":      "NUL byte at offset 8",
	"debug.log":      "matched by .gitignore",
	"local.env":      "matched by .git/info/exclude",
	"pkg/secret.txt": "matched by pkg/.gitignore",
	"bad\uFFFD.log":  "path is not valid UTF-8",
	"link-up":        "links to ../x",
	"link-dangling":  "dangling",
	"link-file":      "links to src/main.go",
	"gen/api.pb.go":  "Code generated",
	"gen/models.py":  "@generated",
	"node_modules/":  "vendored",
	"sub/":           "",
}

func checkEntry(t *testing.T, f *fixture, e Entry) {
	t.Helper()
	if !utf8.ValidString(e.Path) {
		t.Errorf("%q: path is not valid UTF-8", e.Path)
	}
	wantLang := lang.LanguageOf(e.Path)
	if strings.HasSuffix(e.Path, "/") {
		wantLang = ""
	}
	if e.Language != wantLang {
		t.Errorf("%q: Language = %q, want %q", e.Path, e.Language, wantLang)
	}
	if e.Skip != "" {
		if e.Content != nil {
			t.Errorf("%q: skipped (%s) but Content is set", e.Path, e.Skip)
		}
		if e.Detail == "" {
			t.Errorf("%q: skipped (%s) without Detail", e.Path, e.Skip)
		}
		if d, ok := details[e.Path]; ok && !strings.Contains(e.Detail, d) {
			t.Errorf("%q: Detail = %q, want it to contain %q", e.Path, e.Detail, d)
		}
		return
	}
	want, ok := f.contents[e.Path]
	if !ok {
		t.Errorf("%q: indexed but the fixture did not write it", e.Path)
	}
	if e.Content == nil || !bytes.Equal(e.Content, want) {
		t.Errorf("%q: Content = %q, want %q", e.Path, e.Content, want)
	}
	if e.Size != int64(len(want)) {
		t.Errorf("%q: Size = %d, want %d", e.Path, e.Size, len(want))
	}
	if e.Detail != "" {
		t.Errorf("%q: indexed with Detail %q", e.Path, e.Detail)
	}
}

// smallRepo is a committed repository of n files in two directories.
func smallRepo(t *testing.T, n int) (*gittest.Repo, plumbing.Hash) {
	t.Helper()
	r := gittest.New(t)
	for i := range n {
		r.Write(fmt.Sprintf("d%d/f%02d.go", i%2, i), fmt.Sprintf("package d\n\nconst X%d = %d\n", i, i))
	}
	return r, plumbing.NewHash(r.Commit("files"))
}

func TestWalkStops(t *testing.T) {
	r, head := smallRepo(t, 10)
	repo := openRepo(t, r.Dir)
	walkers := []struct {
		name string
		walk func(ctx context.Context, fn func(Entry) error) error
	}{
		{"Dir", func(ctx context.Context, fn func(Entry) error) error { return Dir(ctx, r.Dir, Options{}, fn) }},
		{"Tree", func(ctx context.Context, fn func(Entry) error) error { return Tree(ctx, repo, head, Options{}, fn) }},
	}
	stop := errors.New("stop here")
	for _, w := range walkers {
		t.Run(w.name+"/fn error", func(t *testing.T) {
			calls := 0
			err := w.walk(t.Context(), func(Entry) error {
				calls++
				if calls == 3 {
					return stop
				}
				return nil
			})
			if err != stop || calls != 3 {
				t.Errorf("err = %v after %d calls, want %v after 3", err, calls, stop)
			}
		})
		t.Run(w.name+"/cancelled before", func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			calls := 0
			err := w.walk(ctx, func(Entry) error { calls++; return nil })
			if !errors.Is(err, context.Canceled) || calls != 0 {
				t.Errorf("err = %v after %d calls, want context.Canceled after 0", err, calls)
			}
		})
		t.Run(w.name+"/cancelled during", func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			calls := 0
			err := w.walk(ctx, func(Entry) error {
				calls++
				if calls == 2 {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) || calls != 2 {
				t.Errorf("err = %v after %d calls, want context.Canceled after 2", err, calls)
			}
		})
	}
}

func TestDirPlainDirectory(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".gitignore":       "*.tmp\nout/\n",
		"a.tmp":            "x",
		"b.go":             "package b\n",
		"out/c.go":         "package out\n",
		"nested/.gitkeep":  "",
		"nested/d.tmp":     "x",
		"clone/.git/HEAD":  "ref: refs/heads/main\n",
		"clone/readme.txt": "a nested repository\n",
	}
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := collect(t, func(fn func(Entry) error) error { return Dir(t.Context(), root, Options{}, fn) })
	var have []string
	for _, e := range got {
		have = append(have, golden(e.Path, e.Skip))
	}
	want := []string{
		golden(".gitignore", ""),
		golden("a.tmp", SkipGitignored),
		golden("b.go", ""),
		golden("clone/", SkipSubmodule),
		golden("nested/.gitkeep", ""),
		golden("nested/d.tmp", SkipGitignored),
		golden("out/", SkipGitignored),
	}
	if !slices.Equal(have, want) {
		t.Errorf("entries differ (-want +got):\n%s", diffLines(want, have))
	}
}

func TestDirBadRoot(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		err := Dir(t.Context(), root, Options{}, func(Entry) error { return nil })
		if err == nil || !strings.Contains(err.Error(), root) {
			t.Errorf("Dir(%s) = %v, want an error naming it", root, err)
		}
	}
}

func TestDirLinkedWorktree(t *testing.T) {
	r, _ := smallRepo(t, 2)
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", wt)
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", "info", "exclude"), []byte("*.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, "local.env"), []byte("X=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := collect(t, func(fn func(Entry) error) error { return Dir(t.Context(), wt, Options{}, fn) })
	var have []string
	for _, e := range got {
		have = append(have, golden(e.Path, e.Skip))
	}
	want := []string{golden("d0/f00.go", ""), golden("d1/f01.go", ""), golden("local.env", SkipGitignored)}
	if !slices.Equal(have, want) {
		t.Errorf("entries differ (-want +got):\n%s", diffLines(want, have))
	}
}

func TestTreeBadObjects(t *testing.T) {
	r := gittest.New(t)
	for _, p := range []string{"a/x.txt", "b/y.txt", "c.txt", "d.txt", "e.txt"} {
		r.Write(p, "content of "+p+"\n")
	}
	head := plumbing.NewHash(r.Commit("files"))
	object := func(spec string) string {
		h := r.Git("rev-parse", spec)
		return filepath.Join(r.Dir, ".git", "objects", h[:2], h[2:])
	}
	for _, p := range []string{object("HEAD:b"), object("HEAD:c.txt")} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	corrupt := object("HEAD:d.txt")
	os.Chmod(corrupt, 0o644)
	if err := os.WriteFile(corrupt, []byte("not zlib at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := collect(t, func(fn func(Entry) error) error {
		return Tree(t.Context(), openRepo(t, r.Dir), head, Options{}, fn)
	})
	var have []string
	for _, e := range got {
		have = append(have, golden(e.Path, e.Skip))
		if e.Skip != "" && e.Detail == "" {
			t.Errorf("%q: %s without Detail", e.Path, e.Skip)
		}
	}
	want := []string{
		golden("a/x.txt", ""),
		golden("b/", SkipUnreadable),
		golden("c.txt", SkipUnreadable),
		golden("d.txt", SkipUnreadable),
		golden("e.txt", ""),
	}
	if !slices.Equal(have, want) {
		t.Errorf("entries differ (-want +got):\n%s", diffLines(want, have))
	}
}

func TestTreeBadCommit(t *testing.T) {
	r, _ := smallRepo(t, 1)
	err := Tree(t.Context(), openRepo(t, r.Dir), plumbing.NewHash(strings.Repeat("ab", 20)), Options{}, func(Entry) error { return nil })
	if err == nil {
		t.Fatal("Tree on a missing commit: no error")
	}
}
