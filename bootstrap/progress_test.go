package bootstrap

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/kb"
)

// fakeProgress records what a batch reports, with the meaning
// internal/progress gives each call, and checks it as it comes.
type fakeProgress struct {
	t           testing.TB
	mu          sync.Mutex
	phase       string
	done, total int64
	current     string // the last Item
	finished    int    // ItemDone calls since Items
	atAdd       []string
}

func (f *fakeProgress) Phase(label string, total int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.phase, f.done, f.total = label, 0, total
}

func (f *fakeProgress) Add(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done += n
	if f.total > 0 && f.done > f.total {
		f.t.Errorf("phase %s: done %d passes total %d", f.phase, f.done, f.total)
	}
	f.atAdd = append(f.atAdd, f.current)
}

// AddTotal adds to the total as given: a phase whose total is not known
// yet says 0, not -1.
func (f *fakeProgress) AddTotal(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total += n
}

func (f *fakeProgress) Items(int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished = 0
}

func (f *fakeProgress) Item(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.current = name
}

func (f *fakeProgress) ItemDone() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished++
}

// Two repositories mined at once, one with new commits and one up to
// date: the count ends at its total and never passes it, every commit
// built is counted while the repository it belongs to is named, and once
// both are done none is.
func TestBootstrapProgress(t *testing.T) {
	t.Parallel()
	busy, _ := project(t)
	idle, _ := project(t)
	home := newHome(t)
	mine(t, home, testOptions(), busy.Dir, idle.Dir)
	for i := range 3 {
		busy.Write(fmt.Sprintf("app/extra%d.py", i), fmt.Sprintf("def extra%d():\n    return %d\n", i, i))
		busy.Commit(fmt.Sprintf("Add the extra%d helper to the app package", i))
	}

	fp := &fakeProgress{t: t}
	opts := testOptions()
	opts.Progress = fp
	sum := mine(t, home, opts, busy.Dir, idle.Dir)
	if sum.Repos[0].Seen != 3 || sum.Repos[1].Status != kb.StatusUpToDate {
		t.Fatalf("repos %+v %+v: want 3 commits mined in the first, the second up to date", sum.Repos[0], sum.Repos[1])
	}
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if fp.phase != "bootstrap" || fp.total != 3 || fp.done != 3 {
		t.Errorf("phase %s ended at %d/%d; want bootstrap at 3/3", fp.phase, fp.done, fp.total)
	}
	name := filepath.Base(busy.Dir)
	for _, l := range fp.atAdd {
		if !slices.Contains(strings.Split(l, ", "), name) {
			t.Errorf("a commit of %s counted while the progress named %q", name, l)
		}
	}
	if fp.current != "" || fp.finished != 2 {
		t.Errorf("after the batch: current %q, %d finished; want none named and 2 finished", fp.current, fp.finished)
	}
}

func TestInFlightLabel(t *testing.T) {
	fp := &fakeProgress{t: t}
	f := &inFlight{p: fp}
	steps := []struct {
		start bool
		path  string
		want  string
	}{
		{true, "/c/a", "a"},
		{true, "/c/b", "a, b"},
		{false, "/c/a", "b"},
		{true, "/d/c", "b, c"},
		{true, "/d/d", "b, c, d"},
		{true, "/d/e", "b, c, d +1 more"},
		{false, "/d/c", "b, d, e"},
		{false, "/c/b", "d, e"},
		{false, "/d/e", "d"},
		{false, "/d/d", ""},
	}
	for i, s := range steps {
		if s.start {
			f.start(s.path)
		} else {
			f.done(s.path)
		}
		if fp.current != s.want {
			t.Errorf("step %d: label %q, want %q", i, fp.current, s.want)
		}
	}
	if fp.finished != 5 {
		t.Errorf("%d finished, want 5", fp.finished)
	}
}
