package retrieval

import (
	"context"
	"errors"
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
	g := &KnowledgeGraph{opts: opts, language: map[string]string{}, ids: map[string]int64{}, top: map[string][]string{},
		texts: map[string][]string{}, definers: map[string][]string{}, co: map[string]map[string]int{}}
	err := each(ctx, q, `SELECT path, language, id FROM files WHERE repo_id = ? ORDER BY path`, []any{repoID}, func(scan func(...any) error) error {
		var p, l string
		var id int64
		if err := scan(&p, &l, &id); err != nil {
			return err
		}
		g.paths = append(g.paths, p)
		g.language[p], g.ids[p] = l, id
		return nil
	})
	if err == nil {
		err = each(ctx, q, `SELECT f.path, s.name, s.parent_symbol_id IS NULL FROM symbols s JOIN files f ON f.id = s.file_id
			WHERE f.repo_id = ? ORDER BY f.path, s.start_line, s.id`, []any{repoID}, func(scan func(...any) error) error {
			var p, name string
			var top bool
			if err := scan(&p, &name, &top); err != nil {
				return err
			}
			if top {
				g.top[p] = append(g.top[p], name)
			}
			g.texts[p] = append(g.texts[p], name)
			if d := g.definers[name]; len(d) == 0 || d[len(d)-1] != p {
				g.definers[name] = append(d, p)
			}
			return nil
		})
	}
	if err == nil {
		err = each(ctx, q, `SELECT f.path, d.content FROM docstrings d JOIN files f ON f.id = d.file_id
			WHERE f.repo_id = ? ORDER BY f.path, d.id`, []any{repoID}, func(scan func(...any) error) error {
			var p, content string
			if err := scan(&p, &content); err != nil {
				return err
			}
			g.texts[p] = append(g.texts[p], content)
			return nil
		})
	}
	if err == nil {
		// Promoted descriptions (cra enrich --promote): a file's domain,
		// module and concepts are words the lexical tier matches too.
		err = each(ctx, q, `SELECT f.path, concat_ws(' ', m.domain, m.module, array_to_string(m.concepts, ' '))
			FROM file_metadata m JOIN files f ON f.id = m.file_id WHERE f.repo_id = ? ORDER BY f.path`, []any{repoID},
			func(scan func(...any) error) error {
				var p, words string
				if err := scan(&p, &words); err != nil {
					return err
				}
				g.texts[p] = append(g.texts[p], words)
				return nil
			})
	}
	if err == nil {
		err = each(ctx, q, `SELECT a.path, b.path FROM dependencies d JOIN files a ON a.id = d.source_file_id
			JOIN files b ON b.id = d.target_file_id WHERE a.repo_id = ? AND d.kind = 'import' ORDER BY 1, 2`, []any{repoID},
			func(scan func(...any) error) error {
				var e Edge
				if err := scan(&e.From, &e.To); err != nil {
					return err
				}
				g.edges = append(g.edges, e)
				return nil
			})
	}
	if err == nil {
		err = each(ctx, q, `SELECT a.path, b.path, c.count FROM co_changes c JOIN files a ON a.id = c.file_a_id
			JOIN files b ON b.id = c.file_b_id WHERE a.repo_id = ?`, []any{repoID}, func(scan func(...any) error) error {
			var a, b string
			var n int
			if err := scan(&a, &b, &n); err != nil {
				return err
			}
			for _, pair := range [][2]string{{a, b}, {b, a}} {
				if g.co[pair[0]] == nil {
					g.co[pair[0]] = map[string]int{}
				}
				g.co[pair[0]][pair[1]] = n
			}
			return nil
		})
	}
	return g, err
}

// each runs query and calls fn with a scanner for every row.
func each(ctx context.Context, q kb.Querier, query string, args []any, fn func(scan func(...any) error) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			rows.Close()
			return err
		}
	}
	return errors.Join(rows.Err(), rows.Close())
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
