package walk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxLinkTarget bounds the symlink target read from a blob (PATH_MAX).
const maxLinkTarget = 4096

// Tree walks the tree of commit in lexical path order, reading blobs from
// the repository's objects: no checkout is needed and bare repositories
// work. .gitignore does not apply (tracked files are in the tree) but every
// other rule does; symlink entries (mode 120000) are skipped as symlink or
// symlink_outside by resolving the target path lexically within the tree.
// The repository must not be used concurrently during the walk. When it is
// on disk, objects are read through the walk's own storage of the same .git,
// which keeps pack files open until Tree returns (see objectReader).
func Tree(ctx context.Context, repo *git.Repository, commit plumbing.Hash, opts Options, fn func(Entry) error) error {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return fmt.Errorf("walk commit %s: %w", commit, err)
	}
	root, err := c.Tree()
	if err != nil {
		return fmt.Errorf("walk commit %s: tree %s: %w", commit, c.TreeHash, err)
	}
	w := &treeWalker{ctx: ctx, fn: fn, max: opts.maxFileBytes(), repo: repo, objs: newObjectReader(repo), root: root}
	defer w.objs.close()
	if err := w.tree(root, ""); err != nil {
		var fnErr fnError
		if errors.As(err, &fnErr) {
			return fnErr.err
		}
		return err // only ctx.Err() gets here
	}
	return nil
}

type treeWalker struct {
	ctx  context.Context
	fn   func(Entry) error
	max  int64
	repo *git.Repository
	objs *objectReader
	root *object.Tree
}

// subtreeOf reads the tree object h.
func (w *treeWalker) subtreeOf(h plumbing.Hash) (*object.Tree, error) {
	o, err := w.objs.object(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	return object.DecodeTree(w.repo.Storer, o)
}

func (w *treeWalker) emit(e Entry) error {
	if err := w.fn(e); err != nil {
		return fnError{err}
	}
	return nil
}

// tree walks t, whose path from the root is rel ("" or ending with "/").
// Git stores entries sorted with directories keyed as "name/", which is
// lexical path order.
func (w *treeWalker) tree(t *object.Tree, rel string) error {
	for _, te := range t.Entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if te.Name == ".git" {
			continue
		}
		p := rel + te.Name
		var err error
		switch te.Mode {
		case filemode.Dir:
			err = w.subtree(p, te)
		case filemode.Submodule:
			err = w.emit(dirEntry(p, SkipSubmodule, "gitlink to "+te.Hash.String()))
		case filemode.Symlink:
			err = w.symlink(p, te.Hash)
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			err = w.file(p, te.Hash)
		default:
			err = w.emit(finish(fileEntry(p, 0), p, SkipUnreadable, fmt.Sprintf("tree entry mode %o", uint32(te.Mode))))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *treeWalker) subtree(p string, te object.TreeEntry) error {
	if vendorDirs[te.Name] {
		return w.emit(dirEntry(p, SkipVendored, "vendored directory"))
	}
	sub, err := w.subtreeOf(te.Hash)
	if err != nil {
		return w.emit(dirEntry(p, SkipUnreadable, fmt.Sprintf("tree %s: %v", te.Hash, err)))
	}
	return w.tree(sub, p+"/")
}

func (w *treeWalker) file(p string, h plumbing.Hash) error {
	obj, err := w.objs.object(plumbing.BlobObject, h)
	if err != nil {
		return w.emit(finish(fileEntry(p, 0), p, SkipUnreadable, fmt.Sprintf("blob %s: %v", h, err)))
	}
	e := fileEntry(p, obj.Size())
	if skip, detail := nameRule(e.Path); skip != "" {
		return w.emit(finish(e, p, skip, detail))
	}
	if e.Size > w.max {
		return w.emit(finish(e, p, SkipTooLarge, tooLarge(e.Size, w.max)))
	}
	content, err := readBlob(obj)
	if err != nil {
		return w.emit(finish(e, p, SkipUnreadable, fmt.Sprintf("blob %s: %v", h, err)))
	}
	if skip, detail := contentRule(e.Path, e.Language, content); skip != "" {
		return w.emit(finish(e, p, skip, detail))
	}
	e.Content = content
	return w.emit(e)
}

func (w *treeWalker) symlink(p string, h plumbing.Hash) error {
	target, err := w.linkTarget(h)
	if err != nil {
		return w.emit(finish(fileEntry(p, 0), p, SkipUnreadable, fmt.Sprintf("blob %s: %v", h, err)))
	}
	e := fileEntry(p, int64(len(target)))
	switch resolveLink(p, target, w.lookup) {
	case linkOutside:
		return w.emit(finish(e, p, SkipSymlinkOutside, "links to "+target+", outside the root"))
	case linkDangling:
		return w.emit(finish(e, p, SkipSymlinkOutside, "dangling: links to "+target))
	case linkLoop:
		return w.emit(finish(e, p, SkipSymlinkOutside, "links to "+target+": too many levels of symbolic links"))
	}
	return w.emit(finish(e, p, SkipSymlink, "links to "+target))
}

func (w *treeWalker) linkTarget(h plumbing.Hash) (string, error) {
	obj, err := w.objs.object(plumbing.BlobObject, h)
	if err != nil {
		return "", err
	}
	if obj.Size() > maxLinkTarget {
		return "", fmt.Errorf("symlink target of %d bytes", obj.Size())
	}
	b, err := readBlob(obj)
	return string(b), err
}

// lookup finds p in the commit's tree for resolveLink. A path below a
// gitlink counts as existing: the submodule's content is not in this
// repository.
func (w *treeWalker) lookup(p string) (exists bool, linkTo string, isLink bool) {
	t := w.root
	comps := strings.Split(p, "/")
	for i, name := range comps {
		var te *object.TreeEntry
		for j := range t.Entries {
			if t.Entries[j].Name == name {
				te = &t.Entries[j]
				break
			}
		}
		if te == nil {
			return false, "", false
		}
		last := i == len(comps)-1
		switch te.Mode {
		case filemode.Submodule:
			return true, "", false
		case filemode.Symlink:
			to, err := w.linkTarget(te.Hash)
			if err != nil {
				return false, "", false
			}
			return true, to, true
		case filemode.Dir:
			if last {
				return true, "", false
			}
			sub, err := w.subtreeOf(te.Hash)
			if err != nil {
				return false, "", false
			}
			t = sub
		default:
			return last, "", false // a file has no children
		}
	}
	return true, "", false
}

// readBlob reads a whole object into a new buffer.
func readBlob(obj plumbing.EncodedObject) ([]byte, error) {
	return guard(func() ([]byte, error) {
		r, err := obj.Reader()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		b := make([]byte, obj.Size())
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return b, nil
	})
}
