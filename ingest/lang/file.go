package lang

import (
	"sort"
	"strings"
	"unsafe"
)

// file is the state of one Extract call.
type file struct {
	// structural: only Structure's facts are wanted, so finish builds no
	// comments and gives no symbol its raises and mutations.
	structural bool

	src   []byte
	str   string // src as a string, sharing its bytes: text slices it rather than copy
	facts *FileFacts

	syms  []declared // parallel to facts.Symbols once finishSymbols ran
	start []uint32   // syms' start offsets, for enclosing()

	docComments map[uint32]bool // start offsets of comments used as docstrings
	comments    []rawComment
	cands       []candidate
	locals      map[local]int32         // names bound inside a symbol: the last of their scopes
	scopes      []scope                 // of locals, each linked to the one bound before it
	globals     map[int]map[string]bool // Python `global` names of a function
	moduleVars  map[string]bool         // module-level variable names
	depth       int                     // recursion depth of the tree helpers
}

// maxDepth bounds the recursive tree helpers: a 2 MiB file can nest a
// million levels deep, and nothing worth extracting is that deep.
const maxDepth = 64

// enter counts one level of recursion; it returns false past maxDepth.
// A true enter must be paired with leave.
func (f *file) enter() bool {
	if f.depth >= maxDepth {
		return false
	}
	f.depth++
	return true
}

func (f *file) leave() { f.depth-- }

// declared is a symbol with the tree nodes it came from.
type declared struct {
	sym        Symbol
	start, end uint32 // span used to find enclosing symbols
	node       *node  // the declaration (function_definition, type_spec...)
	outer      *node  // the statement whose preceding comments document it
	container  int    // structurally enclosing symbol, -1 at top level
}

// candidate is a fact that can only be kept once the whole file is seen:
// whether a name is local or module-level depends on code after it.
type candidate struct {
	sym        int
	at         uint32 // where root is used
	raise      bool   // a raise (Raises) rather than a mutation (Mutates)
	name       string // what is recorded
	root       string // identifier that must not be local ("" = no check)
	needModule bool   // root must be a module-level variable or declared global
	needGlobal bool   // root must be declared global in the function (Python)
}

func newFile(path, language string, src []byte) *file {
	return &file{
		src:         src,
		str:         unsafe.String(unsafe.SliceData(src), len(src)), // read only while the file is extracted; own copies what facts keep
		facts:       &FileFacts{Path: path, Language: language},
		docComments: map[uint32]bool{},
		locals:      map[local]int32{},
		globals:     map[int]map[string]bool{},
		moduleVars:  map[string]bool{},
	}
}

func (f *file) typ(n *node) string { return typeOf(n) }

func (f *file) text(n *node) string {
	if n == nil {
		return ""
	}
	s, e := n.start, n.end
	if int(e) > len(f.src) || s > e {
		return ""
	}
	return f.str[s:e]
}

// own returns s made valid UTF-8 and, if it is part of the file's source
// string, copied: facts outlive the file (a bootstrap run caches them) and
// must not keep all of its source alive.
func (f *file) own(s string) string {
	s = valid(s)
	if s == "" {
		return ""
	}
	p, base := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(f.str)))
	if base <= p && p < base+uintptr(len(f.str)) {
		return strings.Clone(s)
	}
	return s
}

// declare records a symbol. spanNode covers the symbol (decorators and
// export included), sigStart is where its signature line starts.
func (f *file) declare(name, kind string, spanNode *node, sigStart uint32, decl, outer *node) {
	if name == "" || spanNode == nil {
		return
	}
	f.syms = append(f.syms, declared{
		sym: Symbol{
			Name:      name,
			Kind:      kind,
			StartLine: line(spanNode),
			EndLine:   endLine(spanNode),
			Signature: lineFrom(f.src, sigStart, spanNode.EndByte()),
			Parent:    -1,
		},
		start: spanNode.StartByte(),
		end:   spanNode.EndByte(),
		node:  decl,
		outer: outer,
	})
}

// finishSymbols orders symbols by position and links each to the symbol that
// contains it. Symbols with identical spans (a, b = 1, 2) are siblings.
func (f *file) finishSymbols() {
	s := f.syms
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].start != s[j].start {
			return s[i].start < s[j].start
		}
		return s[i].end > s[j].end
	})
	var stack []int
	f.start = make([]uint32, len(s))
	for i := range s {
		for len(stack) > 0 {
			t := s[stack[len(stack)-1]]
			if t.start <= s[i].start && s[i].end <= t.end && (t.start != s[i].start || t.end != s[i].end) {
				break
			}
			stack = stack[:len(stack)-1]
		}
		s[i].container = -1
		if len(stack) > 0 {
			s[i].container = stack[len(stack)-1]
		}
		s[i].sym.Parent = s[i].container
		stack = append(stack, i)
		f.start[i] = s[i].start
	}
}

// enclosing returns the innermost symbol whose span holds offset off, or -1.
func (f *file) enclosing(off uint32) int {
	i := sort.Search(len(f.start), func(i int) bool { return f.start[i] > off }) - 1
	for i >= 0 {
		if d := f.syms[i]; d.start <= off && off < d.end {
			return i
		}
		i = f.syms[i].container
	}
	return -1
}

// enclosingFunc returns the innermost function or method holding off, or -1.
func (f *file) enclosingFunc(off uint32) int {
	for i := f.enclosing(off); i >= 0; i = f.syms[i].container {
		if k := f.syms[i].sym.Kind; k == KindFunction || k == KindMethod {
			return i
		}
	}
	return -1
}

func (f *file) addRef(sym int, kind, name string, n *node) {
	if name == "" {
		return
	}
	f.facts.References = append(f.facts.References, Reference{Symbol: sym, Kind: kind, Name: name, Line: line(n)})
}

// addRaise and addMutate go through candidates so that facts kept only
// after checks stay in source order with the unconditional ones.
func (f *file) addRaise(sym int, name string) {
	f.candidate(candidate{sym: sym, raise: true, name: name})
}

func (f *file) addMutate(sym int, name string) {
	f.candidate(candidate{sym: sym, name: name})
}

func (f *file) addErrorString(sym int, msg string) {
	if sym >= 0 {
		f.syms[sym].sym.ErrorStrings = appendUnique(f.syms[sym].sym.ErrorStrings, truncate(msg, maxErrorString))
	}
}

// literalArgs records a call's first argument that literal reads as a
// string: the message of an error or log call (later literals are format
// arguments or structured-logging keys).
func (f *file) literalArgs(sym int, args *node, literal func(*node) (string, bool)) {
	for _, a := range namedChildren(args) {
		if s, ok := literal(a); ok {
			f.addErrorString(sym, s)
			return
		}
	}
}

// local is a name bound inside a symbol.
type local struct {
	sym  int
	name string
}

// scope is the byte range a local binding is visible in, and the index in
// file.scopes of the same local's previous scope (-1 for none).
type scope struct {
	start, end uint32
	prev       int32
}

// addLocal binds name in sym, visible inside the scope node (a block, a
// for statement, a function literal) or, when scope is nil, in all of sym.
func (f *file) addLocal(sym int, name string, in *node) {
	if sym < 0 || name == "" {
		return
	}
	k := local{sym, name}
	s := scope{0, ^uint32(0), -1}
	if in != nil {
		s.start, s.end = in.StartByte(), in.EndByte()
	}
	if prev, ok := f.locals[k]; ok {
		s.prev = prev
	}
	f.locals[k] = int32(len(f.scopes))
	f.scopes = append(f.scopes, s)
}

func (f *file) addGlobal(sym int, name string) {
	if sym < 0 {
		return
	}
	m := f.globals[sym]
	if m == nil {
		m = map[string]bool{}
		f.globals[sym] = m
	}
	m[name] = true
}

// isLocal reports whether name, used at offset at, is bound in sym or a
// symbol around it.
func (f *file) isLocal(sym int, name string, at uint32) bool {
	for ; sym >= 0; sym = f.syms[sym].container {
		i, ok := f.locals[local{sym, name}]
		for ok && i >= 0 {
			if s := f.scopes[i]; s.start <= at && at < s.end {
				return true
			}
			i = f.scopes[i].prev
		}
	}
	return false
}

func (f *file) candidate(c candidate) {
	if c.sym >= 0 && c.name != "" {
		f.cands = append(f.cands, c)
	}
}

// comment records a comment node for buildComments.
func (f *file) comment(n *node) {
	text, block := commentText(f.text(n))
	f.comments = append(f.comments, rawComment{
		start:   n.StartByte(),
		line:    line(n),
		endLine: endLine(n),
		col:     int(n.StartPoint().Column),
		own:     ownLine(f.src, n.StartByte()),
		block:   block,
		text:    text,
	})
}

// finish resolves candidates, builds comments and returns the facts.
func (f *file) finish(root *node) *FileFacts {
	if f.structural {
		f.cands, f.comments = nil, nil
	}
	for _, c := range f.cands {
		global := f.globals[c.sym][c.root]
		switch {
		case c.needGlobal && !global:
			continue
		case c.root != "" && !global && f.isLocal(c.sym, c.root, c.at):
			continue
		case c.needModule && !global && !f.moduleVars[c.root]:
			continue
		}
		d := &f.syms[c.sym].sym
		if c.raise {
			d.Raises = appendUnique(d.Raises, c.name)
		} else {
			d.Mutates = appendUnique(d.Mutates, c.name)
		}
	}
	f.buildComments()
	f.facts.Symbols = make([]Symbol, len(f.syms))
	for i, d := range f.syms {
		f.facts.Symbols[i] = d.sym
	}
	refs := f.facts.References
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].Line < refs[j].Line })
	sort.SliceStable(f.facts.Docstrings, func(i, j int) bool { return f.facts.Docstrings[i].Line < f.facts.Docstrings[j].Line })
	f.facts.ErrorNodes = countErrors(root)
	sanitize(f.facts, f.own)
	return f.facts
}
