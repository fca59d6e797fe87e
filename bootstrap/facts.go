package bootstrap

import (
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
)

// facts is what replay keeps of one parsed blob: what import resolution,
// reference resolution and the symbol tiers need, nothing more (the
// CGRAG facts, docstrings and comments are dropped to keep the cache small).
type facts struct {
	language   string
	symbols    []lang.Symbol
	imports    []lang.Import
	refs       []lang.Reference
	errorNodes int
	failed     string // why the blob was not parsed ("" when it was)
}

// factCache holds the facts of every blob parsed in a run, by blob id: each
// blob is parsed once per run, whichever commit's state it belongs to.
type factCache struct {
	mu      sync.Mutex
	entries map[plumbing.Hash]*factEntry
	parsed  atomic.Int64 // blobs parsed, for the summary and the tests
	bytes   atomic.Int64
}

type factEntry struct {
	once sync.Once
	f    *facts
}

func newFactCache() *factCache {
	return &factCache{entries: map[plumbing.Hash]*factEntry{}}
}

// get returns the facts of blob h, computing them once with parse.
func (c *factCache) get(h plumbing.Hash, parse func() *facts) *facts {
	c.mu.Lock()
	e := c.entries[h]
	if e == nil {
		e = &factEntry{}
		c.entries[h] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.f = parse() })
	return e.f
}

// extract parses src with the worker's extractors and keeps what replay needs.
func extract(set *lang.Set, path string, src []byte) *facts {
	ex, err := set.ForPath(path)
	if err != nil || ex == nil {
		return &facts{failed: "no extractor"}
	}
	ff, err := ex.Extract(path, src)
	if err != nil {
		return &facts{language: ex.Language(), failed: err.Error()}
	}
	syms := make([]lang.Symbol, len(ff.Symbols))
	for i, s := range ff.Symbols {
		s.Raises, s.ErrorStrings, s.Mutates = nil, nil, nil
		syms[i] = s
	}
	return &facts{
		language: ff.Language, symbols: syms, imports: ff.Imports,
		refs: ff.References, errorNodes: ff.ErrorNodes,
	}
}

// resolveFile is f as the resolver sees it.
func (f *facts) resolveFile(path string) resolve.File {
	if f == nil {
		return resolve.File{Path: path, Language: lang.LanguageOf(path)}
	}
	return resolve.File{Path: path, Language: f.language, Imports: f.imports, Symbols: f.symbols, References: f.refs}
}
