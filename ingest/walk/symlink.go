package walk

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// symlink records a work-tree symlink: its target, when inside the root, is
// indexed at its own path; a link leaving the root or going nowhere is
// never followed. Resolution is the operating system's.
func (w *dirWalker) symlink(full, p string) error {
	target, err := os.Readlink(full)
	if err != nil {
		return w.emit(finish(fileEntry(p, 0), p, SkipUnreadable, errDetail(err)))
	}
	e := fileEntry(p, int64(len(target)))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return w.emit(finish(e, p, SkipSymlinkOutside, "dangling: links to "+target))
		}
		return w.emit(finish(e, p, SkipSymlinkOutside, "links to "+target+": "+errDetail(err)))
	}
	rel, err := filepath.Rel(w.realRoot, real)
	if err != nil || !filepath.IsLocal(rel) {
		return w.emit(finish(e, p, SkipSymlinkOutside, "links to "+target+", outside the root"))
	}
	if rel = filepath.ToSlash(rel); rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return w.emit(finish(e, p, SkipSymlinkOutside, "links to "+target+", inside .git"))
	}
	return w.emit(finish(e, p, SkipSymlink, "links to "+target))
}

// maxLinkHops bounds symlink chains in a tree, as the kernel's ELOOP does.
const maxLinkHops = 40

// linkOutcome classifies a tree symlink once its target is resolved.
type linkOutcome int

const (
	linkInside linkOutcome = iota
	linkOutside
	linkDangling
	linkLoop
)

// resolveLink resolves, lexically, the target of the symlink at linkPath
// against a tree: lookup(p) returns whether p exists and, when p is itself
// a symlink, its target. Intermediate components that are symlinks are
// followed too; ".." is applied before following, as path.Join does.
func resolveLink(linkPath, target string, lookup func(p string) (exists bool, linkTo string, isLink bool)) linkOutcome {
	for hops := 0; hops < maxLinkHops; hops++ {
		if path.IsAbs(target) {
			return linkOutside
		}
		p := path.Join(path.Dir(linkPath), target)
		if p == ".." || strings.HasPrefix(p, "../") {
			return linkOutside
		}
		if p == "." {
			return linkInside // the root itself
		}
		if p == ".git" || strings.HasPrefix(p, ".git/") {
			return linkOutside
		}
		// Find the first component of p that is a symlink, if any.
		next, nextTarget, found := "", "", false
		comps := strings.Split(p, "/")
		for i := range comps {
			prefix := strings.Join(comps[:i+1], "/")
			exists, to, isLink := lookup(prefix)
			if !exists {
				return linkDangling
			}
			if isLink {
				rest := strings.Join(comps[i+1:], "/")
				next, nextTarget, found = prefix, path.Join(to, rest), true
				break
			}
		}
		if !found {
			return linkInside
		}
		linkPath, target = next, nextTarget
	}
	return linkLoop
}
