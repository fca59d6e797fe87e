package gittest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Project is a generated repository with the shape of a real project (a
// Python command-line library with a Go companion module, modelled on
// pallets/click), for tests that run the whole pipeline on real-world
// sizes: source files up to ~400 KB, a ~100 KB test file, a long history
// of small changes named in their messages, pull requests merged with
// --no-ff (2 to 4 commits each, some while main moved on), renames (some
// with edits), a binary file, tags, an unmerged branch, and the commits a
// real history has that the commit filter rejects (bots, wip, docs only,
// releases, reformatting). It is written in one go by `git fast-import`.
type Project struct {
	Commits int    // commits in all, merges included; default 1,500
	Seed    uint64 // changes the history, not its shape
}

// ProjectShape is what Build made.
type ProjectShape struct {
	Commits       int // all commits, merges included
	Merges        int // pull requests merged with a merge commit
	BranchCommits int // commits on the merged branches
	Renames       int // commits renaming a file
	Files         int // files in the final tree
	TreeBytes     int64
	Largest       string // the largest source file and its size
	LargestBytes  int64
	TestFile      string // the largest test file and its size
	TestFileBytes int64
	Took          time.Duration
}

func (s ProjectShape) String() string {
	return fmt.Sprintf("%d commits (%d merges of %d branch commits, %d renames), %d files, %.1f MB; %s %d KB, %s %d KB; built in %v",
		s.Commits, s.Merges, s.BranchCommits, s.Renames, s.Files, float64(s.TreeBytes)/(1<<20),
		s.Largest, s.LargestBytes>>10, s.TestFile, s.TestFileBytes>>10, s.Took.Round(time.Millisecond))
}

// Build writes the repository into dir (a new work tree, main checked out).
func (p Project) Build(tb testing.TB, dir string) ProjectShape {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed")
	}
	start := time.Now()
	if p.Commits == 0 {
		p.Commits = 1500
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	run := func(stdin io.Reader, args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = stdin
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	git := func(args ...string) {
		if err := run(nil, args...); err != nil {
			tb.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	// The history is generated while fast-import reads it.
	pr, pw := io.Pipe()
	g := newProjectGen(p, bufio.NewWriterSize(pw, 1<<20))
	done := make(chan error, 1)
	go func() {
		g.write()
		err := g.w.Flush()
		pw.CloseWithError(err)
		done <- err
	}()
	err := run(pr, "fast-import", "--quiet", "--done")
	pr.CloseWithError(errors.New("fast-import ended")) // the writer stops if it has not
	if werr := <-done; err == nil {
		err = werr
	}
	if err != nil {
		tb.Fatal(err)
	}
	git("update-ref", "-d", "refs/heads/topic")
	git("checkout", "-q", "-f", "main")
	shape := g.shape
	for _, f := range g.files {
		if f.gone {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.path)))
		if err != nil {
			tb.Fatalf("%s: %v", f.path, err)
		}
		shape.Files++
		shape.TreeBytes += fi.Size()
		switch {
		case f.kind == kindPyTest && fi.Size() > shape.TestFileBytes:
			shape.TestFile, shape.TestFileBytes = f.path, fi.Size()
		case (f.kind == kindPy || f.kind == kindGo) && fi.Size() > shape.LargestBytes:
			shape.Largest, shape.LargestBytes = f.path, fi.Size()
		}
	}
	shape.Took = time.Since(start)
	return shape
}

const (
	kindPy = iota
	kindPyTest
	kindGo
	kindText
	kindBinary
)

type projFunc struct {
	name   string
	callee string // what it calls: "utils.strip_value", "parse_option", "store.Normalize"
	v      int    // its revision: each one changes a line or a few
	gone   bool
	text   string // rendered at revision textV: most of a file is unchanged
	textV  int
}

type projFile struct {
	path    string
	kind    int
	module  string   // Python: the dotted module; Go: the package name
	imports []string // Python: modules ("shapes.utils"); Go: import paths
	pad     int      // docstring lines per function: the file's bulk
	funcs   []projFunc
	tests   string // a test file: the module it tests ("core")
	text    int    // text and binary files: their revision
	gone    bool
	size    int // when last rendered
}

func (f *projFile) clone() *projFile {
	c := *f
	c.funcs = slices.Clone(f.funcs)
	return &c
}

// The Python package, its tests and the Go module: path, imports and the
// size each file starts at (KB). Every file imports the ones listed.
var projLayout = []struct {
	path    string
	kb      int
	imports []string
}{
	{"src/shapes/__init__.py", 2, nil},
	{"src/shapes/core.py", 380, []string{"utils", "types", "exceptions", "formatting", "parser", "globals"}},
	{"src/shapes/parser.py", 20, []string{"exceptions", "utils"}},
	{"src/shapes/types.py", 40, []string{"exceptions", "utils", "_compat"}},
	{"src/shapes/formatting.py", 12, []string{"_compat", "utils"}},
	{"src/shapes/termui.py", 30, []string{"_compat", "utils", "exceptions"}},
	{"src/shapes/shell_completion.py", 20, []string{"core", "parser", "utils"}},
	{"src/shapes/decorators.py", 20, []string{"core", "globals", "utils"}},
	{"src/shapes/utils.py", 20, []string{"_compat", "globals"}},
	{"src/shapes/testing.py", 17, []string{"core", "formatting", "_compat"}},
	{"src/shapes/_compat.py", 20, nil},
	{"src/shapes/exceptions.py", 10, []string{"utils", "globals"}},
	{"src/shapes/globals.py", 3, nil},
	{"src/shapes/_textwrap.py", 6, nil},
	{"src/shapes/_termui_impl.py", 25, []string{"_compat", "exceptions", "utils"}},
	{"src/shapes/contrib/__init__.py", 1, nil},
	{"src/shapes/contrib/progress.py", 12, []string{"termui", "utils"}},
	{"src/shapes/contrib/colors.py", 8, []string{"termui"}},
	{"src/shapes/contrib/paths.py", 9, []string{"types", "utils"}},
	{"src/shapes/contrib/prompts.py", 14, []string{"termui", "types"}},
	{"src/shapes/contrib/env.py", 6, []string{"globals"}},
	{"tests/test_core.py", 100, []string{"core"}},
	{"tests/test_parser.py", 30, []string{"parser"}},
	{"tests/test_types.py", 24, []string{"types"}},
	{"tests/test_utils.py", 15, []string{"utils"}},
	{"tests/test_termui.py", 18, []string{"termui"}},
	{"tests/test_formatting.py", 12, []string{"formatting"}},
	{"tests/conftest.py", 3, nil},
	{"goext/cli/app.go", 40, []string{"store", "text"}},
	{"goext/cli/flags.go", 22, []string{"store"}},
	{"goext/cli/help.go", 16, []string{"text"}},
	{"goext/store/store.go", 30, nil},
	{"goext/store/cache.go", 12, nil},
	{"goext/store/index.go", 18, []string{"text"}},
	{"goext/internal/text/wrap.go", 10, nil},
	{"goext/internal/text/width.go", 6, nil},
	{"goext/cmd/shapes/main.go", 4, []string{"cli"}},
}

var projTexts = []string{"README.md", "CHANGES.rst", "docs/index.rst", "docs/api.rst", "requirements/dev.txt",
	"pyproject.toml", "goext/go.mod", ".gitignore", projCI}

const (
	projGoModule = "example.com/shapes/goext"
	projLogo     = "docs/_static/logo.png"
	projCI       = ".github/workflows/tests.yaml"
)

var (
	projVerbs = []string{"parse", "format", "resolve", "load", "save", "render", "validate", "convert", "split",
		"join", "merge", "wrap", "open", "close", "read", "write", "check", "build", "make", "get", "set", "find",
		"match", "expand", "collect", "strip", "echo", "prompt", "invoke", "complete"}
	projNouns = []string{"option", "argument", "command", "context", "param", "value", "path", "file", "group",
		"help", "usage", "choice", "range", "default", "env", "token", "flag", "name", "type", "error", "section",
		"line", "width", "color", "style", "callback", "result", "prefix", "suffix", "record"}
	projAuthors = []string{"Armin Ronacher <armin@example.com>", "David Lord <david@example.com>",
		"Grace Hopper <grace@example.com>", "Kenji Sato <kenji@example.com>", "Amara Okafor <amara@example.com>",
		"Lena Fischer <lena@example.com>", "Diego Ramos <diego@example.com>", "Priya Nair <priya@example.com>"}
	projFixes = []string{
		"Fix {fn} when the {noun} is missing",
		"Handle empty {noun} values in {fn}",
		"Make {fn} respect the terminal width",
		"Raise a clear error from {fn} on a bad {noun}",
		"Refactor {fn} to share the normalisation helper",
		"Speed up {fn} for long inputs",
		"Support environment defaults in {fn}",
		"Keep the {noun} order stable in {fn}",
		"Stop {fn} from swallowing the {noun} error",
		"Let {fn} accept a callable {noun}",
	}
)

type projectGen struct {
	p      Project
	rng    *rand.Rand
	w      *bufio.Writer
	files  []*projFile
	byPath map[string]*projFile
	mark   int
	when   int64
	pr     int
	shape  ProjectShape
	names  map[string]int // function names used per file (Go: per package)
	// what comes next on main: pull request, rename, release
	nextPR, nextRename, nextRelease int
	lastSubject                     string
}

func newProjectGen(p Project, w *bufio.Writer) *projectGen {
	return &projectGen{p: p, rng: rand.New(rand.NewPCG(p.Seed, 23)), w: w, byPath: map[string]*projFile{},
		when: time.Date(2014, 4, 27, 9, 0, 0, 0, time.UTC).Unix(), pr: 100, names: map[string]int{}}
}

// layout makes the first revision of every file.
func (g *projectGen) layout() {
	for _, l := range projLayout {
		f := &projFile{path: l.path}
		switch {
		case strings.HasSuffix(l.path, ".go"):
			f.kind, f.module = kindGo, path.Base(path.Dir(l.path))
			for _, imp := range l.imports {
				for _, o := range projLayout {
					if strings.HasSuffix(o.path, ".go") && path.Base(path.Dir(o.path)) == imp {
						f.imports = append(f.imports, projGoModule+"/"+strings.TrimPrefix(path.Dir(o.path), "goext/"))
						break
					}
				}
			}
		case strings.HasPrefix(l.path, "tests/"):
			f.kind = kindPyTest
			f.module = strings.TrimSuffix(path.Base(l.path), ".py")
			if len(l.imports) > 0 {
				f.tests = l.imports[0]
				f.imports = []string{"shapes." + l.imports[0]}
			}
		default:
			f.kind = kindPy
			f.module = strings.TrimSuffix(strings.ReplaceAll(strings.TrimPrefix(l.path, "src/"), "/", "."), ".py")
			f.module = strings.TrimSuffix(f.module, ".__init__")
			for _, imp := range l.imports {
				f.imports = append(f.imports, "shapes."+imp)
			}
		}
		f.pad = 2 + l.kb/60
		g.files = append(g.files, f)
		g.byPath[f.path] = f
	}
	// Functions, then callees (a module's functions must exist to be called).
	for _, l := range projLayout {
		f := g.byPath[l.path]
		if f.kind == kindPyTest {
			continue
		}
		for size := len(header(f)); size < l.kb<<10; {
			f.funcs = append(f.funcs, projFunc{name: g.newName(f)})
			size += len(renderFunc(f, f.funcs[len(f.funcs)-1]))
		}
	}
	for _, f := range g.files {
		if f.kind == kindPyTest {
			continue
		}
		for i := range f.funcs {
			f.funcs[i].callee = g.calleeFor(f, i)
		}
	}
	for _, l := range projLayout {
		f := g.byPath[l.path]
		if f.kind != kindPyTest {
			continue
		}
		target := g.module(f.tests)
		for i, size := 0, len(header(f)); size < l.kb<<10; i++ {
			name := fmt.Sprintf("fixture_%d", i)
			if target != nil {
				name = target.funcs[i%len(target.funcs)].name
				if i >= len(target.funcs) {
					name += fmt.Sprintf("_case_%d", i/len(target.funcs))
				}
			}
			f.funcs = append(f.funcs, projFunc{name: "test_" + name})
			size += len(renderFunc(f, f.funcs[len(f.funcs)-1]))
		}
	}
	for _, p := range projTexts {
		f := &projFile{path: p, kind: kindText}
		g.files = append(g.files, f)
		g.byPath[p] = f
	}
	logo := &projFile{path: projLogo, kind: kindBinary}
	g.files = append(g.files, logo)
	g.byPath[projLogo] = logo
}

// newName is a function name not yet used in f: verb_noun, snake case
// in Python, camel case in Go.
func (g *projectGen) newName(f *projFile) string {
	v, n := projVerbs[g.rng.IntN(len(projVerbs))], projNouns[g.rng.IntN(len(projNouns))]
	name, sep, scope := v+"_"+n, "_", f.path
	if f.kind == kindGo {
		name, sep, scope = strings.ToUpper(v[:1])+v[1:]+strings.ToUpper(n[:1])+n[1:], "", path.Dir(f.path)
	}
	key := scope + "\x00" + name
	g.names[key]++
	if k := g.names[key]; k > 1 {
		name = fmt.Sprintf("%s%s%d", name, sep, k)
	}
	return name
}

// calleeFor is what function i of f calls: a function of a module it
// imports, or every fourth time an earlier function of its own.
func (g *projectGen) calleeFor(f *projFile, i int) string {
	if (i%4 == 3 || len(f.imports) == 0) && i > 0 {
		return f.funcs[g.rng.IntN(i)].name
	}
	if len(f.imports) == 0 {
		return ""
	}
	imp := f.imports[g.rng.IntN(len(f.imports))]
	for _, o := range g.files {
		if o.gone || len(o.funcs) == 0 {
			continue
		}
		switch {
		case f.kind == kindPy && o.kind == kindPy && o.module == imp:
			return strings.TrimPrefix(imp, "shapes.") + "." + o.funcs[g.rng.IntN(len(o.funcs))].name
		case f.kind == kindGo && o.kind == kindGo && strings.HasSuffix(imp, "/"+o.module) && path.Dir(o.path) != path.Dir(f.path):
			return o.module + "." + o.funcs[g.rng.IntN(len(o.funcs))].name
		}
	}
	return ""
}

func (g *projectGen) module(name string) *projFile {
	for _, f := range g.files {
		if f.kind == kindPy && f.module == "shapes."+name {
			return f
		}
	}
	return nil
}

// render is f's content now.
func (g *projectGen) render(f *projFile) string {
	var b strings.Builder
	switch f.kind {
	case kindPy, kindPyTest, kindGo:
		b.Grow(f.size)
		b.WriteString(header(f))
		for i := range f.funcs {
			fn := &f.funcs[i]
			if fn.gone {
				continue
			}
			if fn.text == "" || fn.textV != fn.v {
				fn.text, fn.textV = renderFunc(f, *fn), fn.v
			}
			b.WriteString(fn.text)
		}
		f.size = b.Len()
	case kindText:
		renderText(&b, f)
	case kindBinary:
		r := rand.New(rand.NewPCG(uint64(f.text), 7))
		b.WriteString("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
		for range 20_000 + 500*f.text {
			b.WriteByte(byte(r.IntN(256)))
		}
	}
	return b.String()
}

// padLines are the docstring's bulk: prose a real API reference has.
var padLines = []string{
	"This is part of the public API and is documented in the reference.",
	"The value is converted before any callback sees it, so callbacks",
	"always receive the type declared on the parameter, never a string.",
	"When the environment provides a default it is used as a fallback.",
	"Changed in version 8.0: the behaviour no longer depends on the locale.",
	"See the section on parameters in the documentation for examples.",
	"Errors are reported through the usage error of the current context.",
}

// header is a source file's text before its functions: docstring or
// package clause, and imports (in Go only those its functions use).
func header(f *projFile) string {
	var b strings.Builder
	switch f.kind {
	case kindPy:
		fmt.Fprintf(&b, "\"\"\"%s: part of the shapes command line toolkit.\n\nThis module is generated for tests but reads like the real thing.\n\"\"\"\n\nfrom __future__ import annotations\n\nimport os\nimport typing as t\n", f.module)
		if len(f.imports) > 0 {
			b.WriteString("\n")
			for _, imp := range f.imports {
				fmt.Fprintf(&b, "from shapes import %s\n", strings.TrimPrefix(imp, "shapes."))
			}
		}
		b.WriteString("\nDEFAULT_WIDTH = 80\n")
	case kindPyTest:
		b.WriteString("import pytest\n")
		if len(f.imports) > 0 {
			b.WriteString("\n")
		}
		for _, imp := range f.imports {
			fmt.Fprintf(&b, "from shapes import %s\n", strings.TrimPrefix(imp, "shapes."))
		}
	case kindGo:
		fmt.Fprintf(&b, "// Package %s is part of the shapes Go companion module.\npackage %s\n\nimport (\n\t\"errors\"\n\t\"strings\"\n", f.module, f.module)
		var used []string
		for _, imp := range f.imports {
			if slices.ContainsFunc(f.funcs, func(fn projFunc) bool {
				return !fn.gone && strings.HasPrefix(fn.callee, path.Base(imp)+".")
			}) {
				used = append(used, imp)
			}
		}
		slices.Sort(used)
		if len(used) > 0 {
			b.WriteString("\n")
		}
		for _, imp := range used {
			fmt.Fprintf(&b, "\t%q\n", imp)
		}
		b.WriteString(")\n")
	}
	return b.String()
}

// renderFunc is one function of f at its revision: each revision changes
// a line, every third adds or drops a block of two or three.
func renderFunc(f *projFile, fn projFunc) string {
	var b strings.Builder
	switch f.kind {
	case kindPy:
		words := strings.SplitN(fn.name, "_", 2)
		noun := words[len(words)-1]
		fmt.Fprintf(&b, "\n\ndef %s(value: t.Any, default: t.Any = None) -> t.Any:\n", fn.name)
		fmt.Fprintf(&b, "    \"\"\"%s the %s for the %s module.\n\n", strings.ToUpper(words[0][:1])+words[0][1:], noun, f.module)
		for i := range f.pad {
			fmt.Fprintf(&b, "    %s\n", padLines[(i+len(fn.name))%len(padLines)])
		}
		fmt.Fprintf(&b, "\n    :param value: the %s to work on.\n    :param default: returned when value is None.\n    \"\"\"\n", noun)
		fmt.Fprintf(&b, "    if value is None:\n        return default\n    if isinstance(value, bytes):\n        raise TypeError(\"%s expects text, not bytes\")\n", fn.name)
		if fn.callee != "" {
			fmt.Fprintf(&b, "    result = %s(value)\n", fn.callee)
		} else {
			b.WriteString("    result = value\n")
		}
		fmt.Fprintf(&b, "    limit = DEFAULT_WIDTH + %d\n", fn.v)
		if fn.v%3 == 2 {
			fmt.Fprintf(&b, "    if os.environ.get(\"SHAPES_%s\"):\n        limit = int(os.environ[\"SHAPES_%s\"])\n", strings.ToUpper(noun), strings.ToUpper(noun))
		}
		b.WriteString("    if isinstance(result, str) and len(result) > limit:\n        result = result[:limit].rstrip()\n    return result\n")
	case kindPyTest:
		target := strings.TrimPrefix(fn.name, "test_")
		if i := strings.Index(target, "_case_"); i >= 0 {
			target = target[:i]
		}
		call := f.tests + "." + target
		if f.tests == "" {
			call = "str"
		}
		fmt.Fprintf(&b, "\n\ndef %s():\n    \"\"\"%s keeps short values and falls back to the default.\"\"\"\n", fn.name, target)
		fmt.Fprintf(&b, "    assert %s(\"abc\") == \"abc\"\n    assert %s(None, %d) == %d\n", call, call, fn.v, fn.v)
		if fn.v%2 == 1 {
			fmt.Fprintf(&b, "    with pytest.raises(TypeError):\n        %s(b\"abc\")\n", call)
		}
		if fn.v%5 == 4 {
			fmt.Fprintf(&b, "    assert %s(\"x\" * 200) is not None\n", call)
		}
	case kindGo:
		fmt.Fprintf(&b, "\n// %s works on one value of the %s package.\n", fn.name, f.module)
		for i := range f.pad {
			fmt.Fprintf(&b, "// %s\n", padLines[(i+len(fn.name))%len(padLines)])
		}
		fmt.Fprintf(&b, "func %s(value string) (string, error) {\n\tif value == \"\" {\n\t\treturn \"\", errors.New(%q)\n\t}\n", fn.name, strings.ToLower(fn.name)+": empty value")
		if fn.callee != "" {
			fmt.Fprintf(&b, "\tresult, err := %s(value)\n\tif err != nil {\n\t\treturn \"\", err\n\t}\n", fn.callee)
		} else {
			b.WriteString("\tresult := value\n")
		}
		fmt.Fprintf(&b, "\tlimit := 80 + %d\n", fn.v)
		if fn.v%3 == 2 {
			b.WriteString("\tif strings.HasPrefix(result, \"-\") {\n\t\tlimit--\n\t}\n")
		}
		b.WriteString("\tif len(result) > limit {\n\t\tresult = result[:limit]\n\t}\n\treturn strings.TrimSpace(result), nil\n}\n")
	}
	return b.String()
}

func renderText(b *strings.Builder, f *projFile) {
	switch f.path {
	case "goext/go.mod":
		fmt.Fprintf(b, "module %s\n\ngo 1.22\n", projGoModule)
	case "requirements/dev.txt":
		fmt.Fprintf(b, "pytest==7.%d.0\npre-commit==3.%d.1\nsphinx==7.2.%d\n", f.text, f.text%7, f.text%5)
	case "CHANGES.rst":
		b.WriteString("Changes\n=======\n")
		for v := f.text; v >= 0; v-- {
			fmt.Fprintf(b, "\nVersion 8.%d.%d\n-------------\n\n-   Fix the handling of defaults. :issue:`%d`\n-   Document the new options. :pr:`%d`\n", v/10, v%10, 1000+v, 2000+v)
		}
	default:
		fmt.Fprintf(b, "%s\n\nRevision %d of this file.\n", f.path, f.text)
		for i := range 20 + f.text {
			fmt.Fprintf(b, "%s\n", padLines[i%len(padLines)])
		}
	}
}
