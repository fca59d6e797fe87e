package schema

import (
	"fmt"
	"strings"
)

// EditError says which edit could not apply and why (a patch refused
// whole: nothing was written).
type EditError struct {
	Index  int // 1-based, among the edits given
	File   string
	Reason string
}

func (e *EditError) Error() string {
	return fmt.Sprintf("edit %d of %s: %s", e.Index, e.File, e.Reason)
}

// ApplyEdits applies one file's edits to its content, in order, each to
// the result of the ones before — the one meaning of an Edit, for the
// ground truth bootstrap stores and the patches the agent writes. An empty
// Search creates the content (the file must be empty or absent); any
// other Search must occur exactly once at that point (overlapping
// occurrences count), or it fails with an *EditError naming the edit. A
// file is deleted by an edit whose Search is its whole content and whose
// Replace is empty (DeletesFile).
func ApplyEdits(content []byte, edits []Edit) ([]byte, error) {
	cur := string(content)
	for i, e := range edits {
		if e.Search == "" {
			if cur != "" {
				return nil, &EditError{i + 1, e.File, "empty search on a non-empty file"}
			}
			cur = e.Replace
			continue
		}
		// The first place, and whether the text occurs again from the
		// byte after it: each search reads the content once.
		at := strings.Index(cur, e.Search)
		switch {
		case at < 0:
			return nil, &EditError{i + 1, e.File, "search text not found"}
		case strings.Contains(cur[at+1:], e.Search):
			return nil, &EditError{i + 1, e.File, "search text occurs more than once"}
		}
		cur = cur[:at] + e.Replace + cur[at+len(e.Search):]
	}
	return []byte(cur), nil
}

// DeletesFile reports whether edits delete a file with this content: the
// last edit replaces all that is left of it with nothing.
func DeletesFile(content []byte, edits []Edit) bool {
	if len(edits) == 0 {
		return false
	}
	last := edits[len(edits)-1]
	if last.Replace != "" || last.Search == "" {
		return false // known before applying anything: most edit lists end otherwise
	}
	before, err := ApplyEdits(content, edits[:len(edits)-1])
	return err == nil && last.Search == string(before)
}
