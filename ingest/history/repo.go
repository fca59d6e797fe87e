package history

import (
	"errors"
	"fmt"
	"io"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectCacheSize bounds the inflated objects kept in memory. One cache is
// shared by all workers (go-git's LRU is safe for concurrent use, and the
// objects in it are never modified), so a tree or delta base read by one
// worker serves the others.
const objectCacheSize = 256 * cache.MiByte

// source is an opened repository from which each goroutine opens its own
// object storage: go-git's storages keep per-reader state (open packfiles,
// scanners) that must not be shared.
type source struct {
	path       string
	newStorage func() *filesystem.Storage
	shallow    map[plumbing.Hash]bool
}

func openSource(path string) (*source, error) {
	repo, err := git.PlainOpenWithOptions(path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("history: open %s: %w", path, err)
	}
	st, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("history: open %s: unexpected storage %T", path, repo.Storer)
	}
	defer st.Close()
	shallow, err := st.Shallow()
	if err != nil {
		return nil, fmt.Errorf("history: open %s: read shallow file: %w", path, err)
	}
	fs, shared := st.Filesystem(), cache.NewObjectLRU(objectCacheSize)
	src := &source{
		path: path,
		newStorage: func() *filesystem.Storage {
			return NewStorage(fs, shared)
		},
		shallow: make(map[plumbing.Hash]bool, len(shallow)),
	}
	for _, h := range shallow {
		src.shallow[h] = true
	}
	return src, nil
}

// objects reads raw objects for one goroutine.
type objects struct {
	st *filesystem.Storage
}

func (s *source) open() *objects { return &objects{st: s.newStorage()} }

func (o *objects) close() { _ = o.st.Close() }

// object looks up object h of type t; a missing object (or one of another
// type) gives an error wrapping plumbing.ErrObjectNotFound that names it.
func (o *objects) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := o.st.EncodedObject(t, h)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fmt.Errorf("%s %s: %w", t, h, err)
		}
		return nil, fmt.Errorf("read %s %s: %w", t, h, err)
	}
	return obj, nil
}

// readAll reads obj into buf (reused when large enough).
func readAll(obj plumbing.EncodedObject, buf []byte) ([]byte, error) {
	size := obj.Size()
	if int64(cap(buf)) < size {
		buf = make([]byte, max(size, 2*int64(cap(buf))))
	}
	buf = buf[:size]
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", obj.Type(), obj.Hash(), err)
	}
	defer r.Close()
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("read %s %s: %w", obj.Type(), obj.Hash(), err)
	}
	return buf, nil
}
