package retrieval

import (
	"context"
	"iter"
	"slices"

	"github.com/cra-dev/cra/kb"
)

// KnowledgeGraph is an indexed repository of the knowledge base as
// retrieval sees it, read once from the curated store.
type KnowledgeGraph struct {
	opts     GraphOptions
	paths    []string          // every indexed file, in path order
	language map[string]string // path → language
	ids      map[string]int64  // path → files.id
	top      map[string][]string
	texts    map[string][]string // path → symbol names, docstrings and promoted metadata
	definers map[string][]string // symbol name → files declaring it, in path order
	edges    []Edge
	co       map[string]map[string]int
}

// GraphOptions say what the graph cannot read from the store: which file
// names have a language, and which languages are parsed (the ingest
// package knows; retrieval does not import it).
type GraphOptions struct {
	// LanguageOf names the language of a file name, "" when none.
	LanguageOf func(path string) string
	// Source reports whether a file is parsed source whose symbols and
	// module name count (bootstrap's snapshots use the same rule).
	Source func(path string) bool
}

// LoadKnowledgeGraph reads repository repoID of the curated store q.
func LoadKnowledgeGraph(ctx context.Context, q kb.Querier, repoID int64, opts GraphOptions) (*KnowledgeGraph, error) {
	c, err := kb.NewKnowledgeBase(q).RepoContents(ctx, repoID)
	if err != nil {
		return nil, err
	}
	g := &KnowledgeGraph{opts: opts, language: map[string]string{}, ids: map[string]int64{}, top: map[string][]string{},
		texts: map[string][]string{}, definers: map[string][]string{}, co: map[string]map[string]int{}}
	for _, f := range c.Files {
		g.paths = append(g.paths, f.Path)
		g.language[f.Path], g.ids[f.Path] = f.Language, f.ID
	}
	for _, s := range c.Symbols {
		if s.TopLevel {
			g.top[s.Path] = append(g.top[s.Path], s.Text)
		}
		g.texts[s.Path] = append(g.texts[s.Path], s.Text)
		if d := g.definers[s.Text]; len(d) == 0 || d[len(d)-1] != s.Path {
			g.definers[s.Text] = append(d, s.Path)
		}
	}
	// Docstrings, then promoted descriptions (cra enrich --promote): a
	// file's domain, module and concepts are words the lexical tier
	// matches too.
	for _, t := range slices.Concat(c.Docstrings, c.Descriptions) {
		g.texts[t.Path] = append(g.texts[t.Path], t.Text)
	}
	g.edges = c.Imports
	for _, c := range c.CoChanges {
		for _, pair := range [][2]string{{c.A, c.B}, {c.B, c.A}} {
			if g.co[pair[0]] == nil {
				g.co[pair[0]] = map[string]int{}
			}
			g.co[pair[0]][pair[1]] = c.Count
		}
	}
	return g, nil
}

func (g *KnowledgeGraph) FilesNamed(tok string) []string {
	return FilesNamedIn(slices.Values(g.paths), g.Exists, g.opts.LanguageOf, tok)
}

func (g *KnowledgeGraph) Definers(name string, limit int) []string {
	var out []string
	for _, p := range g.definers[name] {
		if g.opts.Source(p) {
			out = append(out, p)
			if len(out) > limit {
				break
			}
		}
	}
	return out
}

func (g *KnowledgeGraph) ModulesNamed(name string) []string {
	return ModulesNamedIn(g.sources(), name)
}

// sources are the graph's parsed source files, in path order.
func (g *KnowledgeGraph) sources() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, p := range g.paths {
			if g.opts.Source(p) && !yield(p) {
				return
			}
		}
	}
}

func (g *KnowledgeGraph) Dependencies() []Edge { return g.edges }

func (g *KnowledgeGraph) CoChanged(p string) map[string]int { return g.co[p] }

func (g *KnowledgeGraph) Exists(p string) bool { _, ok := g.language[p]; return ok }

func (g *KnowledgeGraph) TopLevelSymbols(p string) []string { return slices.Clone(g.top[p]) }

// Documents are the source files, in path order.
func (g *KnowledgeGraph) Documents() []Document {
	var out []Document
	for _, p := range g.paths {
		if g.opts.Source(p) {
			out = append(out, Document{Path: p, Text: append(Terms(p), Terms(g.texts[p]...)...)})
		}
	}
	return out
}

// FileIDs maps every file of the graph to its id in the curated store.
func (g *KnowledgeGraph) FileIDs() map[string]int64 { return g.ids }
