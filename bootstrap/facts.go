package bootstrap

import (
	"container/list"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
	"github.com/cra-dev/cra/ingest/walk"
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
	// terms are the words of the symbols' names and docstrings, as the
	// lexical tier reads them (retrieval.Terms): counted once per blob.
	terms []string
}

// factCache holds the facts of the blobs parsed in a run, by blob id and
// language (factKey): a blob is parsed once, whichever commits' states
// contain it. The cache is
// bounded by an estimate of its size and drops the least recently used
// facts first. Commits are replayed parents first, so what it drops is
// blobs that later states no longer hold: in practice every blob is still
// parsed once (a test checks it), and memory stays flat however long the
// history.
type factCache struct {
	mu      sync.Mutex
	entries map[factKey]*list.Element // of *factEntry
	lru     list.List                 // front: most recently used
	size    int64
	limit   int64
	parsed  atomic.Int64 // blobs parsed, for the summary and the tests
	bytes   atomic.Int64
}

// factKey is what a blob's facts depend on within one binary: its content
// and the extractor its path chooses. The same blob is another file as
// x.py and as x.js (an empty __init__.py and an empty index.js are one
// blob), so the language is part of the key.
type factKey struct {
	blob     plumbing.Hash
	language string
}

// keyOf is the key of the blob h at path p.
func keyOf(p string, h plumbing.Hash) factKey {
	return factKey{blob: h, language: lang.LanguageOf(p)}
}

type factEntry struct {
	key  factKey
	once sync.Once
	f    *facts
	size int64 // 0 until computed
}

// factCacheBytes bounds the fact caches of a run, all repositories together.
const factCacheBytes = 64 << 20

// chunkCacheBytes bounds the facts of top-level statements each
// repository's replay keeps by their text (lang.ChunkCache).
const chunkCacheBytes = 4 << 20

// treeBytes bounds the memory of each repository's kept trees
// (lang.Tree.Size). A Python file's is its source and its chunks' facts,
// so every file a history changes fits; another language's is a
// tree-sitter tree, tens of times its source: 16 MB keeps about 512 KB of
// it, the bound kept trees had before Python's were chunks.
const treeBytes = 16 << 20

func newFactCache(limit int64) *factCache {
	return &factCache{entries: map[factKey]*list.Element{}, limit: limit}
}

// get returns the facts of blob k, computing them once with parse.
func (c *factCache) get(k factKey, parse func() *facts) *facts {
	c.mu.Lock()
	el := c.entries[k]
	if el == nil {
		el = c.lru.PushFront(&factEntry{key: k})
		c.entries[k] = el
	} else {
		c.lru.MoveToFront(el)
	}
	e := el.Value.(*factEntry)
	c.mu.Unlock()
	e.once.Do(func() {
		e.f = parse()
		c.mu.Lock()
		defer c.mu.Unlock()
		e.size = e.f.estimate()
		c.size += e.size
		for c.size > c.limit && c.lru.Len() > 1 {
			old := c.lru.Back()
			oe := old.Value.(*factEntry)
			if oe.size == 0 {
				break // still being computed
			}
			c.lru.Remove(old)
			delete(c.entries, oe.key)
			c.size -= oe.size
		}
	})
	return e.f
}

// put adds the facts of k computed elsewhere (an earlier run's, from the
// store) behind those the cache holds, and reports whether they fit: they
// never push out what this run computed, and loading stops at the bound.
func (c *factCache) put(k factKey, f *facts) bool {
	size := f.estimate()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[k] != nil {
		return true
	}
	if c.size+size > c.limit {
		return false
	}
	e := &factEntry{key: k, f: f, size: size}
	e.once.Do(func() {})
	c.entries[k] = c.lru.PushBack(e)
	c.size += size
	return true
}

// peek returns the facts of k when the cache holds them computed, nil
// otherwise, without making them recently used.
func (c *factCache) peek(k factKey) *facts {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.entries[k]; el != nil && el.Value.(*factEntry).size > 0 {
		return el.Value.(*factEntry).f
	}
	return nil
}

// estimate is roughly the memory f holds, in bytes: its records as Go
// lays them out, and their strings (a test holds it to what the heap
// grows by).
func (f *facts) estimate() int64 {
	const str = int64(unsafe.Sizeof(""))
	if f == nil {
		return 64
	}
	n := int64(unsafe.Sizeof(facts{})) + int64(len(f.failed))
	for _, s := range f.symbols {
		n += int64(unsafe.Sizeof(s)) + int64(len(s.Name)+len(s.Signature)+len(s.Receiver))
	}
	for _, r := range f.refs {
		n += int64(unsafe.Sizeof(r)) + int64(len(r.Name))
	}
	for _, im := range f.imports {
		n += int64(unsafe.Sizeof(im)) + int64(len(im.Module)+len(im.Alias))
		for _, nm := range im.Names {
			n += int64(unsafe.Sizeof(nm)) + int64(len(nm.Name)+len(nm.Alias))
		}
	}
	for _, t := range f.terms {
		n += str + int64(len(t))
	}
	return n
}

// extract parses src with set and keeps what replay needs.
func extract(set *lang.Set, path string, src []byte) *facts {
	return (&parsing{set: set}).facts(path, src)
}

// parsing is what one goroutine parses with: its extractors, the chunk
// cache a repository's workers share (nil: none, see
// lang.ExtractStructure) and its memo of the terms of names and
// docstrings, which recur from version to version.
type parsing struct {
	set    *lang.Set
	chunks *lang.ChunkCache
	terms  map[string][]string
}

// maxMemoTerms bounds a memo of terms: past it, it starts again.
const maxMemoTerms = 1 << 15

func newParsing(chunks *lang.ChunkCache) *parsing {
	return &parsing{set: lang.NewSet(), chunks: chunks, terms: map[string][]string{}}
}

func (p *parsing) close() { p.set.Close() }

// extract is the facts of src parsed from base, the tree of another
// version of the file (nil: none), with the same facts; it also returns
// the tree of src when there is one to keep as the base of a later
// version.
func (p *parsing) extract(path string, src []byte, base *lang.Tree) (*facts, *lang.Tree) {
	ex, err := p.set.ForPath(path)
	if err != nil || ex == nil {
		return &facts{failed: "no extractor"}, nil
	}
	ff, kept, err := lang.ExtractStructure(ex, path, src, base, p.chunks)
	if err != nil {
		return &facts{language: ex.Language(), failed: err.Error()}, kept
	}
	var terms []string
	for _, s := range ff.Symbols {
		terms = append(terms, p.termsOf(s.Name)...)
	}
	for _, d := range ff.Docstrings {
		terms = append(terms, p.termsOf(d.Content)...)
	}
	return &facts{
		language: ff.Language, symbols: ff.Symbols, imports: ff.Imports,
		refs: ff.References, errorNodes: ff.ErrorNodes, terms: terms,
	}, kept
}

// facts is extract's facts from scratch, keeping no tree.
func (p *parsing) facts(path string, src []byte) *facts {
	f, kept := p.extract(path, src, nil)
	kept.Close()
	return f
}

// termsOf is retrieval.Terms(text), from the memo when it holds it
// (retrieval.Terms of several texts is theirs one after another).
func (p *parsing) termsOf(text string) []string {
	if t, ok := p.terms[text]; ok {
		return t
	}
	t := retrieval.Terms(text)
	if p.terms != nil {
		if len(p.terms) >= maxMemoTerms {
			clear(p.terms)
		}
		p.terms[text] = t
	}
	return t
}

// trees holds, for each path of a repository, the tree of the version of
// it parsed last, from which its next version is parsed: replay parses a
// file in many versions a few lines apart. It is bounded by the memory
// the trees hold and drops the least recently parsed paths first. Safe
// for concurrent use.
type trees struct {
	mu    sync.Mutex
	paths map[string]*list.Element // of *treeEntry
	lru   list.List                // front: parsed last
	size  int64
	limit int64
}

type treeEntry struct {
	path string
	t    *lang.Tree
}

func newTrees(limit int64) *trees { return &trees{paths: map[string]*list.Element{}, limit: limit} }

// base is the tree of the version of path parsed last, nil when none is
// kept. It stays usable after another version replaces it (lang.Tree).
func (b *trees) base(path string) *lang.Tree {
	b.mu.Lock()
	defer b.mu.Unlock()
	if el := b.paths[path]; el != nil {
		return el.Value.(*treeEntry).t
	}
	return nil
}

// put keeps t as path's tree, in place of the one kept before.
func (b *trees) put(path string, t *lang.Tree) {
	if t == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if el := b.paths[path]; el != nil {
		e := el.Value.(*treeEntry)
		b.size -= int64(e.t.Size())
		e.t.Close()
		e.t = t
		b.lru.MoveToFront(el)
	} else {
		b.paths[path] = b.lru.PushFront(&treeEntry{path: path, t: t})
	}
	b.size += int64(t.Size())
	for b.size > b.limit && b.lru.Len() > 1 {
		old := b.lru.Back()
		e := old.Value.(*treeEntry)
		b.lru.Remove(old)
		delete(b.paths, e.path)
		b.size -= int64(e.t.Size())
		e.t.Close()
	}
}

// close frees every tree.
func (b *trees) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, el := range b.paths {
		el.Value.(*treeEntry).t.Close()
	}
	b.paths, b.size = map[string]*list.Element{}, 0
	b.lru.Init()
}

// parseFunc returns the facts of a file's content (extract's).
type parseFunc func(path string, src []byte) *facts

// parser parses with p, through c for source files: a content is looked
// up by its blob id, so what replay parsed is not parsed again. c counts
// the blobs it parses.
func (c *factCache) parser(p *parsing) parseFunc {
	return func(path string, src []byte) *facts {
		if !walk.SourceFile(path) {
			return p.facts(path, src)
		}
		return c.get(keyOf(path, plumbing.ComputeHash(plumbing.BlobObject, src)), func() *facts {
			c.parsed.Add(1)
			c.bytes.Add(int64(len(src)))
			return p.facts(path, src)
		})
	}
}

// from is the facts of src parsed from the tree b keeps of path's last
// version, whose tree it becomes.
func (p *parsing) from(b *trees, path string, src []byte) *facts {
	f, kept := p.extract(path, src, b.base(path))
	b.put(path, kept)
	return f
}

// resolveFile is f as the resolver sees it.
func (f *facts) resolveFile(path string) resolve.File {
	if f == nil {
		return resolve.File{Path: path, Language: lang.LanguageOf(path)}
	}
	return resolve.File{Path: path, Language: f.language, Imports: f.imports, Symbols: f.symbols, References: f.refs}
}
