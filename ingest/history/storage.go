package history

import (
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// LazyObjectBytes is the size above which an object is never inflated into
// memory just to be looked at: go-git reads a loose object whole when it is
// opened (to learn its size) unless it is larger than the storage's
// LargeObjectThreshold, and then streams it on demand. With it, a 300 MB
// blob that is skipped for its size costs its header, not 300 MB.
const LazyObjectBytes = 1 << 20

// NewStorage opens the object storage of the .git filesystem fs for one
// goroutine (go-git's storages keep per-reader state), sharing the object
// cache c. Every reader of git objects in cra opens its storage here:
// pack files stay open between reads (KeepDescriptors: without it go-git
// reopens and re-parses the pack for every object), and objects larger than
// LazyObjectBytes are read only when their content is asked for.
func NewStorage(fs billy.Filesystem, c cache.Object) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(fs, c, filesystem.Options{
		KeepDescriptors:      true,
		LargeObjectThreshold: LazyObjectBytes,
	})
}
