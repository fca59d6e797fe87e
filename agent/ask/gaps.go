package ask

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/cra-dev/cra/kb"
)

// maxGapSources caps what one gap adds: the CGRAG design's search returns
// its top 3.
const maxGapSources = 3

// ResolveGap finds context for one gap the answer named, within budget
// tokens: direct lookup first (a "func in path" pair, a path, a name
// followed by "()" or a code-like identifier), Step "gap_direct"; else the
// mode's search on the gap's text (diagnostic: error strings and raises;
// every mode: descriptions, docstrings and symbol names), Step
// "gap_search". Sources already shown (by Cite()) are given in seen and
// never returned again. nil, nil: nothing found.
func (r *Retriever) ResolveGap(ctx context.Context, gap string, mode Mode, budget int, seen map[string]bool) ([]Source, error) {
	st, err := r.state(ctx)
	if err != nil {
		return nil, err
	}
	if budget < minFit || strings.TrimSpace(gap) == "" {
		return nil, nil
	}
	if out := r.fitGap(r.directLookup(st, gap), budget, StepGapDirect, seen); len(out) > 0 {
		return out, nil
	}
	found, err := r.gapSearch(ctx, st, gap, mode)
	if err != nil {
		return nil, fmt.Errorf("ask: resolve gap %q in %s: %w", gap, r.Repo.Path, err)
	}
	return r.fitGap(found, budget, StepGapSearch, seen), nil
}

// fitGap keeps the candidates not seen yet, best first, while budget
// lasts: the first cut to it when over, the others only when a useful
// part fits in what is left. nil when none is new.
func (r *Retriever) fitGap(found []candidate, budget int, step string, seen map[string]bool) []Source {
	var out []Source
	shown := map[string]bool{}
	for _, c := range found {
		cite := c.Cite()
		if seen[cite] || shown[cite] || len(out) == maxGapSources {
			continue
		}
		c.Step = step
		s, ok := c.fit(budget, r.Config.MaxSourceLines)
		if !ok {
			continue
		}
		shown[cite] = true
		budget -= s.Tokens
		out = append(out, s)
	}
	return out
}

var (
	// get_db in backend/deps.py, get_db() in deps.py, Context.invoke in `core.py`
	funcInFileRe = regexp.MustCompile("([A-Za-z_][\\w.]*)(?:\\(\\))?\\s+in\\s+`?([\\w./\\\\-]+\\.[A-Za-z]{1,5})\\b")
	gapPathRe    = regexp.MustCompile(`[\w./\\-]*\w\.(?:go|py|pyi|js|jsx|mjs|ts|tsx|java|kt|rb|rs|c|h|cc|cpp|hpp|cs|php|swift|scala|toml|cfg|ini|yaml|yml|json)\b`)
	callRe       = regexp.MustCompile(`([A-Za-z_][\w.]*)\(\)`)
)

// directLookup finds what a gap names, in the CGRAG design's order: a
// function in a file, a file, a function written with "()", a code-like
// identifier (snake_case, camelCase, Dotted.name). The first rule that
// finds something decides.
func (r *Retriever) directLookup(st *repoState, gap string) []candidate {
	for _, m := range funcInFileRe.FindAllStringSubmatch(gap, -1) {
		if p := r.resolvePath(m[2]); p != "" {
			var out []candidate
			for _, i := range st.byFile[p] {
				if e := &st.entries[i]; nameIs(e, m[1]) {
					out = append(out, r.sourceOf(st, e, StepGapDirect, m[1]+" in "+p))
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	var out []candidate
	for _, tok := range gapPathRe.FindAllString(gap, -1) {
		if p := r.resolvePath(tok); p != "" {
			out = append(out, r.fileSource(st, p))
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, m := range callRe.FindAllStringSubmatch(gap, -1) {
		out = append(out, r.lookupName(st, m[1], m[1]+"() named in the gap")...)
	}
	if len(out) > 0 {
		return out
	}
	for _, id := range identRe.FindAllString(gap, -1) {
		if codeLike(id) {
			out = append(out, r.lookupName(st, id, id+" named in the gap")...)
		}
	}
	return out
}

// nameIs says whether an entry is the function name names: by name,
// qualified name, or a qualified name ending in .name.
func nameIs(e *kb.CodeIndexEntry, name string) bool {
	return e.SymbolName == name || e.QualifiedName == name || strings.HasSuffix(e.QualifiedName, "."+name)
}

// lookupName finds the symbols a name written in a gap stands for: by
// name or qualified name (Context.invoke), or a module-qualified name
// (core.parse_args) in a file of that module's name. Names from outside
// the repository (numpy.linalg.solve) find nothing.
func (r *Retriever) lookupName(st *repoState, name, why string) []candidate {
	es := st.named(name)
	if len(es) == 0 {
		if mod, fn, ok := cutLast(name); ok {
			modBase := mod
			if i := strings.LastIndex(mod, "."); i >= 0 {
				modBase = mod[i+1:]
			}
			for _, e := range st.named(fn) {
				base := path.Base(e.FilePath)
				if strings.TrimSuffix(base, path.Ext(base)) == modBase {
					es = append(es, e)
				}
			}
		}
	}
	var out []candidate
	for _, e := range es[:min(len(es), maxGapSources)] {
		out = append(out, r.sourceOf(st, e, StepGapDirect, why))
	}
	return out
}

func cutLast(name string) (before, after string, ok bool) {
	i := strings.LastIndex(name, ".")
	if i <= 0 || i == len(name)-1 {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

// codeLike says whether a word of a gap is an identifier rather than
// English: snake_case, camelCase or PascalCase with an inner capital, or
// dotted.
func codeLike(id string) bool {
	if strings.Contains(id, ".") || strings.Contains(strings.Trim(id, "_"), "_") {
		return true
	}
	rs := []rune(id)
	for i := 1; i < len(rs); i++ {
		if unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1]) {
			return true
		}
	}
	return false
}

// fileSource is a whole file when it fits a gap, else its outline: the
// module's description and each function's lines, signature and first
// docstring line.
func (r *Retriever) fileSource(st *repoState, p string) candidate {
	lines, err := r.lines(st, p)
	if err == nil && len(lines) <= r.Config.MaxSourceLines {
		text := strings.Join(lines, "\n")
		return candidate{Source: Source{Path: p, Start: 1, End: len(lines), FileID: r.fileID(p), Kind: KindSource,
			Step: StepGapDirect, Why: "the file named", Text: text, Tokens: Tokens(text)}, lines: lines}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "outline of %s:\n", p)
	for _, i := range st.byFile[p] {
		e := &st.entries[i]
		sig := e.Signature
		if sig == "" {
			sig = e.QualifiedName
		}
		fmt.Fprintf(&b, "%d-%d %s", e.LineStart, e.LineEnd, strings.TrimSpace(sig))
		if doc, _, _ := strings.Cut(e.Docstring, "\n"); doc != "" {
			fmt.Fprintf(&b, "  # %s", doc)
		}
		b.WriteString("\n")
	}
	return textCandidate(Source{Path: p, FileID: r.fileID(p), Kind: KindStructure, Step: StepGapDirect, Why: "outline of the file named"}, b.String())
}

// gapSearch is the mode's search on a gap's text: for a diagnostic
// question the error sites of its anchors first; then, in every mode,
// descriptions, docstrings and symbol names sharing at least two of its
// words (a symbol shows its source, a file its description).
func (r *Retriever) gapSearch(ctx context.Context, st *repoState, gap string, mode Mode) ([]candidate, error) {
	var out []candidate
	if mode == Diagnostic {
		for _, s := range r.errorSites(st, Anchors(gap)) {
			out = append(out, r.sourceOf(st, st.entry(s.id), StepGapSearch, s.why))
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	hits, err := r.rankMin(ctx, st, gap, 2)
	if err != nil {
		return nil, err
	}
	d, err := r.docs(ctx, st)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		if h.symbol != 0 {
			out = append(out, r.sourceOf(st, st.entry(h.symbol), StepGapSearch, h.why))
		} else if c, ok := r.fileDoc(d, h.path, StepGapSearch, h.why); ok {
			out = append(out, c)
		}
	}
	return out, nil
}
