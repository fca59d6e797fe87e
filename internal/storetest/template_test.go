package storetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cra-dev/cra/kb"
)

// A template is built once and each copy is the built tree, independent
// of the other copies.
func TestTemplateCopies(t *testing.T) {
	builds := 0
	tp := NewTemplate(func(dir string) error {
		builds++
		if err := os.MkdirAll(filepath.Join(dir, "sub", "empty"), 0o700); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "sub", "f.txt"), []byte("content"), 0o600)
	})
	a, b := filepath.Join(t.TempDir(), "a"), t.TempDir()
	tp.Copy(t, a)
	tp.Copy(t, b)
	if builds != 1 {
		t.Errorf("built %d times, want once", builds)
	}
	if err := os.WriteFile(filepath.Join(a, "sub", "f.txt"), []byte("changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(b, "sub", "f.txt"))
	if err != nil || string(got) != "content" {
		t.Errorf("second copy: %q, %v; want the built content", got, err)
	}
	for path, mode := range map[string]os.FileMode{"sub/empty": os.ModeDir | 0o700, "sub/f.txt": 0o600} {
		info, err := os.Stat(filepath.Join(b, path))
		if err != nil || info.Mode() != mode {
			t.Errorf("%s: %v, %v; want mode %v", path, info.Mode(), err, mode)
		}
	}
}

// A copied home is an initialised home whose stores open and take writes.
func TestHomeIsInitialised(t *testing.T) {
	home := Home(t)
	if err := kb.CheckInitialized(home); err != nil {
		t.Fatal(err)
	}
	Exec(t, home, kb.Raw, "CREATE TABLE probe (x INTEGER); INSERT INTO probe VALUES (1)")
	if got := Rows(t, home, kb.Raw, "SELECT x FROM probe"); len(got) != 1 || got[0] != "1" {
		t.Errorf("rows %v", got)
	}
	if other := Home(t); len(Rows(t, other, kb.Raw, "SELECT table_name FROM information_schema.tables WHERE table_name = 'probe'")) != 0 {
		t.Error("a write to one copy reached another")
	}
}

// A build that needs a test runs in the first test that copies the
// template; one that fails it fails the tests after, not copies nothing.
func TestTemplateOf(t *testing.T) {
	builds := 0
	tp := NewTemplateOf(func(t testing.TB, dir string) {
		builds++
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(t.Name()), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	a, b := t.TempDir(), t.TempDir()
	tp.Copy(t, a)
	tp.Copy(t, b)
	if got, err := os.ReadFile(filepath.Join(b, "f.txt")); err != nil || string(got) != t.Name() || builds != 1 {
		t.Errorf("copy %q, %v after %d builds; want the first test's build, once", got, err, builds)
	}

	failing := NewTemplateOf(func(t testing.TB, dir string) { t.Fatal("no repository") })
	first, later := &recorder{TB: t}, &recorder{TB: t}
	for _, r := range []*recorder{first, later} {
		done := make(chan struct{})
		go func() { // Fatal ends the goroutine, as it ends a test
			defer close(done)
			failing.Copy(r, t.TempDir())
		}()
		<-done
	}
	if len(first.fatals) != 1 || first.fatals[0] != "no repository" || len(later.fatals) != 1 {
		t.Errorf("fatal errors: first test %q, later %q; want the build's, then one saying so", first.fatals, later.fatals)
	}
}

// recorder is a testing.TB whose Fatal ends the goroutine, as a test's
// does, after keeping the message.
type recorder struct {
	testing.TB
	fatals []string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(args ...any) {
	r.fatals = append(r.fatals, fmt.Sprint(args...))
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }
