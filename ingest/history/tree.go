package history

import (
	"bytes"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// Canonical tree entry modes, as git normalises them before comparing
// (an old 100664 file is a 100644 file; anything unknown is a gitlink).
const (
	modeNone    uint32 = 0
	modeDir     uint32 = 0o040000
	modeFile    uint32 = 0o100644
	modeExec    uint32 = 0o100755
	modeSymlink uint32 = 0o120000
	modeGitlink uint32 = 0o160000
)

func canonMode(m uint32) uint32 {
	switch m & 0o170000 {
	case 0o100000:
		if m&0o100 != 0 {
			return modeExec
		}
		return modeFile
	case 0o120000:
		return modeSymlink
	case 0o040000:
		return modeDir
	}
	return modeGitlink
}

// entry is one tree entry; name points into the tree's buffer.
type entry struct {
	name []byte
	mode uint32
	hash plumbing.Hash
}

// side is one side of a changed path; mode is modeNone when the path is
// absent on that side.
type side struct {
	mode uint32
	hash plumbing.Hash
}

// change is a path whose mode or content differs between two trees.
type change struct {
	path     string
	from, to side
}

// treeLevel holds the two trees being compared at one depth, so that the
// recursion reuses buffers instead of allocating per tree.
type treeLevel struct {
	buf     [2][]byte
	entries [2][]entry
}

// treeDiffer compares trees by hash, reading only subtrees that differ.
type treeDiffer struct {
	objs   *objects
	levels []*treeLevel
}

// diff appends the changed paths between trees a and b (either may be the
// zero hash: the empty tree) to out, in tree order.
func (td *treeDiffer) diff(a, b plumbing.Hash, out []change) ([]change, error) {
	return td.diffAt(0, "", a, b, out)
}

func (td *treeDiffer) diffAt(depth int, prefix string, a, b plumbing.Hash, out []change) ([]change, error) {
	if depth == len(td.levels) {
		td.levels = append(td.levels, &treeLevel{})
	}
	lv := td.levels[depth]
	for i, h := range [2]plumbing.Hash{a, b} {
		if err := td.load(lv, i, h); err != nil {
			return out, err
		}
	}
	ea, eb := lv.entries[0], lv.entries[1]
	var err error
	for i, j := 0, 0; i < len(ea) || j < len(eb); {
		var c int
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = compareEntries(&ea[i], &eb[j])
		}
		switch {
		case c < 0:
			out, err = td.oneSided(depth, prefix, &ea[i], true, out)
			i++
		case c > 0:
			out, err = td.oneSided(depth, prefix, &eb[j], false, out)
			j++
		default:
			x, y := &ea[i], &eb[j]
			i++
			j++
			if x.hash == y.hash && x.mode == y.mode {
				continue
			}
			if x.mode == modeDir { // and so is y: entries compare equal only if both are trees or both are not
				out, err = td.diffAt(depth+1, prefix+string(x.name)+"/", x.hash, y.hash, out)
			} else {
				out = append(out, change{
					path: prefix + string(x.name),
					from: side{x.mode, x.hash},
					to:   side{y.mode, y.hash},
				})
			}
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// oneSided records an entry present in only one tree: a file added or
// removed, or every file under an added or removed directory.
func (td *treeDiffer) oneSided(depth int, prefix string, e *entry, removed bool, out []change) ([]change, error) {
	if e.mode == modeDir {
		a, b := e.hash, plumbing.ZeroHash
		if !removed {
			a, b = b, a
		}
		return td.diffAt(depth+1, prefix+string(e.name)+"/", a, b, out)
	}
	c := change{path: prefix + string(e.name)}
	if removed {
		c.from = side{e.mode, e.hash}
	} else {
		c.to = side{e.mode, e.hash}
	}
	return append(out, c), nil
}

// load reads tree h into slot i of lv; the zero hash is the empty tree.
func (td *treeDiffer) load(lv *treeLevel, i int, h plumbing.Hash) error {
	lv.entries[i] = lv.entries[i][:0]
	if h.IsZero() {
		return nil
	}
	obj, err := td.objs.object(plumbing.TreeObject, h)
	if err != nil {
		return err
	}
	lv.buf[i], err = readAll(obj, lv.buf[i])
	if err != nil {
		return err
	}
	lv.entries[i], err = parseTree(lv.buf[i], lv.entries[i])
	if err != nil {
		return fmt.Errorf("tree %s: %w", h, err)
	}
	return nil
}

// parseTree appends the entries of a raw tree object ("<octal mode>
// <name>\0<20-byte hash>" repeated) to out.
func parseTree(data []byte, out []entry) ([]entry, error) {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return out, fmt.Errorf("malformed entry mode")
		}
		var mode uint32
		for _, c := range data[:sp] {
			if c < '0' || c > '7' {
				return out, fmt.Errorf("malformed entry mode %q", data[:sp])
			}
			mode = mode<<3 | uint32(c-'0')
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+len(plumbing.Hash{}) {
			return out, fmt.Errorf("truncated entry")
		}
		e := entry{name: data[:nul:nul], mode: canonMode(mode)}
		copy(e.hash[:], data[nul+1:])
		out = append(out, e)
		data = data[nul+1+len(e.hash):]
	}
	return out, nil
}

// compareEntries orders entries as git sorts trees: by name, a directory
// sorting as if its name ended in '/'. A file and a directory of the same
// name are different entries (git shows a deletion and additions).
func compareEntries(a, b *entry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	ca, cb := nameEnd(a, n), nameEnd(b, n)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

func nameEnd(e *entry, n int) byte {
	if n < len(e.name) {
		return e.name[n]
	}
	if e.mode == modeDir {
		return '/'
	}
	return 0
}
