package walk

import (
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/cra-dev/cra/ingest/history"
)

// readerCache bounds the object cache of a walk's own storage; it mostly
// serves delta bases, each blob being read once.
const readerCache = 32 * cache.MiByte

// objectReader reads the objects of one walk. go-git's default storage
// (git.PlainOpen) opens and closes the pack file for every object read,
// about a quarter of a walk's time (BenchmarkTree): on disk, the walk
// reads through its own storage of the same .git that keeps pack files
// open until close, and falls back to the repository's storage on any
// error (alternates, custom storage options).
type objectReader struct {
	fast *filesystem.Storage // nil when the repository is not on disk
	repo storer.EncodedObjectStorer
}

func newObjectReader(repo *git.Repository) *objectReader {
	r := &objectReader{repo: repo.Storer}
	if st, ok := repo.Storer.(*filesystem.Storage); ok {
		r.fast = history.NewStorage(st.Filesystem(), cache.NewObjectLRU(readerCache))
	}
	return r
}

func (r *objectReader) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if r.fast != nil {
		if o, err := guard(func() (plumbing.EncodedObject, error) { return r.fast.EncodedObject(t, h) }); err == nil {
			return o, nil
		}
	}
	return guard(func() (plumbing.EncodedObject, error) { return r.repo.EncodedObject(t, h) })
}

// guard turns a panic of go-git into an error. go-git has panicked on
// malformed packs in the past; one corrupt object must not end the walk.
// Only calls into go-git are guarded, never the walk's callback.
func guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("corrupt object: %v", r)
		}
	}()
	return f()
}

func (r *objectReader) close() {
	if r.fast != nil {
		r.fast.Close()
	}
}
