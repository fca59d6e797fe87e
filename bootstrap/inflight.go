package bootstrap

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cra-dev/cra/ingest"
)

// maxNamed bounds the repositories the progress line names at once.
const maxNamed = 3

// inFlight names the repositories being mined on the progress line: with
// several mined at once (--jobs), each of them in the order they started,
// and none once they are done — never one that has finished, nor only the
// last one started.
type inFlight struct {
	mu    sync.Mutex // also orders the Item calls as the list changes
	paths []string
	p     ingest.Progress
}

// start adds the repository at path to those in flight.
func (f *inFlight) start(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paths = append(f.paths, path)
	f.p.Item(f.label())
}

// done removes it and counts one repository finished.
func (f *inFlight) done(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := slices.Index(f.paths, path); i >= 0 {
		f.paths = slices.Delete(f.paths, i, i+1)
	}
	f.p.Item(f.label())
	f.p.ItemDone()
}

// label is the repositories' base names, the first maxNamed of them and
// how many more.
func (f *inFlight) label() string {
	var names []string
	for _, p := range f.paths[:min(len(f.paths), maxNamed)] {
		names = append(names, filepath.Base(p))
	}
	s := strings.Join(names, ", ")
	if more := len(f.paths) - maxNamed; more > 0 {
		s += fmt.Sprintf(" +%d more", more)
	}
	return s
}
