package lang

// Chunked extraction: a file's next version mostly repeats the top-level
// statements of the last one. Its tree is still parsed whole (from the
// last version's tree, see incremental.go), so every statement is where a
// parse of the whole file puts it; but only the statements whose text is
// new are copied out of C and extracted. The facts of the others come
// from a cache keyed by their text, shifted to where they now stand.
//
// A top-level statement parsed at the top level of a file without a
// syntax error is the same subtree wherever that text stands, so its
// facts, counted from its first line, are too. What depends on more than
// one statement (a Python module variable a function mutates, a comment
// block spread over statements) is left out: these are the structural
// facts (Structure), which is what replaying a history needs. The facts
// must be a whole parse's, stripped the same way, byte for byte: tests
// compare the two over edits of every kind and over real histories
// (ingest/lang's chunk tests and bootstrap's parity test).

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"errors"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Structure strips ff down to its structural facts: no comments, and no
// raises, error strings or mutations of symbols. It changes ff in place
// and returns it.
func Structure(ff *FileFacts) *FileFacts {
	if ff == nil {
		return nil
	}
	ff.Comments = nil
	for i := range ff.Symbols {
		s := &ff.Symbols[i]
		s.Raises, s.ErrorStrings, s.Mutates = nil, nil, nil
	}
	return ff
}

// chunked is implemented by the extractors whose statements' facts
// depend on nothing outside them but the symbol that holds them: their
// passes can run over a tree with some of the top-level statements.
type chunked interface {
	incremental
	passes(f *file, root *node)
}

// ChunkCache holds the structural facts of top-level statements by their
// text, for ExtractStructure. It is bounded by an estimate of its size
// and drops the least recently used first. Safe for concurrent use.
type ChunkCache struct {
	mu      sync.Mutex
	entries map[chunkKey]*list.Element // of *chunkEntry
	lru     list.List                  // front: most recently used
	size    int64
	limit   int64
	// Statements taken from the cache and extracted, for the tests.
	hits, misses atomic.Int64
}

type chunkKey [sha256.Size]byte

type chunkEntry struct {
	key   chunkKey
	facts *chunkFacts
}

// NewChunkCache returns a cache holding about limit bytes of facts.
func NewChunkCache(limit int64) *ChunkCache {
	return &ChunkCache{entries: map[chunkKey]*list.Element{}, limit: limit}
}

func (c *ChunkCache) get(k chunkKey) *chunkFacts {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.entries[k]
	if el == nil {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*chunkEntry).facts
}

func (c *ChunkCache) put(k chunkKey, f *chunkFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[k] != nil {
		return
	}
	c.entries[k] = c.lru.PushFront(&chunkEntry{key: k, facts: f})
	c.size += f.size
	for c.size > c.limit && c.lru.Len() > 1 {
		old := c.lru.Back()
		e := old.Value.(*chunkEntry)
		c.lru.Remove(old)
		delete(c.entries, e.key)
		c.size -= e.facts.size
	}
}

// stats are the statements taken from the cache and those extracted.
func (c *ChunkCache) stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// chunkFacts are the structural facts of one chunk, with lines counted
// from its first line (0) and symbols numbered within it (Parent and
// Symbol -1 stay -1).
type chunkFacts struct {
	symbols    []Symbol
	docstrings []Docstring
	imports    []Import
	refs       []Reference
	size       int64 // estimate of the memory it holds
}

// chunk is a run of top-level nodes extracted or cached together: a
// statement with the comments above it and whatever shares its lines.
// Chunks never share a line, so a fact's line tells its chunk.
type chunk struct {
	first, last        int // indexes in the top-level nodes
	startRow, endRow   int
	textStart, textEnd int // from the start of its first line
}

// chunksOf groups the top-level nodes: a chunk ends before a node on a
// later line than the last node's end, unless the last node is an extra
// (a comment belongs to the statement below it). nil when there is
// nothing to gain (fewer than two chunks).
func chunksOf(tops []topNode, src []byte) []chunk {
	var out []chunk
	for i, t := range tops {
		if i > 0 {
			if p := tops[i-1]; t.startRow <= p.endRow || p.extra != 0 || p.named == 0 {
				c := &out[len(out)-1]
				c.last, c.endRow, c.textEnd = i, max(c.endRow, int(t.endRow)), max(c.textEnd, int(t.endByte))
				continue
			}
		}
		start := bytes.LastIndexByte(src[:t.startByte], '\n') + 1
		out = append(out, chunk{first: i, last: i, startRow: int(t.startRow), endRow: int(t.endRow), textStart: start, textEnd: int(t.endByte)})
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// errNotChunked sends a file whose partial facts cannot be told apart by
// chunk to a whole extraction (never seen on real code; a safety net).
var errNotChunked = errors.New("facts cross chunks")

// ExtractStructure is Structure(ExtractFrom(x, path, src, base)), computed
// chunk by chunk through cache when x is a chunked extractor (Python):
// only the top-level statements whose text cache does not hold are
// extracted. Other extractors, a nil cache and files with syntax errors
// are extracted whole.
func ExtractStructure(x Extractor, path string, src []byte, base *Tree, cache *ChunkCache) (*FileFacts, *Tree, error) {
	c, ok := x.(chunked)
	if !ok || cache == nil {
		ff, kept, err := ExtractFrom(x, path, src, base)
		return Structure(ff), kept, err
	}
	e := c.engine()
	return e.from(base, func() (*FileFacts, error) { return e.extractChunked(path, src, c.passes, cache) })
}

// extractChunked is extract for ExtractStructure: the tree is parsed
// whole and copied out for the first chunk (a Python module's docstring
// is its first statement) and the chunks cache does not hold.
func (e *engine) extractChunked(path string, src []byte, passes func(f *file, root *node), cache *ChunkCache) (*FileFacts, error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	root, err := e.parse(path, src, []uint8{}) // the root alone
	if err != nil {
		return nil, err
	}
	return e.guarded(path, func() (*FileFacts, error) {
		whole := func() *FileFacts { return Structure(e.passesOver(path, src, e.tree.flatten(nil), passes)) }
		if root.HasError() {
			return whole(), nil
		}
		e.tops = e.tree.tops(e.tops)
		chunks := chunksOf(e.tops, src)
		if chunks == nil {
			return whole(), nil
		}
		got := make([]*chunkFacts, len(chunks))
		keys := make([]chunkKey, len(chunks))
		take := make([]uint8, len(e.tops))
		var todo []int
		for i, c := range chunks {
			if i > 0 {
				keys[i] = keyOfChunk(e.name, src[c.textStart:c.textEnd])
				if got[i] = cache.get(keys[i]); got[i] != nil {
					cache.hits.Add(1)
					continue
				}
				cache.misses.Add(1)
			}
			todo = append(todo, i)
			for j := c.first; j <= c.last; j++ {
				take[j] = 1
			}
		}
		part := Structure(e.passesOver(path, src, e.tree.flatten(take), passes))
		split, err := splitByChunk(part, chunks, todo)
		if err != nil {
			return whole(), nil
		}
		for k, i := range todo {
			got[i] = split[k]
			if i > 0 {
				cache.put(keys[i], split[k])
			}
		}
		return assemble(path, e.name, chunks, got), nil
	})
}

// keyOfChunk is the cache key of a chunk's text in a language.
func keyOfChunk(language string, text []byte) chunkKey {
	h := sha256.New()
	h.Write([]byte(language))
	h.Write([]byte{0})
	h.Write(text)
	var k chunkKey
	h.Sum(k[:0])
	return k
}

// splitByChunk divides the facts of the chunks todo (indexes in chunks,
// in order), extracted together, into each one's.
func splitByChunk(ff *FileFacts, chunks []chunk, todo []int) ([]*chunkFacts, error) {
	out := make([]*chunkFacts, len(todo))
	for k := range out {
		out[k] = &chunkFacts{}
	}
	// which finds the chunk of todo holding line (1-based): lines only
	// grow along each list, so a cursor per list would do, but the lists
	// are short and a search keeps it obviously right.
	which := func(line int) int {
		row := line - 1
		for k, i := range todo {
			if chunks[i].startRow <= row && row <= chunks[i].endRow {
				return k
			}
		}
		return -1
	}
	symChunk := make([]int, len(ff.Symbols)) // symbol -> its k
	symIndex := make([]int, len(ff.Symbols)) // symbol -> its index in its chunk
	for i, s := range ff.Symbols {
		k := which(s.StartLine)
		if k < 0 || s.Parent >= i || s.Parent >= 0 && symChunk[s.Parent] != k {
			return nil, errNotChunked
		}
		c := out[k]
		symChunk[i], symIndex[i] = k, len(c.symbols)
		s.StartLine -= chunks[todo[k]].startRow
		s.EndLine -= chunks[todo[k]].startRow
		if s.Parent >= 0 {
			s.Parent = symIndex[s.Parent]
		}
		c.symbols = append(c.symbols, s)
	}
	// symbolIn maps a symbol of ff to its index in chunk k, -1 staying -1.
	symbolIn := func(sym, k int) (int, bool) {
		if sym < 0 {
			return -1, true
		}
		if sym >= len(symChunk) || symChunk[sym] != k {
			return 0, false
		}
		return symIndex[sym], true
	}
	// at is the chunk of a fact at line, whose symbol (nil: none) it
	// numbers within that chunk.
	at := func(line int, sym *int) (int, error) {
		k := which(line)
		if k < 0 {
			return 0, errNotChunked
		}
		if sym != nil {
			var ok bool
			if *sym, ok = symbolIn(*sym, k); !ok {
				return 0, errNotChunked
			}
		}
		return k, nil
	}
	for _, d := range ff.Docstrings {
		k, err := at(d.Line, &d.Symbol)
		if err != nil {
			return nil, err
		}
		d.Line -= chunks[todo[k]].startRow
		out[k].docstrings = append(out[k].docstrings, d)
	}
	for _, im := range ff.Imports {
		k, err := at(im.Line, nil)
		if err != nil {
			return nil, err
		}
		im.Line -= chunks[todo[k]].startRow
		out[k].imports = append(out[k].imports, im)
	}
	for _, r := range ff.References {
		k, err := at(r.Line, &r.Symbol)
		if err != nil {
			return nil, err
		}
		r.Line -= chunks[todo[k]].startRow
		out[k].refs = append(out[k].refs, r)
	}
	for _, c := range out {
		c.size = c.estimate()
	}
	return out, nil
}

// assemble puts the file's facts together from its chunks' in order.
func assemble(path, language string, chunks []chunk, got []*chunkFacts) *FileFacts {
	ff := &FileFacts{Path: path, Language: language, Symbols: []Symbol{}} // as finish makes them
	for i, c := range got {
		row, base := chunks[i].startRow, len(ff.Symbols)
		sym := func(s int) int {
			if s < 0 {
				return s
			}
			return s + base
		}
		for _, s := range c.symbols {
			s.StartLine += row
			s.EndLine += row
			s.Parent = sym(s.Parent)
			ff.Symbols = append(ff.Symbols, s)
		}
		for _, d := range c.docstrings {
			d.Symbol, d.Line = sym(d.Symbol), d.Line+row
			ff.Docstrings = append(ff.Docstrings, d)
		}
		for _, im := range c.imports {
			im.Line += row
			ff.Imports = append(ff.Imports, im)
		}
		for _, r := range c.refs {
			r.Symbol, r.Line = sym(r.Symbol), r.Line+row
			ff.References = append(ff.References, r)
		}
	}
	return ff
}

// estimate is roughly the memory c holds, in bytes.
func (c *chunkFacts) estimate() int64 {
	n := int64(unsafe.Sizeof(*c))
	for _, s := range c.symbols {
		n += int64(unsafe.Sizeof(s)) + int64(len(s.Name)+len(s.Signature)+len(s.Receiver))
	}
	for _, d := range c.docstrings {
		n += int64(unsafe.Sizeof(d)) + int64(len(d.Content)+len(d.Fields.Summary))
		for _, p := range d.Fields.Params {
			n += int64(unsafe.Sizeof(p)) + int64(len(p.Name)+len(p.Type)+len(p.Description))
		}
		for _, r := range d.Fields.Raises {
			n += int64(unsafe.Sizeof(r)) + int64(len(r.Type)+len(r.Description))
		}
	}
	for _, im := range c.imports {
		n += int64(unsafe.Sizeof(im)) + int64(len(im.Module)+len(im.Alias))
		for _, nm := range im.Names {
			n += int64(unsafe.Sizeof(nm)) + int64(len(nm.Name)+len(nm.Alias))
		}
	}
	for _, r := range c.refs {
		n += int64(unsafe.Sizeof(r)) + int64(len(r.Name))
	}
	return n
}
