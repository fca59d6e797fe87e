package walk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dir walks the work tree at root in lexical path order and calls fn with
// every file to index and every skipped path. .git is never entered nor
// reported. root need not be a git repository; .gitignore files apply
// either way, .git/info/exclude and the index only when root has a .git.
func Dir(ctx context.Context, root string, opts Options, fn func(Entry) error) error {
	fi, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("walk %s: %w", root, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("walk %s: not a directory", root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err == nil {
		realRoot, err = filepath.Abs(realRoot)
	}
	if err != nil {
		return fmt.Errorf("walk %s: %w", root, err)
	}
	gitDir, commonDir := gitDirs(root)
	w := &dirWalker{
		ctx: ctx, fn: fn, max: opts.maxFileBytes(),
		realRoot: realRoot, tracked: tracked{gitDir: gitDir},
	}
	if commonDir != "" {
		if b, err := os.ReadFile(filepath.Join(commonDir, "info", "exclude")); err == nil {
			w.ign.push(b, ".git/info/exclude", nil)
		}
	}
	if err := w.dir(root, "", nil); err != nil {
		var fnErr fnError
		if errors.As(err, &fnErr) {
			return fnErr.err
		}
		if errors.Is(err, ctx.Err()) {
			return err
		}
		return fmt.Errorf("walk %s: %w", root, err)
	}
	return nil
}

// fnError carries the callback's error up unchanged.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

type dirWalker struct {
	ctx      context.Context
	fn       func(Entry) error
	max      int64
	realRoot string
	ign      ignores
	tracked  tracked
}

func (w *dirWalker) emit(e Entry) error {
	if err := w.fn(e); err != nil {
		return fnError{err}
	}
	return nil
}

// dir walks the directory abs whose path from the root is rel ("" for the
// root, else ending with "/") and whose components are comps.
func (w *dirWalker) dir(abs, rel string, comps []string) error {
	ents, err := readDir(abs)
	if err != nil {
		if rel == "" {
			return err
		}
		p := strings.TrimSuffix(rel, "/")
		return w.emit(dirEntry(p, SkipUnreadable, errDetail(err)))
	}
	if b := gitignoreIn(abs, ents); b != nil {
		defer w.ign.pop(w.ign.push(b, rel+".gitignore", comps))
	}
	for _, e := range ents {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		if name == ".git" {
			continue
		}
		p, full, path := rel+name, filepath.Join(abs, name), append(comps, name)
		typ := e.Type()
		ignoredBy := w.gitignored(p, path, typ.IsDir())
		switch {
		case ignoredBy != "":
			err = w.ignoredEntry(p, ignoredBy, typ.IsDir())
		case typ.IsDir():
			err = w.subdir(full, p, path)
		case typ&fs.ModeSymlink != 0:
			err = w.symlink(full, p)
		case typ.IsRegular():
			err = w.file(full, p, e)
		default:
			err = w.emit(finish(fileEntry(p, 0), p, SkipUnreadable, "not a regular file ("+kind(typ)+")"))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// gitignored returns the ignore file that excludes p (components path), or
// "" when p is not ignored or is tracked.
func (w *dirWalker) gitignored(p string, path []string, isDir bool) string {
	if len(w.ign.patterns) == 0 {
		return ""
	}
	if origin, ignored := w.ign.match(path, isDir); ignored && !w.tracked.has(p, isDir) {
		return origin
	}
	return ""
}

func (w *dirWalker) ignoredEntry(p, origin string, isDir bool) error {
	if isDir {
		return w.emit(dirEntry(p, SkipGitignored, "matched by "+origin))
	}
	return w.emit(finish(fileEntry(p, 0), p, SkipGitignored, "matched by "+origin))
}

func (w *dirWalker) subdir(full, p string, path []string) error {
	if vendorDirs[path[len(path)-1]] {
		return w.emit(dirEntry(p, SkipVendored, "vendored directory"))
	}
	if _, err := os.Lstat(filepath.Join(full, ".git")); err == nil {
		return w.emit(dirEntry(p, SkipSubmodule, "nested git repository"))
	}
	return w.dir(full, p+"/", path)
}

func (w *dirWalker) file(full, p string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return w.emit(finish(fileEntry(p, 0), p, SkipUnreadable, errDetail(err)))
	}
	e := fileEntry(p, info.Size())
	if skip, detail := nameRule(e.Path); skip != "" {
		return w.emit(finish(e, p, skip, detail))
	}
	if e.Size > w.max {
		return w.emit(finish(e, p, SkipTooLarge, tooLarge(e.Size, w.max)))
	}
	content, err := readFile(full, e.Size)
	if err != nil {
		return w.emit(finish(e, p, SkipUnreadable, errDetail(err)))
	}
	e.Size = int64(len(content))
	if skip, detail := contentRule(e.Path, e.Language, content); skip != "" {
		return w.emit(finish(e, p, skip, detail))
	}
	e.Content = content
	return w.emit(e)
}

// gitignoreIn returns the content of the .gitignore among ents, the
// listing of dir, or nil. An unreadable .gitignore is reported when its own
// entry is read; a symlinked one is not followed, as git does not.
func gitignoreIn(dir string, ents []fs.DirEntry) []byte {
	i, found := slices.BinarySearchFunc(ents, ".gitignore", func(e fs.DirEntry, name string) int {
		return comparePaths(e.Name(), e.IsDir(), name, false)
	})
	if !found || !ents[i].Type().IsRegular() {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	return b
}

// readDir lists a directory in lexical path order: a directory sorts as if
// its name ended with "/", as in git trees, so "a.txt" < "a/b" < "a0".
func readDir(name string) ([]fs.DirEntry, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int {
		return comparePaths(a.Name(), a.IsDir(), b.Name(), b.IsDir())
	})
	return ents, nil
}

// comparePaths orders names as git orders tree entries.
func comparePaths(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	return cmp.Compare(nextByte(a, n, aDir), nextByte(b, n, bDir))
}

func nextByte(s string, i int, isDir bool) int {
	switch {
	case i < len(s):
		return int(s[i])
	case isDir:
		return '/'
	}
	return -1
}

// readFile reads the file's first size bytes (its size when it was
// listed): a file growing meanwhile is cut there, so a walk never reads
// more than Options.MaxFileBytes of one file.
func readFile(name string, size int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil // the file shrank since it was listed
	}
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// errDetail is an error without the path it names (Entry.Path says it).
func errDetail(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular file"
}
