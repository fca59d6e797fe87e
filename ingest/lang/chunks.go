package lang

// Chunked extraction: a file's next version mostly repeats the top-level
// statements of the last one, and of the classes it changed, most
// members. Only what changed is parsed (the rest is blanked out, see
// regions.go and members.go), and only the statements whose text is new
// are copied out of C and extracted; the facts of the others are those
// they had, or those a cache keyed by their text holds, moved to where
// they now stand.
//
// A top-level statement parsed at the top level of a file without a
// syntax error is the same subtree wherever that text stands, so its
// facts, counted from its first line, are too; so is a class's member in
// a class's body. What depends on more than one statement (a Python
// module variable a function mutates, a comment block spread over
// statements) is left out: these are the structural facts (Structure),
// which is what replaying a history needs. The facts must be a whole
// parse's, stripped the same way, byte for byte: tests compare the two
// over edits of every kind and over real histories (ingest/lang's chunk
// tests and bootstrap's parity test).

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"errors"
	"slices"
	"sort"
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
	// Statements taken from the cache and extracted, and runs of chunks
	// and members kept from the last version (regions.go), for the tests.
	hits, misses, kept atomic.Int64
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
	// members are a class's, when the chunk is a class statement
	// (members.go): the facts above again, member by member.
	members []member
	size    int64 // estimate of the memory it holds
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
// (a comment belongs to the statement below it) and none of the rows cuts
// (sorted: the runs blanked out, see regions.go) lies between them.
func chunksOf(tops []topNode, src []byte, cuts []int) []chunk {
	var out []chunk
	for i, t := range tops {
		if i > 0 {
			if p := tops[i-1]; t.startRow <= p.endRow || (p.extra != 0 || p.named == 0) && !between(cuts, int(p.endRow), int(t.startRow)) {
				c := &out[len(out)-1]
				c.last, c.endRow, c.textEnd = i, max(c.endRow, int(t.endRow)), max(c.textEnd, int(t.endByte))
				continue
			}
		}
		start := bytes.LastIndexByte(src[:t.startByte], '\n') + 1
		out = append(out, chunk{first: i, last: i, startRow: int(t.startRow), endRow: int(t.endRow), textStart: start, textEnd: int(t.endByte)})
	}
	return out
}

// between tells whether one of the sorted rows lies strictly between
// rows a and b.
func between(rows []int, a, b int) bool {
	i := sort.SearchInts(rows, a+1)
	return i < len(rows) && rows[i] < b
}

// errNotChunked sends a file whose partial facts cannot be told apart by
// chunk to a whole extraction (never seen on real code; a safety net).
var errNotChunked = errors.New("facts cross chunks")

// errRuns sends a file to a parse from scratch when what was parsed
// around its blanked runs is not what a whole parse gives (regions.go).
var errRuns = errors.New("the blanked runs do not stand apart")

// ExtractStructure is Structure(ExtractFrom(x, path, src, base)), computed
// chunk by chunk through cache when x is a chunked extractor (Python):
// only what changed since base (an earlier version) is parsed
// (regions.go), and only the top-level statements whose text cache does
// not hold are extracted. The tree it returns then holds no tree-sitter
// tree, only the chunks. Other extractors and a nil cache parse from
// base's tree, and files with syntax errors are extracted whole.
func ExtractStructure(x Extractor, path string, src []byte, base *Tree, cache *ChunkCache) (*FileFacts, *Tree, error) {
	c, ok := x.(chunked)
	if !ok || cache == nil {
		ff, kept, err := ExtractFrom(x, path, src, base)
		return Structure(ff), kept, err
	}
	return c.engine().extractChunked(path, src, base, c.passes, cache)
}

// extractChunked is ExtractStructure for a chunked extractor: from base's
// chunks when they are of e's language and some stay whole, else from
// scratch.
func (e *engine) extractChunked(path string, src []byte, base *Tree, passes func(f *file, root *node), cache *ChunkCache) (*FileFacts, *Tree, error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	cur := newSource(src)
	if base != nil && base.language == e.name && base.parts != nil {
		if runs := regions(newSource(base.src), base.parts, cur); len(runs) > 0 {
			ff, parts, err := e.extractRuns(path, cur, runs, passes, cache)
			if !errors.Is(err, errRuns) {
				return ff, e.keepParts(src, parts), err
			}
		}
	}
	ff, parts, err := e.extractRuns(path, cur, nil, passes, cache)
	return ff, e.keepParts(src, parts), err
}

// keepParts is the tree a later version is parsed from: src and its
// parts (nil: none to keep).
func (e *engine) keepParts(src []byte, parts []part) *Tree {
	if parts == nil {
		return nil
	}
	return &Tree{language: e.name, src: bytes.Clone(src), parts: parts}
}

// extractRuns parses cur with runs blanked out (none: from scratch) and
// returns its facts and its parts: the chunks parsed, extracted or taken
// from cache when it holds their text, and the runs with the facts they
// had. The file's first chunk is always extracted (a module's docstring
// is its first statement). With runs, errRuns tells that they do not
// stand apart; from scratch, a file that cannot be chunked is extracted
// whole, with no parts.
func (e *engine) extractRuns(path string, cur source, runs []keep, passes func(f *file, root *node), cache *ChunkCache) (*FileFacts, []part, error) {
	text := cur.src
	if len(runs) > 0 {
		text = blanked(cur, runs)
	}
	root, err := e.parse(path, text, []uint8{}) // the root alone
	if err != nil {
		return nil, nil, err
	}
	var ff *FileFacts
	var parts []part
	_, err = e.guarded(path, func() (*FileFacts, error) {
		whole := func() error {
			if len(runs) > 0 {
				return errRuns
			}
			ff = Structure(e.passesOver(path, text, e.tree.flatten(nil), passes, true))
			return nil
		}
		if root.HasError() {
			return nil, whole()
		}
		e.tops = e.tree.tops(e.tops)
		chunks := chunksOf(e.tops, text, starts(runs))
		members, kept, ok := place(chunks, e.tops, runs)
		if !ok {
			return nil, errRuns
		}
		got := make([]*chunkFacts, len(chunks))
		keys := make([]chunkKey, len(chunks))
		take := make([]uint8, len(e.tops))
		var todo []int
		cached := func(i int) bool { return i > 0 && len(members[i]) == 0 }
		for i, c := range chunks {
			if cached(i) {
				keys[i] = keyOfChunk(e.name, text[c.textStart:c.textEnd])
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
		if len(todo) > 0 {
			root := e.tree.flatten(take)
			facts := Structure(e.passesOver(path, text, root, passes, true))
			split, err := splitByChunk(facts, chunks, todo)
			if err != nil {
				return nil, whole()
			}
			for k, i := range todo {
				cf, err := withMembers(split[k], classBody(root, e.tops, chunks[i]), chunks[i], members[i])
				if err != nil {
					return nil, errRuns
				}
				got[i] = cf
				if cached(i) {
					cache.put(keys[i], cf)
				}
			}
		}
		for i, c := range chunks {
			end := c.endRow
			for _, m := range members[i] {
				end = max(end, m.end)
			}
			parts = append(parts, part{startRow: c.startRow, endRow: end, facts: got[i]})
		}
		for _, k := range kept {
			parts = append(parts, part{startRow: k.start, endRow: k.end, facts: k.facts})
		}
		cache.kept.Add(int64(len(runs)))
		slices.SortFunc(parts, func(a, b part) int { return a.startRow - b.startRow })
		ff = assemble(path, e.name, parts)
		return nil, nil
	})
	return ff, parts, err
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
func assemble(path, language string, parts []part) *FileFacts {
	ff := &FileFacts{Path: path, Language: language, Symbols: []Symbol{}} // as finish makes them
	for _, p := range parts {
		c, row, base := p.facts, p.startRow, len(ff.Symbols)
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
	for _, m := range c.members {
		n += int64(unsafe.Sizeof(m)) + m.facts.estimate()
	}
	return n
}
