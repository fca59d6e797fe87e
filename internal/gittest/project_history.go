package gittest

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// write sends the whole history to fast-import (a write error shows at
// the writer's Flush).
func (g *projectGen) write() {
	g.layout()
	g.commit("refs/heads/main", projAuthors[0], "Import the shapes toolkit", "", "", slices.Clone(g.files), nil)
	g.tag("refs/tags/0.1")
	main := g.mark
	g.nextPR, g.nextRename, g.nextRelease = 8, 40, 30
	for g.shape.Commits < g.p.Commits-2 {
		n := g.shape.Commits
		switch {
		case n >= g.nextPR && g.p.Commits-n > 8:
			main = g.pullRequest(main)
			g.nextPR = g.shape.Commits + 6 + g.rng.IntN(16)
		case n >= g.nextRename:
			g.rename()
			main = g.mark
			g.nextRename = n + 120 + g.rng.IntN(120)
		case n >= g.nextRelease:
			g.release()
			main = g.mark
			g.nextRelease = n + 40 + g.rng.IntN(40)
		default:
			g.ordinary("refs/heads/main", g.files, "", nil)
			main = g.mark
		}
	}
	// A branch still open: work in progress never merged.
	topic := g.cloneFiles()
	g.ordinary("refs/heads/feature/lazy-loading", topic, fmt.Sprintf(":%d", main), nil)
	g.ordinary("refs/heads/feature/lazy-loading", topic, "", nil)
	fmt.Fprintf(g.w, "done\n")
}

func (g *projectGen) cloneFiles() []*projFile {
	out := make([]*projFile, len(g.files))
	for i, f := range g.files {
		out[i] = f.clone()
	}
	return out
}

func (g *projectGen) tag(ref string) {
	fmt.Fprintf(g.w, "reset %s\nfrom :%d\n\n", ref, g.mark)
}

// commit writes one commit: changed files with their content now,
// renames (old path → new) before them.
func (g *projectGen) commit(ref, author, msg, from, merge string, changed []*projFile, renames [][2]string) {
	g.mark++
	g.when += int64(1800 + g.rng.IntN(40*3600))
	fmt.Fprintf(g.w, "commit %s\nmark :%d\nauthor %s %d +0000\ncommitter %s %d +0000\ndata %d\n%s\n",
		ref, g.mark, author, g.when, projAuthors[1], g.when+int64(g.rng.IntN(600)), len(msg), msg)
	if from != "" {
		fmt.Fprintf(g.w, "from %s\n", from)
	}
	if merge != "" {
		fmt.Fprintf(g.w, "merge %s\n", merge)
	}
	for _, r := range renames {
		fmt.Fprintf(g.w, "R %s %s\n", r[0], r[1])
	}
	for _, f := range changed {
		if f.gone {
			fmt.Fprintf(g.w, "D %s\n", f.path)
			continue
		}
		body := g.render(f)
		fmt.Fprintf(g.w, "M 100644 inline %s\ndata %d\n%s\n", f.path, len(body), body)
	}
	g.shape.Commits++
}

func (g *projectGen) author() string { return projAuthors[g.rng.IntN(len(projAuthors))] }

// live returns the files of kind in files that are not deleted.
func live(files []*projFile, kinds ...int) []*projFile {
	var out []*projFile
	for _, f := range files {
		if !f.gone && slices.Contains(kinds, f.kind) && len(f.funcs) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// pick chooses a source file, none of avoid: larger files more often, up
// to a point, except the giant module, changed now and then (mining and
// curation handle a file's whole content for each change, which would make
// the fixture slow to run the recipe on).
func (g *projectGen) pick(files []*projFile, avoid map[string]bool) *projFile {
	var cands []*projFile
	var weights []int
	total := 0
	for _, f := range live(files, kindPy, kindGo) {
		if avoid[f.path] || strings.HasSuffix(f.path, "__init__.py") {
			continue
		}
		w := 6 + min(len(f.funcs), 120)/12
		if f.size > 200<<10 {
			w = 2 // the giant module: every change stores it whole in the ground truth
		}
		cands = append(cands, f)
		weights = append(weights, w)
		total += w
	}
	r := g.rng.IntN(total)
	for i, w := range weights {
		if r < w {
			return cands[i]
		}
		r -= w
	}
	return cands[len(cands)-1]
}

func byPath(files []*projFile, p string) *projFile {
	for _, f := range files {
		if f.path == p {
			return f
		}
	}
	return nil
}

// ordinary is one commit on ref of the kinds a real history has, mostly a
// small change named in its message; from, when given, is its parent. With
// avoid (main while a pull request is open) it touches only source files,
// none of avoid.
func (g *projectGen) ordinary(ref string, files []*projFile, from string, avoid map[string]bool) {
	// About half of these are rejected by the commit filter, as in real
	// histories (pallets/click's funnel keeps 29 %, spf13/cobra's 47 %).
	r := g.rng.IntN(100)
	onMain := avoid == nil && ref == "refs/heads/main"
	switch {
	case r < 6 && avoid == nil: // a bot bumps a dependency
		f := byPath(files, "requirements/dev.txt")
		f.text++
		g.commit(ref, "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
			fmt.Sprintf("Bump pytest from 7.%d.0 to 7.%d.0 in /requirements", f.text-1, f.text), from, "", []*projFile{f}, nil)
		return
	case r < 24: // noise a person commits
		f := g.pick(files, avoid)
		g.change(f, g.rng.IntN(len(f.funcs)))
		msg := []string{"wip", "fix typo", "cleanup", "Merge branch 'main' into fix", "address review", "fix tests",
			"update " + path.Base(f.path), "more"}[g.rng.IntN(8)]
		g.commit(ref, g.author(), msg, from, "", []*projFile{f}, nil)
		return
	case r < 42 && avoid == nil: // documentation, changelog or CI only
		f := byPath(files, []string{"docs/index.rst", "docs/api.rst", "README.md", "CHANGES.rst", projCI}[g.rng.IntN(5)])
		f.text++
		noun := projNouns[g.rng.IntN(len(projNouns))]
		msg := map[string]string{"CHANGES.rst": "Add the changelog entry for the " + noun + " fix",
			projCI: "Run the test suite on the newest Python in CI"}[f.path]
		if msg == "" {
			msg = "Document the " + noun + " parameter in the guide"
		}
		g.commit(ref, g.author(), msg, from, "", []*projFile{f}, nil)
		return
	case r < 47 && avoid == nil: // a reformat of many files
		var changed []*projFile
		for _, f := range live(files, kindPy)[1:10] { // the package's modules after its __init__
			if f.size > 200<<10 {
				continue
			}
			g.change(f, g.rng.IntN(len(f.funcs)))
			changed = append(changed, f)
		}
		g.commit(ref, g.author(), "Apply the new black style to the whole package", from, "", changed, nil)
		return
	case r < 48 && avoid == nil: // the logo, alone or with code
		logo := byPath(files, projLogo)
		logo.text++
		changed := []*projFile{logo}
		msg := "Refresh the project logo for the documentation"
		if g.rng.IntN(2) == 0 {
			f := g.pick(files, avoid)
			g.change(f, g.rng.IntN(len(f.funcs)))
			changed = append(changed, f)
			msg = "Show the new logo in the help output of the docs"
		}
		g.commit(ref, g.author(), msg, from, "", changed, nil)
		return
	case r < 52 && onMain: // a new module: a large one (too many lines), or a few helpers
		f := g.newModule(r < 49)
		g.commit(ref, g.author(), fmt.Sprintf("Add the %s module with its helpers", f.module), from, "", []*projFile{f}, nil)
		return
	case r < 61: // a new function, often with its test
	case r < 23: // a new function, often with its test
		f := g.pick(files, avoid)
		name := g.newName(f)
		f.funcs = append(f.funcs, projFunc{name: name})
		f.funcs[len(f.funcs)-1].callee = g.calleeFor(f, len(f.funcs)-1)
		changed := []*projFile{f}
		if t := g.testOf(files, f); t != nil && !avoid[t.path] {
			t.funcs = append(t.funcs, projFunc{name: "test_" + name})
			changed = append(changed, t)
		}
		g.commit(ref, g.author(), fmt.Sprintf("Add %s to %s", name, moduleName(f)), from, "", changed, nil)
		return
	case r < 63: // a function removed
		f := g.pick(files, avoid)
		i := g.rng.IntN(len(f.funcs))
		if f.funcs[i].gone || called(files, f.funcs[i].name) {
			break
		}
		f.funcs[i].gone = true
		g.commit(ref, g.author(), fmt.Sprintf("Remove the deprecated %s from %s", f.funcs[i].name, moduleName(f)), from, "", []*projFile{f}, nil)
		return
	case r < 68: // a test of its own, most often in the large test module
		var tests []*projFile
		for _, t := range live(files, kindPyTest) {
			if t.tests != "" && !avoid[t.path] {
				tests = append(tests, t)
			}
		}
		t := tests[0]
		if g.rng.IntN(2) == 1 {
			t = tests[g.rng.IntN(len(tests))]
		}
		target := g.module(t.tests)
		fn := target.funcs[g.rng.IntN(len(target.funcs))].name
		name := fmt.Sprintf("test_%s_case_%d", fn, len(t.funcs))
		t.funcs = append(t.funcs, projFunc{name: name})
		g.commit(ref, g.author(), fmt.Sprintf("Test that %s keeps the default for a missing value", fn), from, "", []*projFile{t}, nil)
		return
	}
	// A fix of one function, its test often, sometimes a caller too.
	f := g.pick(files, avoid)
	i := g.rng.IntN(len(f.funcs))
	for f.funcs[i].gone {
		i = (i + 1) % len(f.funcs)
	}
	g.change(f, i)
	changed := []*projFile{f}
	if t := g.testOf(files, f); t != nil && !avoid[t.path] && g.rng.IntN(3) == 0 {
		if j := slices.IndexFunc(t.funcs, func(fn projFunc) bool { return fn.name == "test_"+f.funcs[i].name && !fn.gone }); j >= 0 {
			t.funcs[j].v++
			changed = append(changed, t)
		}
	}
	if g.rng.IntN(6) == 0 {
		o := g.pick(files, avoid)
		if o != f {
			g.change(o, g.rng.IntN(len(o.funcs)))
			changed = append(changed, o)
		}
	}
	name := f.funcs[i].name
	noun := projNouns[g.rng.IntN(len(projNouns))]
	msg := g.fixMessage(name, noun)
	switch g.rng.IntN(4) {
	case 0:
		msg += fmt.Sprintf("\n\nFixes #%d.", 900+g.rng.IntN(2000))
	case 1:
		msg += "\n\nThe " + noun + " was compared before it was converted, so a\ndefault from the environment never reached the callback.\n\nCo-authored-by: " + g.author()
	}
	g.commit(ref, g.author(), msg, from, "", changed, nil)
}

// called reports whether a live function calls one named name (the
// generator never leaves a call to a function it removed).
func called(files []*projFile, name string) bool {
	for _, f := range files {
		for _, fn := range f.funcs {
			if !fn.gone && (fn.callee == name || strings.HasSuffix(fn.callee, "."+name)) {
				return true
			}
		}
	}
	return false
}

// fixMessage is the subject of a fix of function fn.
func (g *projectGen) fixMessage(fn, noun string) string {
	return strings.NewReplacer("{fn}", fn, "{noun}", noun).Replace(projFixes[g.rng.IntN(len(projFixes))])
}

// newModule adds a Python module to the contrib package: a few helpers,
// or (large) a table of many.
func (g *projectGen) newModule(large bool) *projFile {
	word := projNouns[g.rng.IntN(len(projNouns))]
	p := "src/shapes/contrib/" + word + "s.py"
	for i := 2; byPath(g.files, p) != nil; i++ {
		p = fmt.Sprintf("src/shapes/contrib/%ss%d.py", word, i)
	}
	f := &projFile{path: p, kind: kindPy, imports: []string{"shapes.utils"}, pad: 2,
		module: "shapes.contrib." + strings.TrimSuffix(path.Base(p), ".py")}
	n := 3
	if large {
		n = 40
	}
	for range n {
		f.funcs = append(f.funcs, projFunc{name: g.newName(f)})
		f.funcs[len(f.funcs)-1].callee = g.calleeFor(f, len(f.funcs)-1)
	}
	g.files = append(g.files, f)
	return f
}

// change bumps function i of f (a deleted one: the next live one).
func (g *projectGen) change(f *projFile, i int) {
	for range len(f.funcs) {
		if !f.funcs[i].gone {
			f.funcs[i].v++
			return
		}
		i = (i + 1) % len(f.funcs)
	}
}

func (g *projectGen) testOf(files []*projFile, f *projFile) *projFile {
	if f.kind != kindPy {
		return nil
	}
	for _, t := range files {
		if t.kind == kindPyTest && !t.gone && "shapes."+t.tests == f.module {
			return t
		}
	}
	return nil
}

func moduleName(f *projFile) string {
	if f.kind == kindGo {
		return "the " + f.module + " package"
	}
	return f.module
}

// pullRequest writes a branch of 2 to 4 commits from main's tip and its
// merge (--no-ff); main sometimes moves on meanwhile, on other files.
func (g *projectGen) pullRequest(main int) int {
	base := fmt.Sprintf(":%d", main)
	topic := g.cloneFiles()
	k := 2 + g.rng.IntN(3)
	touched := map[string]bool{}
	var first string
	for j := range k {
		from := ""
		if j == 0 {
			from = base
		}
		for p := range g.prCommit(topic, from) {
			touched[p] = true
		}
		if j == 0 {
			first = g.lastSubject
		}
	}
	tip := g.mark
	g.shape.BranchCommits += k
	if g.rng.IntN(3) == 0 { // main moves on while the branch is open
		g.ordinary("refs/heads/main", g.files, "", touched)
	}
	// The merge: main's files, with the branch's versions of what it touched.
	var changed []*projFile
	for i, f := range topic {
		if touched[f.path] {
			g.files[i] = f
			g.byPath[f.path] = f
			changed = append(changed, f)
		}
	}
	g.pr++
	msg := fmt.Sprintf("Merge pull request #%d from %s/%s\n\n%s", g.pr,
		strings.ToLower(strings.Fields(g.author())[0]), strings.Join(strings.Fields(strings.ToLower(first))[:3], "-"), first)
	g.commit("refs/heads/main", projAuthors[1], msg, "", fmt.Sprintf(":%d", tip), changed, nil)
	g.shape.Merges++
	if g.shape.Merges%9 == 0 {
		g.tag(fmt.Sprintf("refs/tags/8.%d.%d", g.shape.Merges/90, g.shape.Merges/9%10))
	}
	return g.mark
}

// prCommit is one commit of a pull request: a fix named in its message.
func (g *projectGen) prCommit(files []*projFile, from string) map[string]bool {
	f := g.pick(files, nil)
	i := g.rng.IntN(len(f.funcs))
	g.change(f, i)
	changed := []*projFile{f}
	if t := g.testOf(files, f); t != nil {
		if j := slices.IndexFunc(t.funcs, func(fn projFunc) bool { return fn.name == "test_"+f.funcs[i].name && !fn.gone }); j >= 0 {
			t.funcs[j].v++
			changed = append(changed, t)
		}
	}
	g.lastSubject = g.fixMessage(f.funcs[i].name, projNouns[g.rng.IntN(len(projNouns))])
	touched := map[string]bool{}
	for _, c := range changed {
		touched[c.path] = true
	}
	g.commit("refs/heads/topic", g.author(), g.lastSubject, from, "", changed, nil)
	return touched
}

var renameWords = []string{"impl", "base", "legacy", "ext", "common", "extra"}

// rename moves a file nothing imports by path (a test module, a Go file
// inside its package), every other time with an edit in the same commit.
func (g *projectGen) rename() {
	var cands []*projFile
	for _, f := range g.files {
		if !f.gone && (f.kind == kindGo && !strings.HasSuffix(f.path, "main.go") || f.kind == kindPyTest && f.tests != "") {
			cands = append(cands, f)
		}
	}
	f := cands[g.rng.IntN(len(cands))]
	old := f.path
	dir, base := path.Split(old)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if i := strings.LastIndex(stem, "_"); i >= 0 && slices.Contains(renameWords, stem[i+1:]) {
		stem = stem[:i]
	}
	f.path = fmt.Sprintf("%s%s_%s%s", dir, stem, renameWords[g.shape.Renames%len(renameWords)], ext)
	delete(g.byPath, old)
	g.byPath[f.path] = f
	var changed []*projFile
	msg := fmt.Sprintf("Rename %s to %s", base, path.Base(f.path))
	if g.shape.Renames%2 == 1 {
		i := g.rng.IntN(len(f.funcs))
		g.change(f, i)
		changed = append(changed, f)
		msg = fmt.Sprintf("Move %s into %s and fix %s", base, path.Base(f.path), f.funcs[i].name)
	}
	g.commit("refs/heads/main", g.author(), msg, "", "", changed, [][2]string{{old, f.path}})
	g.shape.Renames++
}

// release bumps the version and the changelog, and tags it.
func (g *projectGen) release() {
	ch := g.byPath["CHANGES.rst"]
	ch.text++
	init := g.byPath["src/shapes/__init__.py"]
	if init == nil {
		init = byPath(g.files, "src/shapes/contrib/__init__.py")
	}
	init.text++
	g.change(init, 0)
	g.commit("refs/heads/main", projAuthors[1], fmt.Sprintf("Release version 8.%d.%d", ch.text/10, ch.text%10), "", "",
		[]*projFile{ch, init}, nil)
	g.tag(fmt.Sprintf("refs/tags/8.%d.%d-rc", ch.text/10, ch.text%10))
}
