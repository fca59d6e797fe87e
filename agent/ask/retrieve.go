package ask

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// The retrieval steps a Source is found by (Source.Step), as
// retrieval_decisions.tier keeps them; callers and callees add their hop
// (CallerStep, CalleeStep).
const (
	StepErrorSite   = "error_site"   // raises an exception type the question names
	StepErrorString = "error_string" // produces an error message the question quotes
	StepFrame       = "frame"        // a frame of the question's stack trace
	StepEntry       = "entry"        // an entry point matching the question's subject
	StepHotspot     = "hotspot"      // a most coupled file or function
	StepImporter    = "importer"     // who imports a hotspot, what it imports
	StepBugfix      = "bugfix"       // bug-fix commits touching a hotspot
	StepDoc         = "doc"          // a description or docstring of a file involved
	StepLexical     = "lexical"      // a description or docstring sharing the question's words (BM25)
	StepSymbol      = "symbol"       // a symbol whose name shares the question's words
	StepGapDirect   = "gap_direct"   // a gap's named function, file or identifier
	StepGapSearch   = "gap_search"   // the mode's search on a gap's text
)

// CallerStep is the step of a caller found hop calls above an error site.
func CallerStep(hop int) string { return fmt.Sprintf("caller_%d", hop) }

// CalleeStep is the step of a callee found hop calls below an entry point.
func CalleeStep(hop int) string { return fmt.Sprintf("callee_%d", hop) }

// Retriever finds an ask's context in one repository's curated store.
// What it reads of the store (the code index, the call graph, docstrings,
// descriptions, file texts) is read once, on first use, and kept: use one
// Retriever per ask, by pointer.
type Retriever struct {
	KB     *kb.KnowledgeBase
	Repo   kb.Repo                   // the indexed repository (Repo.TreeRev: the indexed revision)
	Graph  *retrieval.KnowledgeGraph // retrieval.LoadKnowledgeGraph: imports, co-change, documents
	Config config.Ask

	mu sync.Mutex
	st *repoState
}

// Retrieve is the initial retrieval of a classified question: sources
// best first within the mode's budget (config.Ask.Mode); what was found
// past the budget is in Cut.
func (r *Retriever) Retrieve(ctx context.Context, c Classification, question string) (Retrieval, error) {
	st, err := r.state(ctx)
	if err != nil {
		return Retrieval{}, err
	}
	var found []candidate
	var anchors []string
	switch c.Mode {
	case Diagnostic:
		found, anchors, err = r.diagnostic(ctx, st, question)
	case Exploratory:
		found, anchors, err = r.exploratory(ctx, st, question)
	case Analytical:
		found, anchors, err = r.analytical(ctx, st, c.Scope)
	case Conceptual:
		found, anchors, err = r.conceptual(ctx, st, question)
	default:
		return Retrieval{}, fmt.Errorf("ask: retrieve: %q is not a question mode", c.Mode)
	}
	if err != nil {
		return Retrieval{}, fmt.Errorf("ask: %s retrieval in %s: %w", c.Mode, r.Repo.Path, err)
	}
	out := pack(found, r.Config.Mode(string(c.Mode)), r.Config.MaxSourceLines)
	out.Mode, out.Anchors = c.Mode, anchors
	return out, nil
}

// candidate is a Source found before the budget: its Text whole (cut only
// to MaxSourceLines), and the lines it can be cut again from.
type candidate struct {
	Source
	lines []string // what Text shows, line by line, before any cut; nil for text that is never cut by lines
}

// pack keeps candidates best first while their kind's budget lasts: a
// candidate over what is left is cut to it (first lines, then a marker)
// when a useful part fits, else it goes to Cut. One piece of context is
// kept once (by kind, citation and, for whole files, step), where it
// ranks best.
func pack(found []candidate, b config.ModeBudget, maxLines int) Retrieval {
	left := map[string]int{KindSource: b.Source, KindDoc: b.Docs, KindStructure: b.Structure}
	share := map[string]int{}
	for k, n := range left {
		share[k] = max(n/shareDivisor, minShare)
	}
	out := Retrieval{Sources: []Source{}}
	seen := map[string]bool{}
	for _, c := range found {
		key := c.Kind + " " + c.Cite()
		if c.Start <= 0 {
			key += " " + c.Step // a file's summary, importers and bug fixes are three
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		s, ok := c.fit(min(left[c.Kind], share[c.Kind]), maxLines)
		if !ok {
			cut := c.Source
			cut.Text = ""
			out.Cut = append(out.Cut, cut)
			continue
		}
		left[c.Kind] -= s.Tokens
		out.Tokens += s.Tokens
		out.Sources = append(out.Sources, s)
	}
	return out
}

// shareDivisor and minShare bound one source's share of its kind's
// budget: the CGRAG design shows 5 to 8 functions per mode, so one may
// take a quarter, and never so little that only a signature is left.
const (
	shareDivisor = 4
	minShare     = 150
)

// minFit is the fewest tokens a cut source is worth showing in.
const minFit = 24

// repoState is what the modes read of the repository, read once.
type repoState struct {
	entries []kb.CodeIndexEntry // functions, methods and classes, by path and line
	byID    map[int64]int       // symbol id → index in entries
	byName  map[string][]int    // symbol name and qualified name → entries, by path and line
	byFile  map[string][]int    // path → its entries, by line
	callers map[int64][]int64   // callee → callers (resolved calls), by path and line
	callees map[int64][]int64   // caller → callees, by path and line
	files   map[string]kb.File  // path → file

	mu    sync.Mutex
	texts map[string]fileText // path → lines at the indexed revision, read on first use
	docs  *repoDocs           // read on first use
	lex   *lexicalIndex       // built on first use
	terms [][]string          // entries' name terms, by index; built on first use
}

type fileText struct {
	lines []string
	err   error
}

// state reads the repository's code index, call graph and files the first
// time a Retriever needs them.
func (r *Retriever) state(ctx context.Context) (*repoState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st != nil {
		return r.st, nil
	}
	if r.KB == nil || r.Graph == nil {
		return nil, errors.New("ask: a Retriever needs the knowledge base and the repository's graph")
	}
	entries, err := r.KB.SearchCodeIndex(ctx, r.Repo.ID, kb.CodeIndexQuery{Limit: maxIndexEntries})
	if err != nil {
		return nil, err
	}
	edges, err := r.KB.CallEdges(ctx, r.Repo.ID)
	if err != nil {
		return nil, err
	}
	files, err := r.KB.GetFiles(ctx, r.Repo.ID, "")
	if err != nil {
		return nil, err
	}
	st := &repoState{entries: entries, byID: map[int64]int{}, byName: map[string][]int{}, byFile: map[string][]int{},
		callers: map[int64][]int64{}, callees: map[int64][]int64{}, files: map[string]kb.File{}, texts: map[string]fileText{}}
	for i, e := range entries {
		st.byID[e.ID] = i
		st.byName[e.SymbolName] = append(st.byName[e.SymbolName], i)
		if e.QualifiedName != e.SymbolName {
			st.byName[e.QualifiedName] = append(st.byName[e.QualifiedName], i)
		}
		st.byFile[e.FilePath] = append(st.byFile[e.FilePath], i)
	}
	for _, e := range edges {
		if _, ok := st.byID[e.Caller]; !ok {
			continue
		}
		if _, ok := st.byID[e.Callee]; !ok {
			continue
		}
		st.callers[e.Callee] = append(st.callers[e.Callee], e.Caller)
		st.callees[e.Caller] = append(st.callees[e.Caller], e.Callee)
	}
	for _, m := range []map[int64][]int64{st.callers, st.callees} {
		for id, ids := range m {
			slices.SortFunc(ids, st.byPlace)
			m[id] = ids
		}
	}
	for _, f := range files {
		st.files[f.Path] = f
	}
	r.st = st
	return st, nil
}

// maxIndexEntries caps the code index read per repository: far above
// any real one's functions, methods and classes.
const maxIndexEntries = 5_000_000

// entry is the code index entry of a symbol id.
func (st *repoState) entry(id int64) *kb.CodeIndexEntry { return &st.entries[st.byID[id]] }

// byPlace orders symbol ids by path, then line, then id.
func (st *repoState) byPlace(a, b int64) int {
	ea, eb := st.entry(a), st.entry(b)
	return cmp.Or(strings.Compare(ea.FilePath, eb.FilePath), cmp.Compare(ea.LineStart, eb.LineStart), cmp.Compare(a, b))
}

// named lists the entries whose name or qualified name is name exactly,
// by path and line.
func (st *repoState) named(name string) []*kb.CodeIndexEntry {
	var out []*kb.CodeIndexEntry
	for _, i := range st.byName[name] {
		out = append(out, &st.entries[i])
	}
	return out
}

// fileID is the curated files.id of path (0 when not indexed).
func (r *Retriever) fileID(path string) int64 { return r.Graph.FileIDs()[path] }

// resolvePath finds the indexed file a path as written names: itself, a
// path ending in it, or — for an absolute path or another checkout's
// (/venv/.../site-packages/click/core.py) — the longest tail of it that
// names exactly one indexed file. "" when none does.
func (r *Retriever) resolvePath(p string) string {
	p = strings.Trim(strings.ReplaceAll(p, `\`, "/"), "`'\"")
	p = strings.TrimPrefix(p, "./")
	if r.Graph.Exists(p) {
		return p
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i := range parts {
		tail := strings.Join(parts[i:], "/")
		if tail == "" {
			continue
		}
		if fs := r.Graph.FilesNamed(tail); len(fs) == 1 {
			return fs[0]
		} else if len(fs) > 1 {
			return ""
		}
	}
	return ""
}
