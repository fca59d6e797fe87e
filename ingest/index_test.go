package ingest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
)

// project builds a small repository in three languages whose files import
// and call each other, with some history.
func project(t *testing.T) *gittest.Repo {
	r := gittest.New(t)
	r.Write("src/shop/__init__.py", "from .cart import Cart\n")
	r.Write("src/shop/cart.py", `"""Shopping cart."""
from .prices import price_of


class Cart:
    def __init__(self):
        self.items = []

    def add(self, sku):
        """Add an item.

        Args:
            sku: the item's code.
        """
        if not sku:
            raise ValueError("empty sku")
        self.items.append(sku)
        return self.total()

    def total(self):
        # Sum in cents: floats lose pennies.
        return sum(price_of(s) for s in self.items)
`)
	r.Write("src/shop/prices.py", "PRICES = {}\n\n\ndef price_of(sku):\n    return PRICES.get(sku, 0)\n")
	r.Commit("Add the cart")
	r.Write("go.mod", "module example.com/shop\n\ngo 1.22\n")
	r.Write("store/store.go", `package store

import "errors"

// ErrMissing is returned for unknown keys.
var ErrMissing = errors.New("missing")

// Store keeps values.
type Store struct{ m map[string]int }

// New returns an empty Store.
func New() *Store { return &Store{m: map[string]int{}} }

// Get returns a value.
func (s *Store) Get(k string) (int, error) {
	v, ok := s.m[k]
	if !ok {
		return 0, ErrMissing
	}
	return v, nil
}
`)
	r.Write("cmd/shop/main.go", `package main

import "example.com/shop/store"

func main() {
	s := store.New()
	s.Get("x")
	run()
}

func run() {}
`)
	r.Commit("Add the Go store")
	r.Write("web/util.ts", "export function fmt(n: number): string {\n  return n.toFixed(2);\n}\n")
	r.Write("web/app.ts", "import { fmt } from './util';\n\nexport function show(n: number) {\n  return fmt(n);\n}\n")
	r.Write("web/index.js", "const x = 1;\n")
	r.Commit("Add the web client")
	r.Write("src/shop/prices.py", "PRICES = {\"a\": 1}\n\n\ndef price_of(sku):\n    return PRICES.get(sku, 0)\n")
	r.Write("src/shop/cart.py", strings.Replace(readFile(t, r, "src/shop/cart.py"), "self.items = []", "self.items = []\n        self.count = 0", 1))
	r.Commit("Price list and count")
	return r
}

func readFile(t *testing.T, r *gittest.Repo, p string) string {
	b, err := os.ReadFile(filepath.Join(r.Dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestIndexFindsFactsEdgesAndHistory(t *testing.T) {
	r := project(t)
	home := newHome(t)
	res := one(t, home, r.Dir, Options{})
	if res.Files != 9 || res.FilesChanged != 9 || res.Commits != 4 || res.CommitsAdded != 4 || !res.Git || res.Rev != "worktree" {
		t.Fatalf("result: %+v", res)
	}
	deps := query(t, home, `SELECT `+pathOfID("source_file_id")+` || ' -> ' || `+pathOfID("target_file_id")+` FROM dependencies ORDER BY 1`)
	want := []string{
		"cmd/shop/main.go -> store/store.go",
		"src/shop/__init__.py -> src/shop/cart.py",
		"src/shop/cart.py -> src/shop/prices.py",
		"web/app.ts -> web/util.ts",
	}
	if !slices.Equal(deps, want) {
		t.Errorf("dependencies:\n%s\nwant\n%s", strings.Join(deps, "\n"), strings.Join(want, "\n"))
	}
	refs := query(t, home, `SELECT caller || ' -' || kind || '-> ' || callee FROM (SELECT `+sym("caller_symbol_id")+` AS caller, reference_kind AS kind, `+
		sym("callee_symbol_id")+` AS callee FROM symbol_references) ORDER BY 1`)
	for _, w := range []string{
		"src/shop/cart.py:add:10 -call-> src/shop/cart.py:total:21",
		"src/shop/cart.py:total:21 -call-> src/shop/prices.py:price_of:4",
		"cmd/shop/main.go:main:5 -call-> store/store.go:New:12",
		"cmd/shop/main.go:main:5 -call-> cmd/shop/main.go:run:11",
		"web/app.ts:show:3 -call-> web/util.ts:fmt:1",
	} {
		if !slices.Contains(refs, w) {
			t.Errorf("missing reference %q in\n%s", w, strings.Join(refs, "\n"))
		}
	}
	idx := query(t, home, `SELECT qualified_name, calls, called_by, raises, mutates, error_strings FROM code_index
		WHERE file_path = 'src/shop/cart.py' ORDER BY line_start`)
	wantIdx := []string{
		"Cart\t[]\t[]\t[]\t[]\t[]",
		"Cart.__init__\t[]\t[]\t[]\t[self.items self.count]\t[]",
		"Cart.add\t[Cart.total]\t[]\t[ValueError]\t[self.items]\t[empty sku]",
		"Cart.total\t[price_of]\t[Cart.add]\t[]\t[]\t[]",
	}
	if !slices.Equal(idx, wantIdx) {
		t.Errorf("code_index:\n%s\nwant\n%s", strings.Join(idx, "\n"), strings.Join(wantIdx, "\n"))
	}
	if got := query(t, home, `SELECT raises FROM code_index WHERE qualified_name = 'Store.Get'`); !slices.Equal(got, []string{"[ErrMissing]"}) {
		t.Errorf("Store.Get raises %v, want [ErrMissing]", got)
	}
	co := query(t, home, `SELECT a || ' + ' || b || ' ' || count FROM (`+coChangePairs+`) ORDER BY 1`)
	if !slices.Contains(co, "src/shop/cart.py + src/shop/prices.py 2") {
		t.Errorf("co_changes lack cart+prices twice: %v", co)
	}
	if got := query(t, home, "SELECT count(*) FROM file_commits"); got[0] != "11" {
		t.Errorf("file_commits = %v, want 11 (3+3+3+2: one per file per commit that touched it)", got)
	}
	runs := rawRows(t, home, "SELECT repo_path, rev, files_scanned, files_changed, commits_added, status FROM index_runs")
	if want := []string{fmt.Sprintf("%s\tworktree\t9\t9\t4\tok", res.Repo)}; !slices.Equal(runs, want) {
		t.Errorf("index_runs %v, want %v", runs, want)
	}
}

func TestIncrementalEqualsFull(t *testing.T) {
	r := project(t)
	home := newHome(t)
	one(t, home, r.Dir, Options{})

	// Edits, a delete, a new file that makes an import resolvable, a
	// rename, new commits on a branch merged back, and uncommitted work.
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("src/shop/tax.py", "def tax(x):\n    return x * 0.2\n")
	r.Write("src/shop/prices.py", "from .tax import tax\n\nPRICES = {}\n\n\ndef price_of(sku):\n    return tax(PRICES.get(sku, 0))\n")
	r.Commit("Tax")
	r.Git("checkout", "-q", "main")
	r.Git("mv", "web/index.js", "web/main.js")
	r.Remove("cmd/shop/main.go")
	r.Commit("Rename and drop the command")
	r.Merge("feature", "Merge feature")
	r.Write("store/store.go", strings.Replace(readFile(t, r, "store/store.go"), "return v, nil", "return v + 1, nil", 1))

	inc := one(t, home, r.Dir, Options{})
	if inc.FilesChanged != 4 || inc.FilesDeleted != 2 || inc.CommitsAdded != 3 {
		t.Errorf("incremental run: changed %d deleted %d commits %d, want 4, 2, 3", inc.FilesChanged, inc.FilesDeleted, inc.CommitsAdded)
	}
	full := newHome(t)
	one(t, full, r.Dir, Options{Jobs: 1})
	sameDump(t, dump(t, home), dump(t, full))

	again := one(t, home, r.Dir, Options{})
	if again.FilesChanged != 0 || again.FilesDeleted != 0 || again.CommitsAdded != 0 {
		t.Errorf("no-change run changed %d, deleted %d, added %d commits", again.FilesChanged, again.FilesDeleted, again.CommitsAdded)
	}
	sameDump(t, dump(t, home), dump(t, full))

	// A delete alone still re-derives the edges that pointed at the file.
	r.Remove("web/util.ts")
	if del := one(t, home, r.Dir, Options{}); del.FilesDeleted != 1 || del.FilesChanged != 0 {
		t.Errorf("delete-only run: %+v", del)
	}
	full = newHome(t)
	one(t, full, r.Dir, Options{})
	sameDump(t, dump(t, home), dump(t, full))
}

func TestHistoryEqualsGitLogNumstat(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "1\n2\n3\n")
	r.WriteBytes("logo.png", []byte{0x89, 'P', 'N', 'G', 0, 1, 2})
	r.Commit("first")
	r.Git("mv", "a.txt", "b.txt")
	r.Write("b.txt", "1\n2\nthree\n4")
	r.Commit("rename and edit")
	r.Git("checkout", "-q", "-b", "side")
	r.WriteBytes("logo.png", []byte{0x89, 'P', 'N', 'G', 0, 9})
	r.Write("c.txt", "x\n")
	r.Commit("binary edit")
	r.Git("checkout", "-q", "main")
	r.Write("d.txt", "d\n")
	r.Commit("d")
	r.Merge("side", "merge side")
	home := newHome(t)
	one(t, home, r.Dir, Options{})

	got := query(t, home, "SELECT hash, files_changed, insertions, deletions FROM commits ORDER BY hash")
	want := gitLogNumstat(t, r)
	if !slices.Equal(got, want) {
		t.Fatalf("commits:\n%s\nwant (git log --numstat --no-renames):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if b := query(t, home, "SELECT count(*) FROM commit_files WHERE path = 'logo.png' AND is_binary AND insertions = 0"); b[0] != "2" {
		t.Errorf("binary logo.png changes = %v, want 2", b)
	}
}

// gitLogNumstat is `hash files insertions deletions` per commit, from git.
func gitLogNumstat(t *testing.T, r *gittest.Repo) []string {
	out := r.Git("log", "--numstat", "--no-renames", "--format=@%H")
	type fig struct{ files, ins, del int }
	var order []string
	figs := map[string]*fig{}
	var cur string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "@"):
			cur = line[1:]
			order = append(order, cur)
			figs[cur] = &fig{}
		case line != "":
			parts := strings.SplitN(line, "\t", 3)
			f := figs[cur]
			f.files++
			a, _ := strconv.Atoi(parts[0]) // "-" (binary) counts 0
			d, _ := strconv.Atoi(parts[1])
			f.ins += a
			f.del += d
		}
	}
	var lines []string
	for _, h := range order {
		f := figs[h]
		lines = append(lines, fmt.Sprintf("%s\t%d\t%d\t%d", h, f.files, f.ins, f.del))
	}
	slices.Sort(lines)
	return lines
}

func TestRevIndexesABareCloneFromObjects(t *testing.T) {
	r := project(t)
	bare := filepath.Join(t.TempDir(), "shop.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", r.Dir, bare).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	home := newHome(t)
	res := one(t, home, bare, Options{Rev: "HEAD~1"})
	wantRev := r.Git("rev-parse", "HEAD~1")
	if res.Rev != wantRev || res.Commits != 3 {
		t.Fatalf("rev %s commits %d, want %s and 3", res.Rev, res.Commits, wantRev)
	}
	files := query(t, home, "SELECT path FROM files ORDER BY path")
	want := strings.Split(r.Git("ls-tree", "-r", "--name-only", "HEAD~1"), "\n")
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("files %v, want the tree of HEAD~1 %v", files, want)
	}
	// The default for a bare clone is HEAD.
	res = one(t, home, bare, Options{})
	if res.Rev != r.Head() || res.Commits != 4 || res.CommitsAdded != 1 || res.FilesChanged != 2 {
		t.Errorf("bare HEAD run: %+v", res)
	}
}

func TestCoChangeIgnoresMergesAndBigCommits(t *testing.T) {
	r := gittest.New(t)
	for i := range 5 {
		r.Write(fmt.Sprintf("f%d.py", i), "x = 0\n")
	}
	r.Commit("five files: over the limit of 3")
	for i := range 2 {
		r.Write("f0.py", fmt.Sprintf("x = %d\n", i+1))
		r.Write("f1.py", fmt.Sprintf("x = %d\n", i+1))
		r.Commit("pair")
	}
	r.Git("checkout", "-q", "-b", "b")
	r.Write("f2.py", "x = 9\n")
	r.Commit("b")
	r.Git("checkout", "-q", "main")
	r.Write("f3.py", "x = 9\n")
	r.Commit("main")
	r.Merge("b", "merge: f2 and f3 meet only here")
	home := newHome(t)
	one(t, home, r.Dir, Options{CoChangeMaxFiles: 3})
	got := query(t, home, `SELECT a, b, count FROM (`+coChangePairs+`) ORDER BY ALL`)
	if want := []string{"f0.py\tf1.py\t2"}; !slices.Equal(got, want) {
		t.Fatalf("co_changes %v, want %v", got, want)
	}
}
