package execute

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/cra-dev/cra/agent/pathrule"
	"github.com/cra-dev/cra/kb/schema"
)

// Applied is what a patch changed, paths sorted.
type Applied struct {
	Modified, Created, Deleted []string
}

// Files are every path the patch touched, sorted.
func (a Applied) Files() []string {
	out := slices.Concat(a.Modified, a.Created, a.Deleted)
	slices.Sort(out)
	return out
}

// binaryProbe is how much of a file is read for a NUL byte.
const binaryProbe = 8000

// fileChange is one file's planned change.
type fileChange struct {
	rel, abs string
	before   []byte // nil: the file does not exist
	mode     fs.FileMode
	after    []byte
	deleted  bool
}

// Apply applies a coder's edits to the tree at root. Every edit is checked
// before anything is written: its path passes the worktree rule that
// reads for prompts follow too (pathrule.Root.Path: relative, without "..", not in
// .git, inside root once symbolic links are resolved, not a link); its file
// exists unless the edit creates it (an empty search); it is not binary;
// its search text occurs exactly once in the file as the edits before it
// left it (schema.ApplyEdits: the edits of a file apply in order). A file
// whose edits replace all of it with nothing is deleted (schema.DeletesFile).
// Files are then written atomically (a temporary file renamed over the
// old one, its mode kept); if any write fails, every file of the patch is
// put back as it was. A refused edit is a *schema.EditError.
func Apply(root string, edits []schema.Edit) (Applied, error) {
	wt, err := pathrule.ResolveRoot(root)
	if err != nil {
		return Applied{}, err
	}
	var order []string
	byFile := map[string][]schema.Edit{}
	first := map[string]int{}
	for i, e := range edits {
		rel, reason := pathrule.CleanRel(e.File)
		if reason != "" {
			return Applied{}, &schema.EditError{Index: i + 1, File: e.File, Reason: reason}
		}
		if _, ok := byFile[rel]; !ok {
			order = append(order, rel)
			first[rel] = i + 1
		}
		e.File = rel
		byFile[rel] = append(byFile[rel], e)
	}
	var changes []*fileChange
	for _, rel := range order {
		c, err := plan(wt, rel, byFile[rel])
		if err != nil {
			var ee *schema.EditError
			if errors.As(err, &ee) {
				// Number the edit among all the edits, not the file's.
				n := 0
				for i, e := range edits {
					if p, _ := pathrule.CleanRel(e.File); p == rel {
						if n++; n == ee.Index {
							return Applied{}, &schema.EditError{Index: i + 1, File: e.File, Reason: ee.Reason}
						}
					}
				}
			}
			return Applied{}, &schema.EditError{Index: first[rel], File: rel, Reason: err.Error()}
		}
		changes = append(changes, c)
	}
	var done []*fileChange
	for _, c := range changes {
		if err := c.write(); err != nil {
			for i := len(done) - 1; i >= 0; i-- {
				done[i].restore()
			}
			c.restore()
			return Applied{}, fmt.Errorf("writing %s: %w (every file of the patch is back as it was)", c.rel, err)
		}
		done = append(done, c)
	}
	var out Applied
	for _, c := range changes {
		switch {
		case c.deleted:
			out.Deleted = append(out.Deleted, c.rel)
		case c.before == nil:
			out.Created = append(out.Created, c.rel)
		default:
			out.Modified = append(out.Modified, c.rel)
		}
	}
	for _, l := range [][]string{out.Modified, out.Created, out.Deleted} {
		slices.Sort(l)
	}
	return out, nil
}

// plan reads a file, checks it and computes its new content.
func plan(root pathrule.Root, rel string, edits []schema.Edit) (*fileChange, error) {
	c := &fileChange{rel: rel, mode: 0o644}
	var err error
	if _, c.abs, err = root.Path(rel); err != nil {
		return nil, err
	}
	info, err := os.Lstat(c.abs)
	switch {
	case err == nil && !info.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	case err == nil:
		if c.before, err = os.ReadFile(c.abs); err != nil {
			return nil, err
		}
		c.mode = info.Mode().Perm()
		if bytes.IndexByte(c.before[:min(len(c.before), binaryProbe)], 0) >= 0 {
			return nil, errors.New("a binary file")
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	case edits[0].Search != "":
		return nil, &schema.EditError{Index: 1, File: rel, Reason: "the file does not exist (an edit creating it has an empty search)"}
	}
	if c.after, err = schema.ApplyEdits(c.before, edits); err != nil {
		return nil, err
	}
	c.deleted = c.before != nil && schema.DeletesFile(c.before, edits)
	return c, nil
}

// write puts the new content in place atomically, or removes the file.
func (c *fileChange) write() error {
	if c.deleted {
		return os.Remove(c.abs)
	}
	if err := os.MkdirAll(filepath.Dir(c.abs), 0o755); err != nil {
		return err
	}
	return writeFile(c.abs, c.after, c.mode)
}

// writeFile writes a file of a patch (a test makes it fail).
var writeFile = writeAtomic

// restore puts the file back as it was (best effort: it runs after a
// failure, and reports nothing more).
func (c *fileChange) restore() {
	if c.before == nil {
		_ = os.Remove(c.abs)
		return
	}
	_ = writeAtomic(c.abs, c.before, c.mode)
}

// writeAtomic writes data to a temporary file beside p and renames it over p.
func writeAtomic(p string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".cra-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
