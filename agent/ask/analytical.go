package ask

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Analytical retrieval's caps: the files summarised, the functions shown,
// the bug-fix commits listed per file and the names listed per line.
const (
	maxHotspotFiles = 5
	maxHotspotFuncs = 5
	maxBugfixes     = 5
	maxListed       = 8
)

// BugFixPattern reads a commit message as a bug fix: fix, hotfix, bug,
// error, crash, failure, broken, wrong, regression, incorrect and their
// forms. It is RE2, so Go's regexp and DuckDB's regexp_matches (which the
// analytical mode's commit reader passes it to) read it alike; matched
// case-insensitively. cra ask --eval's bug-report questions are the
// held-out commits it matches.
const BugFixPattern = `\b(fix(e[sd]|ing)?|hotfix(e[sd])?|bugs?|bugfix(e[sd])?|errors?|crash(es|ed|ing)?|fail(s|ed|ing|ure|ures)?|broken|wrong|regress(ions?|ed)?|incorrect(ly)?)\b`

var bugFix = regexp.MustCompile(`(?i)` + BugFixPattern)

// IsBugFix says whether a commit message reads as a bug fix.
func IsBugFix(message string) bool { return bugFix.MatchString(message) }

// coupling is what a file's structure says of it: calls across its
// border both ways, imports both ways, size.
type coupling struct {
	path          string
	fanIn, fanOut int // distinct functions of other files calling in, called out
	importers     []string
	imports       []string
	funcs, lines  int
	coChanged     string // its strongest co-change partner, "" for none
	coChangeCount int
}

func (c coupling) score() int { return c.fanIn + c.fanOut + len(c.importers) + len(c.imports) }

// analytical summarises the structure of the scope (a path prefix or a
// name; the whole repository when it names nothing indexed): its most
// coupled files, each with who imports it and what it imports and the
// bug-fix commits that touched it, the source of its most coupled
// functions, and what the files are for.
func (r *Retriever) analytical(ctx context.Context, st *repoState, scope string) ([]candidate, []string, error) {
	files := r.inScope(st, scope)
	anchors := []string{}
	if len(files) < len(st.byFile) {
		anchors = append(anchors, "scope "+scope)
	}
	ranked := r.couplings(st, files)
	if n := slices.IndexFunc(ranked, func(c coupling) bool { return c.score() == 0 }); n > 0 {
		ranked = ranked[:n] // files coupled to nothing are no hotspots while others are
	}
	ranked = ranked[:min(len(ranked), maxHotspotFiles)]
	var structure, funcs []candidate
	for _, c := range ranked {
		anchors = append(anchors, c.path)
		id := r.fileID(c.path)
		structure = append(structure, textCandidate(Source{Path: c.path, FileID: id, Kind: KindStructure, Step: StepHotspot,
			Why: fmt.Sprintf("coupling %d: called from %d functions of other files, calls %d", c.score(), c.fanIn, c.fanOut)}, c.summary()))
		if len(c.importers)+len(c.imports) > 0 {
			structure = append(structure, textCandidate(Source{Path: c.path, FileID: id, Kind: KindStructure, Step: StepImporter,
				Why: fmt.Sprintf("imported by %d files, imports %d", len(c.importers), len(c.imports))}, c.importLines()))
		}
		commits, err := r.KB.GetCommitsForFileMatching(ctx, id, BugFixPattern, maxBugfixes)
		if err != nil {
			return nil, nil, err
		}
		if len(commits) > 0 {
			var b strings.Builder
			fmt.Fprintf(&b, "bug-fix commits touching %s:\n", c.path)
			for _, cm := range commits {
				subject, _, _ := strings.Cut(strings.TrimSpace(cm.Message), "\n")
				fmt.Fprintf(&b, "- %.7s %s %s\n", cm.Hash, cm.Timestamp.UTC().Format("2006-01-02"), subject)
			}
			structure = append(structure, textCandidate(Source{Path: c.path, FileID: id, Kind: KindStructure, Step: StepBugfix,
				Why: fmt.Sprintf("%d bug-fix commits", len(commits))}, b.String()))
		}
	}
	for _, i := range r.coupledFuncs(st, files) {
		e := &st.entries[i]
		funcs = append(funcs, r.sourceOf(st, e, StepHotspot,
			fmt.Sprintf("called by %d functions, calls %d", len(st.callers[e.ID]), len(st.callees[e.ID]))))
	}
	found := slices.Concat(funcs, structure)
	docs, err := r.filesDocs(ctx, st, structure)
	if err != nil {
		return nil, nil, err
	}
	return append(found, docs...), anchors, nil
}

// inScope are the indexed files with code index entries that scope names
// (in path order): the files under it as a path prefix, else the files or
// modules of that name, else the files defining a symbol of that name;
// every such file when scope is empty or names nothing.
func (r *Retriever) inScope(st *repoState, scope string) []string {
	var all []string
	for p := range st.byFile {
		all = append(all, p)
	}
	slices.Sort(all)
	s := strings.Trim(strings.TrimSpace(strings.ReplaceAll(scope, `\`, "/")), "/`'\"")
	if s == "" {
		return all
	}
	rules := []func(p string) bool{
		func(p string) bool { return p == s || strings.HasPrefix(p, s+"/") },
		func(p string) bool {
			return strings.HasSuffix(p, "/"+s) || strings.Contains(p, "/"+s+"/") || strings.HasPrefix(p, s+"/") ||
				strings.TrimSuffix(path.Base(p), path.Ext(p)) == s
		},
		func(p string) bool {
			for _, i := range st.byFile[p] {
				if e := st.entries[i]; e.SymbolName == s || e.QualifiedName == s {
					return true
				}
			}
			return false
		},
	}
	for _, rule := range rules {
		var out []string
		for _, p := range all {
			if rule(p) {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return all
}

// couplings measures the files, most coupled first, then the largest,
// then by path.
func (r *Retriever) couplings(st *repoState, files []string) []coupling {
	importers, imports := map[string][]string{}, map[string][]string{}
	for _, e := range r.Graph.Dependencies() {
		if e.From != e.To {
			importers[e.To] = appendNew(importers[e.To], e.From)
			imports[e.From] = appendNew(imports[e.From], e.To)
		}
	}
	var out []coupling
	for _, p := range files {
		c := coupling{path: p, importers: importers[p], imports: imports[p], funcs: len(st.byFile[p])}
		in, outs := map[int64]bool{}, map[int64]bool{}
		for _, i := range st.byFile[p] {
			e := &st.entries[i]
			c.lines = max(c.lines, e.LineEnd)
			for _, id := range st.callers[e.ID] {
				if st.entry(id).FilePath != p {
					in[id] = true
				}
			}
			for _, id := range st.callees[e.ID] {
				if st.entry(id).FilePath != p {
					outs[id] = true
				}
			}
		}
		c.fanIn, c.fanOut = len(in), len(outs)
		for q, n := range r.Graph.CoChanged(p) {
			if n > c.coChangeCount || (n == c.coChangeCount && q < c.coChanged) {
				c.coChanged, c.coChangeCount = q, n
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b coupling) int {
		return cmp.Or(b.score()-a.score(), b.lines-a.lines, strings.Compare(a.path, b.path))
	})
	return out
}

// summary is a hotspot file's structure in a few lines.
func (c coupling) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d functions and classes, %d lines\n", c.path, c.funcs, c.lines)
	fmt.Fprintf(&b, "called from %d functions of other files; calls %d functions of other files\n", c.fanIn, c.fanOut)
	fmt.Fprintf(&b, "imported by %d files; imports %d files\n", len(c.importers), len(c.imports))
	if c.coChanged != "" {
		fmt.Fprintf(&b, "changed most often with %s (%d commits)\n", c.coChanged, c.coChangeCount)
	}
	return b.String()
}

// importLines lists who imports a file and what it imports.
func (c coupling) importLines() string {
	var b strings.Builder
	list := func(label string, paths []string) {
		if len(paths) == 0 {
			return
		}
		shown := paths[:min(len(paths), maxListed)]
		fmt.Fprintf(&b, "%s %s: %s", c.path, label, strings.Join(shown, ", "))
		if more := len(paths) - len(shown); more > 0 {
			fmt.Fprintf(&b, " and %d more", more)
		}
		b.WriteString("\n")
	}
	list("is imported by", c.importers)
	list("imports", c.imports)
	return b.String()
}

// coupledFuncs are the entries of files with the most calls in and out
// (functions and methods; a class's calls are its constructor's), most
// first, then by path and line; at most maxHotspotFuncs, none without a
// call either way.
func (r *Retriever) coupledFuncs(st *repoState, files []string) []int {
	var idx []int
	for _, p := range files {
		for _, i := range st.byFile[p] {
			e := &st.entries[i]
			if e.SymbolType != "class" && len(st.callers[e.ID])+len(st.callees[e.ID]) > 0 {
				idx = append(idx, i)
			}
		}
	}
	degree := func(i int) int { id := st.entries[i].ID; return len(st.callers[id]) + len(st.callees[id]) }
	slices.SortStableFunc(idx, func(a, b int) int { return degree(b) - degree(a) })
	return idx[:min(len(idx), maxHotspotFuncs)]
}
