package bootstrap

import (
	"bytes"
	"fmt"

	"github.com/cra-dev/cra/internal/linediff"
	"github.com/cra-dev/cra/kb/schema"
)

// Edits returns search/replace edits that turn parent into child, one per
// hunk (neighbouring hunks merge when their context would overlap), to be
// applied in order, each to the result of the previous ones. An edit's
// Search is the hunk's parent lines plus the fewest whole context lines on
// both sides that make it occur exactly once in the content it applies to;
// Replace is the child lines with the same context. A pure insertion gets
// context too, so that no Search is empty. A file the commit creates
// (parent nil) is one edit with an empty Search; a file it deletes (child
// nil) is one edit whose Search is the whole parent and Replace empty.
func Edits(path string, parent, child []byte) ([]schema.Edit, error) {
	return hunkEdits(path, parent, child, linediff.Hunks(parent, child))
}

// hunkEdits is Edits given the hunks of parent to child.
func hunkEdits(path string, parent, child []byte, hunks []linediff.Hunk) ([]schema.Edit, error) {
	switch {
	case parent == nil && child == nil:
		return nil, nil
	case parent == nil:
		return []schema.Edit{{File: path, Replace: string(child)}}, nil
	case child == nil:
		if len(parent) == 0 {
			return nil, nil
		}
		return []schema.Edit{{File: path, Search: string(parent)}}, nil
	case len(parent) == 0:
		if len(child) == 0 {
			return nil, nil
		}
		return []schema.Edit{{File: path, Replace: string(child)}}, nil
	}
	// Lines [i, j) of a side are side[at[i]:at[j]].
	p, c := linediff.LineStarts(parent), linediff.LineStarts(child)
	nP := len(p) - 1
	var out []schema.Edit
	var cur []byte
	for i := 0; i < len(hunks); {
		// 0-based half-open ranges: parent [aS, aE) becomes child [bS, bE).
		h := hunks[i]
		aS, bS := h.ParentStart-1, h.ChildStart-1
		if h.ParentLines == 0 {
			aS++
		}
		if h.ChildLines == 0 {
			bS++
		}
		aE, bE := aS+h.ParentLines, bS+h.ChildLines
		i++
		// The content this edit applies to: earlier edits done. A Search
		// is the part of it from line lo to line hiP of the parent.
		cur = append(append(cur[:0], child[:c[bS]]...), parent[p[aS]:]...)
		for k := 0; ; k++ {
			// Context after the region must not reach into the next hunk:
			// if it does, the next hunk joins this edit.
			for i < len(hunks) && hunkParentStart(hunks[i]) < aE+k {
				n := hunks[i]
				aE, bE = hunkParentStart(n)+n.ParentLines, hunkChildStart(n)+n.ChildLines
				i++
			}
			lo := max(0, bS-k)     // in child (and current) lines
			hiP := min(nP, aE+k)   // in parent lines
			hiC := bE + (hiP - aE) // the same place in child lines
			search := cur[c[lo] : c[bS]+p[hiP]-p[aS]]
			whole := lo == 0 && hiP == nP
			if len(search) > 0 && (whole || occursOnce(cur, search)) {
				out = append(out, schema.Edit{File: path, Search: string(search), Replace: string(child[c[lo]:c[hiC]])})
				break
			}
			if whole {
				return nil, fmt.Errorf("edits for %s: no context makes the change unique", path)
			}
		}
	}
	return out, nil
}

// occursOnce reports whether sub occurs in s exactly once, overlapping
// occurrences counted: schema.ApplyEdits' rule, on bytes.
func occursOnce(s, sub []byte) bool {
	i := bytes.Index(s, sub)
	return i >= 0 && !bytes.Contains(s[i+1:], sub)
}

// hunkParentStart and hunkChildStart are a hunk's 0-based first line on
// each side (for an empty side, the line its insertion point precedes).
func hunkParentStart(h linediff.Hunk) int {
	if h.ParentLines == 0 {
		return h.ParentStart
	}
	return h.ParentStart - 1
}

func hunkChildStart(h linediff.Hunk) int {
	if h.ChildLines == 0 {
		return h.ChildStart
	}
	return h.ChildStart - 1
}
