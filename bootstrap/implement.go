package bootstrap

import (
	"bytes"
	"fmt"

	"github.com/cra-dev/cra/kb/schema"
)

// buildImplement returns the parent content of every changed file and the
// search/replace edits that turn it into the child content, verified by
// applying them: an error means the edits do not reproduce the commit
// byte for byte, and the commit is not stored as ground truth.
func buildImplement(changes []*fileChange) (schema.ImplementTarget, error) {
	t := schema.ImplementTarget{Files: []schema.ImplementFile{}, Edits: []schema.Edit{}}
	for _, c := range changes {
		t.Files = append(t.Files, schema.ImplementFile{Path: c.path, Content: string(c.parent), Created: c.created, Deleted: c.deleted})
		edits, err := hunkEdits(c.path, c.parent, c.child, c.hunks)
		if err != nil {
			return t, fmt.Errorf("%s: %w", c.path, err)
		}
		got, err := schema.ApplyEdits(c.parent, edits)
		if err != nil {
			return t, fmt.Errorf("%s: %w", c.path, err)
		}
		if !bytes.Equal(got, c.child) {
			return t, fmt.Errorf("%s: the edits give %d bytes, the commit has %d", c.path, len(got), len(c.child))
		}
		t.Edits = append(t.Edits, edits...)
	}
	return t, nil
}
