// Package pathrule is the one rule for the paths of a worktree cra reads
// for a prompt or writes for a model (agent/execute, agent/retrieval):
// inside the worktree once links are resolved, never through a link, never
// in .git.
package pathrule

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// OutsideWorktree is the reason recorded for a path the worktree rule
// refuses (Root.Path), read or written.
const OutsideWorktree = "outside_worktree"

// A PathError is a path the worktree rule refuses; Reason says why in
// words the model and the user read.
type PathError struct {
	Path, Reason string
}

func (e *PathError) Error() string { return e.Reason }

// Root is a worktree's root with its symbolic links resolved: the one
// place whose files cra reads for a prompt or writes for a model. Every
// such path goes through Root.Path, so a committed link cannot show the
// model, or let it change, a file outside the worktree.
type Root struct{ real string }

// ResolveRoot resolves dir's symbolic links.
func ResolveRoot(dir string) (Root, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Root{}, err
	}
	return Root{real}, nil
}

// Path is the rule for a path the model names or is shown: relative,
// without "..", not in .git, its deepest existing directory inside the
// root once links are resolved, and not a link itself (even to a file
// inside: a write would replace the link, a read would show the file
// twice under two names). It returns the path cleaned and its absolute
// path; a refusal is a *PathError. The file need not exist.
func (r Root) Path(p string) (rel, abs string, err error) {
	rel, reason := CleanRel(p)
	if reason != "" {
		return "", "", &PathError{Path: p, Reason: reason}
	}
	abs = filepath.Join(r.real, filepath.FromSlash(rel))
	dir := filepath.Dir(abs)
	for {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil || realDir != r.real && !strings.HasPrefix(realDir, r.real+string(filepath.Separator)) {
		return "", "", &PathError{Path: p, Reason: "the path escapes the worktree through a symbolic link"}
	}
	info, err := os.Lstat(abs)
	switch {
	case err == nil && info.Mode()&fs.ModeSymlink != 0:
		return "", "", &PathError{Path: p, Reason: "the file is a symbolic link"}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", "", err
	}
	return rel, abs, nil
}

// CleanRel checks a path's form: relative, slash-separated, no "..", not
// in .git.
func CleanRel(p string) (string, string) {
	switch {
	case p == "":
		return "", "no file named"
	case strings.ContainsRune(p, 0):
		return "", "a NUL byte in the path"
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", "an absolute path: edits name files relative to the repository"
	}
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || slices.Contains(strings.Split(p, "/"), "..") {
		return "", "the path escapes the worktree (..)"
	}
	if clean == ".git" || strings.HasPrefix(clean, ".git/") {
		return "", "the path is inside .git"
	}
	return clean, ""
}
