package lang

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// structureChecker extracts versions of files with ExtractStructure, each
// from the tree of the version before and through one chunk cache, and
// fails when the facts differ from Structure of a fresh Extract.
type structureChecker struct {
	t     testing.TB
	x     Extractor
	fresh Extractor
	cache *ChunkCache
	bases map[string]*Tree
	bytes int // of the versions checked
}

func newStructureChecker(t testing.TB, language string) *structureChecker {
	x, err := New(language)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := New(language)
	if err != nil {
		t.Fatal(err)
	}
	c := &structureChecker{t: t, x: x, fresh: fresh, cache: NewChunkCache(8 << 20), bases: map[string]*Tree{}}
	t.Cleanup(func() {
		for _, b := range c.bases {
			b.Close()
		}
		x.Close()
		fresh.Close()
	})
	return c
}

// check extracts a version of path and compares; what names the version
// in a failure.
func (c *structureChecker) check(path, src, what string) {
	c.t.Helper()
	want, wantErr := c.fresh.Extract(path, []byte(src))
	c.bytes += len(src)
	got, kept, err := ExtractStructure(c.x, path, []byte(src), c.bases[path], c.cache)
	if (err != nil) != (wantErr != nil) {
		c.t.Fatalf("%s: error %v, a fresh extraction's %v", what, err, wantErr)
	}
	if kept != nil {
		c.bases[path].Close()
		c.bases[path] = kept
	}
	if err != nil {
		return
	}
	Structure(want)
	if !reflect.DeepEqual(got, want) {
		c.t.Fatalf("%s: the chunked facts differ from a fresh extraction's:\n got %s\nwant %s", what, dumpFacts(got), dumpFacts(want))
	}
}

// dumpFacts renders facts for a failure message.
func dumpFacts(f *FileFacts) string {
	var b strings.Builder
	for _, l := range symbolLines(f) {
		b.WriteString("\n  " + l)
	}
	for _, d := range f.Docstrings {
		b.WriteString("\n  doc " + strings.Join([]string{itoa(d.Symbol), itoa(d.Line), d.Content}, " "))
	}
	for _, im := range f.Imports {
		b.WriteString("\n  import " + itoa(im.Line) + " " + im.Module)
	}
	for _, r := range f.References {
		b.WriteString("\n  ref " + strings.Join([]string{itoa(r.Symbol), r.Kind, r.Name, itoa(r.Line)}, " "))
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// blobReader reads blobs through a running `git cat-file --batch`.
type blobReader struct {
	in  io.Writer
	out *bufio.Reader
}

func newBlobReader(in io.Writer, out io.Reader) *blobReader {
	return &blobReader{in: in, out: bufio.NewReader(out)}
}

func (b *blobReader) read(id string) ([]byte, error) {
	if _, err := io.WriteString(b.in, id+"\n"); err != nil {
		return nil, err
	}
	head, err := b.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return nil, fmt.Errorf("cat-file: %q", head)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size+1) // and its newline
	if _, err := io.ReadFull(b.out, buf); err != nil {
		return nil, err
	}
	return buf[:size], nil
}

// Versions of a Python module that move, copy, change and comment its
// statements give a whole extraction's structural facts, and reuse the
// statements they repeat.
func TestExtractStructureOfPythonVersions(t *testing.T) {
	const head = `"""The module's docstring."""

import os
from .util import helper as h

`
	const f = `def f(a: Path) -> Result:
    """F does a thing."""
    return helper(a)
`
	const g = `@decorate
def g(self):
    x = os.path.join("a")
    return x
`
	const k = `class K(Base, Generic[T]):
    """A class."""

    limit: Limit = 3

    def m(self, b):
        def inner():
            return b.call()
        return inner()

    @property
    def p(self):
        return self.limit
`
	versions := []struct{ what, src string }{
		{"first", head + f + "\n\n" + g + "\n\n" + k},
		{"a line added to f", head + strings.Replace(f, "    return", "    a.touch()\n    return", 1) + "\n\n" + g + "\n\n" + k},
		{"the statements in another order", head + k + "\n\n" + g + "\n\n" + f},
		{"blank lines between them", head + "\n\n\n" + k + "\n\n\n\n" + g + f},
		{"a comment above g", head + f + "\n# g does things\n# in two lines\n" + g + k},
		{"the comment changed", head + f + "\n# g does other things\n# in two lines\n" + g + k},
		{"trailing comments", head + strings.Replace(f, "(a)\n", "(a)  # why\n", 1) + "x = 1  # one\n" + g + k},
		{"two statements on a line", head + "a = 1; b = 2\n" + f + "c = 3; import sys\n" + g + k},
		{"f twice", head + f + "\n" + g + "\n" + f + "\n" + k},
		{"no module docstring", strings.TrimPrefix(head, `"""The module's docstring."""`) + f + g + k},
		{"a string second, docstring-like", "import os\n\"\"\"Not the docstring.\"\"\"\n" + f + g},
		{"the docstring back", head + f + g + k},
		{"a syntax error", head + f + "def broken(:\n" + g + k},
		{"fixed", head + f + "def fixed():\n    pass\n" + g + k},
		{"a decorated class", head + "@dataclass\n" + k + f},
		{"an if at the top level", head + "if os.name == 'nt':\n    def w(): pass\nelse:\n    def w(): return 1\n" + f + g},
		{"only comments", "# nothing here\n# still nothing\n"},
		{"one statement", f},
		{"empty", ""},
		{"with a BOM", "\uFEFF" + head + f + g + k},
		{"indented top-level comment", head + f + "    # stray\n" + g + k},
		{"continuation lines", head + "x = (1 +\n     2)\ny = \\\n    3\n" + f + g},
		{"CRLF line ends", strings.ReplaceAll(head+f+g+k, "\n", "\r\n")},
		{"CRLF, one statement changed", strings.ReplaceAll(head+g+f+k, "\n", "\r\n")},
		{"tabs for indentation", strings.ReplaceAll(head+f+g+k, "    ", "\t")},
		{"a form feed between statements", head + f + "\f\n" + g + "\f\n" + k},
	}
	c := newStructureChecker(t, Python)
	for _, v := range versions {
		c.check("m.py", v.src, v.what)
	}
	if hits, misses := c.cache.stats(); hits < 20 || misses == 0 {
		t.Errorf("the cache served %d statements and extracted %d: chunking is not at work", hits, misses)
	}
}

// checkParsed extracts src (what names it) from the version before,
// compares its facts with a whole extraction's, and fails unless what
// was parsed is parsed (line ends aside: blanked rows are line ends).
func checkParsed(t *testing.T, before, src, what, parsed string) {
	t.Helper()
	ch := newStructureChecker(t, Python)
	ch.check("m.py", before, "the version before")
	e := ch.x.(incremental).engine()
	n := e.parsed
	ch.check("m.py", src, what)
	if got, want := e.parsed-n, len(parsed)-strings.Count(parsed, "\n"); got != want {
		t.Errorf("%d bytes parsed, want %d (%q)", got, want, parsed)
	}
}

// A version parsed from the last one's chunks parses only the lines
// between the chunks left whole, and the chunks next to them that cannot
// stand apart from them.
func TestExtractStructureParsesOnlyTheGaps(t *testing.T) {
	const doc = "\"\"\"Docstring.\"\"\"\n"
	const head = doc + "\nimport os\n"
	fn := func(name, body string) string { return "def " + name + "(a):\n    " + body + "\n    return a\n" }
	a, b, c, d := fn("a", "a += 1"), fn("b", "a += 2"), fn("c", "a += 3"), fn("d", "a += 4")
	b2, d2, e := fn("b", "a += 20"), fn("d", "a += 40"), fn("e", "a += 5")
	file := func(parts ...string) string { return strings.Join(parts, "\n\n") }
	ifx, try := "if os.name:\n    x = 1\n", "try:\n    x = 1\n"
	for _, tc := range []struct {
		what, src string
		parsed    string // what is parsed of src
		from      string // the version before ("": head, a, b, c, d)
	}{
		// The first statement is always parsed: it may be the module's
		// docstring.
		{"nothing changed", file(head, a, b, c, d), doc, ""},
		{"one function changed", file(head, a, b2, c, d), doc + b2, ""},
		{"two apart", file(head, a, b2, c, d2), doc + b2 + d2, ""},
		{"a function added", file(head, a, b, e, c, d), doc + e, ""},
		{"a function removed", file(head, a, c, d), doc, ""},
		{"the first statement changed", file("\"\"\"Other.\"\"\"\n\nimport os\n", a, b, c, d), "\"\"\"Other.\"\"\"\n", ""},
		{"a comment ends a gap: the function below is parsed with it", file(head, a, b2, "# about c\n"+c, d), doc + b2 + "\n\n# about c\n" + c, ""},
		// An indented comment below b ends up in b's body: b is parsed with
		// it, and c with them, the comment being last.
		{"an indented line begins a gap", file(head, a, b+"    # stray\n", c, d), doc + b + "    # stray\n\n\n" + c, ""},
		{"a backslash ends a gap", file(head, a, "x = 1 \\\n"+b, c, d), doc + "x = 1 \\\n" + b + file(head, a, "x = 1 \\\n"+b, c, d), ""},
		// The comment at the end of x's line would join b2 into x's chunk,
		// over a, were a not between them.
		{"a trailing comment above a kept chunk", file(head, "x = 1  # noqa\n", a, b2, c, d), doc + "x = 1  # noqa\n" + b2, file(head, "x = 1\n", a, b, c, d)},
		// tree-sitter parses "else:" alone as an annotated name: the if
		// is parsed with it.
		{"an else clause added", file(head, a, ifx+"else:\n    x = 2\n", c, d), doc + ifx + "else:\n    x = 2\n", file(head, a, ifx, c, d)},
		{"an except clause added", file(head, a, try+"except OSError:\n    pass\n", c, d), doc + try + "except OSError:\n    pass\n", file(head, a, try+"finally:\n    pass\n", c, d)},
		{"a name that starts like a clause", file(head, a, ifx+"elsewhere = 2\n", c, d), doc + "elsewhere = 2\n", file(head, a, ifx, c, d)},
		{"a syntax error: the whole file again", file(head, a, "def broken(:\n", b, c, d), doc + "def broken(:\n" + file(head, a, "def broken(:\n", b, c, d), ""},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if tc.from == "" {
				tc.from = file(head, a, b, c, d)
			}
			checkParsed(t, tc.from, tc.src, tc.what, tc.parsed)
		})
	}
}

// A class that changed is parsed with its header, its first member (its
// docstring) and the members that changed: the others are blanked out.
func TestExtractStructureParsesChangedMembers(t *testing.T) {
	const doc = "\"\"\"Doc.\"\"\"\n"
	const head = doc + "\nimport os\n\n\n"
	const header = "class K(Base):\n"
	const first = "    \"\"\"K's docstring.\"\"\"\n"
	const limit = "\n    limit = 3\n"
	meth := func(name, body string) string { return "\n    def " + name + "(self):\n        " + body + "\n" }
	m, n, p := meth("m", "return 1"), meth("n", "return 2"), "\n    @property"+meth("p", "return self.limit")
	n2, q := meth("n", "return 20"), meth("q", "return 4")
	const after = "\n\ndef after():\n    pass\n"
	class := func(members ...string) string { return header + first + strings.Join(members, "") }
	dedent := func(s string) string { return strings.ReplaceAll(s, "    ", "  ") }
	for _, tc := range []struct {
		what, src, parsed string
	}{
		{"a method changed", head + class(limit, m, n2, p) + after, doc + header + first + n2},
		{"a method added last", head + class(limit, m, n, p, q) + after, doc + header + first + q},
		{"the last method removed", head + class(limit, m, n) + after, doc + header + first},
		{"a method removed", head + class(limit, m, p) + after, doc + header + first},
		{"the docstring changed", head + header + "    \"\"\"Other.\"\"\"\n" + limit + m + n + p + after, doc + header + "    \"\"\"Other.\"\"\"\n"},
		{"a comment below a method", head + class(limit, m, n+"    # about p\n", p) + after, doc + header + first + "    # about p\n" + p},
		// Python's tokenizer skips comment lines: the code below them goes
		// on with n's body, so n is parsed with them.
		{"n's body going on below comments", head + class(limit, m, n+"    # return 3\n\n        x = 2\n", p) + after, doc + header + first + n + "    # return 3\n\n        x = 2\n"},
		// The comment goes to n's body, so n is parsed, and p, below a
		// comment.
		{"a comment deeper below a method", head + class(limit, m, n+"        # more of n\n", p) + after, doc + header + first + n + "        # more of n\n" + p},
		// The members kept are no class's: parsed again from scratch.
		{"the class a function", head + "def K(Base):\n" + first + limit + m + n + p + after, doc + "def K(Base):\n" + first + head + "def K(Base):\n" + first + limit + m + n + p + after},
		// A syntax error in the whole file; none with the members blanked.
		{"the first member at another indentation", head + header + dedent(first) + limit + m + n + p + after, doc + header + dedent(first) + head + header + dedent(first) + limit + m + n + p + after},
		{"members at another indentation", head + class(dedent(limit), dedent(m), dedent(n), dedent(p)) + after, doc + header + first + dedent(limit+m+n+p)},
	} {
		t.Run(tc.what, func(t *testing.T) {
			checkParsed(t, head+class(limit, m, n, p)+after, tc.src, tc.what, tc.parsed)
		})
	}
}

// Random line edits of a real-sized module: every version's facts are a
// whole extraction's.
func TestExtractStructureRandomEdits(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "store.py"))
	if err != nil {
		t.Fatal(err)
	}
	// Lines inserted: at the top level, in a class's body, deeper, and
	// the shapes the rules of regions.go are about.
	inserts := []string{
		"x = 1\n", "\n", "# note\n", "    y = 2\n", "    # member note\n", "        # deeper\n",
		"    def extra(self):\n        return 0\n", "else:\n    pass\n", "    z = \\\n", "class Extra:\n    pass\n",
	}
	for _, seed := range []uint64{11, 12, 13} {
		lines := strings.SplitAfter(string(b), "\n")
		orig := lines
		r := rand.New(rand.NewPCG(seed, 3))
		c := newStructureChecker(t, Python)
		for i := range 300 {
			cur := slices.Clone(lines)
			k, m := r.IntN(len(cur)+1), r.IntN(len(cur)+1)
			switch r.IntN(5) {
			case 0: // delete a line: often a syntax error
				if k < len(cur) {
					cur = slices.Delete(cur, k, k+1)
				}
			case 1: // back to the first version
				cur = slices.Clone(orig)
			case 2: // change a word
				if k < len(cur) {
					cur[k] = strings.Replace(cur[k], "e", "ee", 1)
				}
			case 3: // move a block of lines
				lo, hi := min(k, m), max(k, m)
				if hi-lo > 20 {
					hi = lo + 20
				}
				block := slices.Clone(cur[lo:hi])
				cur = slices.Delete(cur, lo, hi)
				at := r.IntN(len(cur) + 1)
				cur = slices.Insert(cur, at, block...)
			default:
				cur = slices.Insert(cur, k, inserts[r.IntN(len(inserts))])
			}
			lines = cur
			c.check("store.py", strings.Join(lines, ""), fmt.Sprintf("seed %d, edit %d", seed, i))
		}
		if hits, kept := c.cache.hits.Load(), c.cache.kept.Load(); hits+kept < 300 {
			t.Errorf("seed %d: %d chunks from the cache and %d kept over 300 versions", seed, hits, kept)
		}
	}
}

// Other languages are extracted whole: their facts are Structure of
// Extract's.
func TestExtractStructureOfOtherLanguages(t *testing.T) {
	for _, name := range []string{"store.go", "widget.ts", "app.jsx"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		c := newStructureChecker(t, LanguageOf(name))
		c.check(name, string(b), name)
		c.check(name, string(b)+"\n", name+" again")
		if hits, misses := c.cache.stats(); hits+misses != 0 {
			t.Errorf("%s went through the chunk cache", name)
		}
	}
}

// CRA_CHUNK_REPO (a clone's path) checks every version of every Python
// file of its history, in commit order: a proof on real code, run by hand
// (`CRA_CHUNK_REPO=~/clones/click go test -run RealHistory ./ingest/lang/`).
func TestExtractStructureOverARealHistory(t *testing.T) {
	repo := os.Getenv("CRA_CHUNK_REPO")
	if repo == "" {
		t.Skip("set CRA_CHUNK_REPO to a clone")
	}
	out, err := exec.Command("git", "-C", repo, "log", "--all", "--reverse", "--topo-order", "--no-renames",
		"--format=C %H", "--raw", "--no-abbrev", "--diff-filter=AM", "--", "*.py").Output()
	if err != nil {
		t.Fatal(err)
	}
	c := newStructureChecker(t, Python)
	cat := exec.Command("git", "-C", repo, "cat-file", "--batch")
	in, _ := cat.StdinPipe()
	rd, _ := cat.StdoutPipe()
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cat.Wait() }()
	br := newBlobReader(in, rd)
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, ":") {
			continue
		}
		meta, path, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		src, err := br.read(f[3])
		if err != nil {
			t.Fatal(err)
		}
		c.check(path, string(src), path+" "+f[3])
		n++
	}
	hits, misses := c.cache.stats()
	t.Logf("%d versions (%d bytes): %d chunks kept, %d statements from the cache, %d extracted; %d bytes parsed",
		n, c.bytes, c.cache.kept.Load(), hits, misses, c.x.(incremental).engine().parsed)
}
