package clitest

import (
	"os"
	"sync"
	"testing"
)

// Fixture is something several tests of a package need alike and that
// costs seconds of CPU to make (a mined home, a finished eval): built
// once per test binary, in the first test that asks for it, and kept
// until the binary ends. Its temporary directories and cleanups outlive
// that first test (TestMain calls CleanupFixtures after the tests), so a
// fixture may hold repositories and model servers. Tests copy what they
// change (CopyHome) and leave the fixture itself as built.
type Fixture[T any] struct {
	build func(t testing.TB) T
	once  sync.Once
	v     T
	ok    bool
}

// NewFixture is a Fixture that build makes.
func NewFixture[T any](build func(t testing.TB) T) *Fixture[T] {
	return &Fixture[T]{build: build}
}

// Get is the fixture, built by this test if no test built it before. A
// build that failed fails every test that asks for it.
func (f *Fixture[T]) Get(t testing.TB) T {
	t.Helper()
	f.once.Do(func() {
		f.v = f.build(lasting{t})
		f.ok = true
	})
	if !f.ok {
		t.Fatal("the fixture's build failed in an earlier test (see that test's log)")
	}
	return f.v
}

// lasting is the t a Fixture is built with: the first test's, for its
// logs and failures, but with temporary directories and cleanups that
// last as long as the test binary.
type lasting struct{ testing.TB }

func (l lasting) TempDir() string {
	fixtures.mu.Lock()
	defer fixtures.mu.Unlock()
	if fixtures.root == "" {
		root, err := os.MkdirTemp("", "clitest-fixtures-")
		if err != nil {
			l.Fatal(err)
		}
		fixtures.root = root
	}
	dir, err := os.MkdirTemp(fixtures.root, "")
	if err != nil {
		l.Fatal(err)
	}
	return dir
}

func (l lasting) Cleanup(f func()) {
	fixtures.mu.Lock()
	defer fixtures.mu.Unlock()
	fixtures.cleanups = append(fixtures.cleanups, f)
}

// fixtures are the directories and cleanups of the fixtures built in
// this test binary.
var fixtures struct {
	mu       sync.Mutex
	root     string
	cleanups []func()
}

// CleanupFixtures runs the fixtures' cleanups, last registered first,
// and removes their directories: a TestMain calls it after the tests.
func CleanupFixtures() {
	fixtures.mu.Lock()
	defer fixtures.mu.Unlock()
	for i := len(fixtures.cleanups) - 1; i >= 0; i-- {
		fixtures.cleanups[i]()
	}
	fixtures.cleanups = nil
	if fixtures.root != "" {
		os.RemoveAll(fixtures.root)
		fixtures.root = ""
	}
}
