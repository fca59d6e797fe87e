package lang

// Class members: a Python class is one top-level statement, often most of
// a file, and a version mostly changes a method or two of it. A class
// chunk's facts are also kept member by member, so that a later version
// parses the class's header and the members that changed, and takes the
// others' facts (regions.go). A member's facts depend on nothing outside
// it but the class that holds it (a function in a class is a method),
// which they name as classSymbol.

import (
	"sort"
)

// place finds, for each run blanked out of the text chunks were parsed
// from, where it goes: a chunk's run is kept as a part of its own, a
// member's belongs to the chunk above it. ok is false when a statement
// parsed reaches into a chunk's run or a chunk other than the member's
// begins inside it.
func place(chunks []chunk, tops []topNode, runs []keep) (members [][]keep, kept []keep, ok bool) {
	members = make([][]keep, len(chunks))
	for _, k := range runs {
		if k.indent == 0 {
			i := sort.Search(len(tops), func(i int) bool { return int(tops[i].endRow) >= k.start })
			if i < len(tops) && int(tops[i].startRow) <= k.end {
				return nil, nil, false
			}
			kept = append(kept, k)
			continue
		}
		i := sort.Search(len(chunks), func(i int) bool { return chunks[i].startRow >= k.start }) - 1
		if i < 0 || i+1 < len(chunks) && chunks[i+1].startRow <= k.end {
			return nil, nil, false
		}
		members[i] = append(members[i], k)
	}
	return members, kept, true
}

// classBody is the body of the class statement of chunk c, nil when c is
// no class statement or the class is on one line. root is the tree
// flattened with c's nodes.
func classBody(root *node, tops []topNode, c chunk) *node {
	var stmt *node
	for j := c.first; j <= c.last; j++ {
		t := tops[j]
		if t.named == 0 || t.extra != 0 {
			continue
		}
		if stmt != nil {
			return nil // two statements on a line
		}
		for _, k := range root.kids {
			if k.start == t.startByte {
				stmt = k
				break
			}
		}
		if stmt == nil {
			return nil
		}
	}
	if typeOf(stmt) == "decorated_definition" {
		stmt = child(stmt, "definition")
	}
	if typeOf(stmt) != "class_definition" {
		return nil
	}
	body := child(stmt, "body")
	if body == nil || body.startRow <= stmt.startRow || len(body.kids) == 0 {
		return nil
	}
	return body
}

// memberRows groups the children of a class body as chunksOf groups the
// top-level nodes, in rows counted from row.
func memberRows(body *node, row int, cuts []int) []member {
	var out []member
	for i, k := range body.kids {
		if i > 0 {
			if p := body.kids[i-1]; k.startRow <= p.endRow || (p.IsExtra() || !p.IsNamed()) && !between(cuts, int(p.endRow), int(k.startRow)) {
				m := &out[len(out)-1]
				m.endRow = max(m.endRow, int(k.endRow)-row)
				continue
			}
		}
		out = append(out, member{startRow: int(k.startRow) - row, endRow: int(k.endRow) - row})
	}
	return out
}

// withMembers is cf, the facts of chunk c extracted from a tree where the
// runs of members kept were blanked out of the class body body (nil: c is
// no class), completed with them and with its members'. It fails when a
// run does not sit between the statements of the body, at their
// indentation, below the first.
func withMembers(cf *chunkFacts, body *node, c chunk, kept []keep) (*chunkFacts, error) {
	if body == nil {
		if len(kept) > 0 {
			return nil, errRuns
		}
		return cf, nil
	}
	parsed := memberRows(body, c.startRow, starts(kept))
	first := firstStatement(body)
	for _, k := range kept {
		if first == nil {
			return nil, errRuns
		}
		if k.start <= int(first.startRow) || k.indent != int(first.startCol) {
			return nil, errRuns
		}
		for _, m := range parsed {
			if m.startRow+c.startRow <= k.end && m.endRow+c.startRow >= k.start {
				return nil, errRuns
			}
		}
	}
	own, cs, err := splitMembers(cf, parsed)
	if err != nil {
		if len(kept) > 0 {
			return nil, errRuns
		}
		return cf, nil // a class kept whole only
	}
	if len(kept) == 0 {
		cf.members = parsed
		cf.size = cf.estimate()
		return cf, nil
	}
	all := parsed
	for _, k := range kept {
		all = append(all, member{startRow: k.start - c.startRow, endRow: k.end - c.startRow, facts: k.facts})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].startRow < all[j].startRow })
	return classFacts(own, cs, all), nil
}

// splitMembers divides cf, the facts of a class chunk, into its own (the
// class's header: the class symbol cs, its docstring-less facts) and each
// member's, filling the facts of members.
func splitMembers(cf *chunkFacts, members []member) (own *chunkFacts, cs int, err error) {
	which := func(line int) int {
		row := line - 1
		i := sort.Search(len(members), func(i int) bool { return members[i].endRow >= row })
		if i < len(members) && members[i].startRow <= row {
			return i
		}
		return -1
	}
	own = &chunkFacts{}
	for i := range members {
		members[i].facts = &chunkFacts{}
	}
	symIn := make([]int, len(cf.symbols))  // symbol -> its member, -1: own
	symIdx := make([]int, len(cf.symbols)) // symbol -> its index there
	cs = -1
	for i, s := range cf.symbols {
		k := which(s.StartLine)
		symIn[i] = k
		if k < 0 {
			if s.Parent >= 0 && symIn[s.Parent] >= 0 {
				return nil, 0, errNotChunked
			}
			if s.Kind == KindClass && s.Parent == -1 {
				if cs >= 0 {
					return nil, 0, errNotChunked
				}
				cs = len(own.symbols)
			}
			if s.Parent >= 0 {
				s.Parent = symIdx[s.Parent]
			}
			symIdx[i] = len(own.symbols)
			own.symbols = append(own.symbols, s)
			continue
		}
		m := members[k].facts
		switch {
		case s.Parent >= 0 && symIn[s.Parent] == k:
			s.Parent = symIdx[s.Parent]
		case s.Parent >= 0 && symIn[s.Parent] < 0 && symIdx[s.Parent] == cs:
			s.Parent = classSymbol
		default:
			return nil, 0, errNotChunked
		}
		s.StartLine -= members[k].startRow
		s.EndLine -= members[k].startRow
		symIdx[i] = len(m.symbols)
		m.symbols = append(m.symbols, s)
	}
	if cs < 0 {
		return nil, 0, errNotChunked
	}
	// symbolIn maps symbol sym of cf to its number in member k (-1 for
	// own facts), -1 staying -1.
	symbolIn := func(sym, k int) (int, bool) {
		switch {
		case sym < 0:
			return sym, true
		case symIn[sym] == k:
			return symIdx[sym], true
		case k >= 0 && symIn[sym] < 0 && symIdx[sym] == cs:
			return classSymbol, true
		}
		return 0, false
	}
	err = byMember(cf.docstrings, func(d *Docstring) (*int, *int) { return &d.Line, &d.Symbol }, which, symbolIn,
		members, &own.docstrings, func(c *chunkFacts) *[]Docstring { return &c.docstrings })
	if err != nil {
		return nil, 0, err
	}
	for _, im := range cf.imports {
		if k := which(im.Line); k >= 0 {
			im.Line -= members[k].startRow
			members[k].facts.imports = append(members[k].facts.imports, im)
		} else {
			own.imports = append(own.imports, im)
		}
	}
	err = byMember(cf.refs, func(r *Reference) (*int, *int) { return &r.Line, &r.Symbol }, which, symbolIn,
		members, &own.refs, func(c *chunkFacts) *[]Reference { return &c.refs })
	if err != nil {
		return nil, 0, err
	}
	for _, m := range members {
		m.facts.size = m.facts.estimate()
	}
	return own, cs, nil
}

// byMember puts each of facts (whose line and symbol fields gives) in
// own, or in the list of the member which finds for its line, its line
// then counted from the member's first; symbolIn numbers its symbol in
// either.
func byMember[T any](facts []T, fields func(*T) (line, sym *int), which func(int) int, symbolIn func(sym, k int) (int, bool),
	members []member, own *[]T, list func(*chunkFacts) *[]T) error {
	for _, f := range facts {
		line, sym := fields(&f)
		k := which(*line)
		var ok bool
		if *sym, ok = symbolIn(*sym, k); !ok {
			return errNotChunked
		}
		if k < 0 {
			*own = append(*own, f)
			continue
		}
		*line -= members[k].startRow
		l := list(members[k].facts)
		*l = append(*l, f)
	}
	return nil
}

// classFacts puts a class chunk's facts together from its own (with the
// class symbol cs) and its members', in order, which it keeps as the
// chunk's members. The class ends where its last member does.
func classFacts(own *chunkFacts, cs int, members []member) *chunkFacts {
	out := &chunkFacts{
		symbols:    append([]Symbol(nil), own.symbols...),
		docstrings: append([]Docstring(nil), own.docstrings...),
		imports:    append([]Import(nil), own.imports...),
		refs:       append([]Reference(nil), own.refs...),
		members:    members,
	}
	for _, m := range members {
		row, base := m.startRow, len(out.symbols)
		sym := func(s int) int {
			switch {
			case s == classSymbol:
				return cs
			case s < 0:
				return s
			}
			return s + base
		}
		for _, s := range m.facts.symbols {
			s.StartLine += row
			s.EndLine += row
			s.Parent = sym(s.Parent)
			out.symbols = append(out.symbols, s)
		}
		for _, d := range m.facts.docstrings {
			d.Symbol, d.Line = sym(d.Symbol), d.Line+row
			out.docstrings = append(out.docstrings, d)
		}
		for _, im := range m.facts.imports {
			im.Line += row
			out.imports = append(out.imports, im)
		}
		for _, r := range m.facts.refs {
			r.Symbol, r.Line = sym(r.Symbol), r.Line+row
			out.refs = append(out.refs, r)
		}
	}
	if n := len(members); n > 0 {
		out.symbols[cs].EndLine = max(out.symbols[cs].EndLine, members[n-1].endRow+1)
	}
	out.size = out.estimate()
	return out
}

// firstStatement is the first child of body that is no comment.
func firstStatement(body *node) *node {
	for _, k := range body.kids {
		if k.IsNamed() && !k.IsExtra() {
			return k
		}
	}
	return nil
}
