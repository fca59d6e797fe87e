package walk

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// tracked is the set of paths in the work tree's git index, read on first
// use: git never ignores a tracked file, so a path matched by .gitignore is
// still walked when it (or, for a directory, something under it) is tracked.
// An index go-git cannot read counts as empty: the walk then ignores by
// patterns alone.
type tracked struct {
	gitDir string
	loaded bool
	paths  []string // sorted byte-wise, as in the index
}

func (t *tracked) load() {
	t.loaded = true
	if t.gitDir == "" {
		return
	}
	f, err := os.Open(filepath.Join(t.gitDir, "index"))
	if err != nil {
		return
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(&idx); err != nil {
		return
	}
	t.paths = make([]string, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		t.paths = append(t.paths, e.Name)
	}
	slices.Sort(t.paths) // already sorted in a valid index; cheap to make sure
}

// has reports whether the file p is tracked, or for a directory (isDir)
// whether any path under p/ is.
func (t *tracked) has(p string, isDir bool) bool {
	if !t.loaded {
		t.load()
	}
	if isDir {
		p += "/"
	}
	i, found := slices.BinarySearch(t.paths, p)
	if isDir {
		return i < len(t.paths) && strings.HasPrefix(t.paths[i], p)
	}
	return found
}
