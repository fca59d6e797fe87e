package storetest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Template is a directory built once per test binary and copied for each
// test that needs one: an initialised home costs a third of a second of
// CPU (every migration applied to two new DuckDB files), its copy a few
// milliseconds, and a package's tests make dozens.
type Template struct {
	build   func(dir string) error
	buildTB func(t testing.TB, dir string)
	once    sync.Once
	files   []templateFile
	err     error
}

// templateFile is one entry of a Template, in walk order (a directory
// before what it holds).
type templateFile struct {
	rel  string
	mode fs.FileMode
	data []byte
}

// NewTemplate returns a Template that build makes, in a directory of its
// own, the first time a test copies it.
func NewTemplate(build func(dir string) error) *Template { return &Template{build: build} }

// NewTemplateOf is NewTemplate for a build that needs a test (gittest's
// repositories do): it runs in the first test that copies the template,
// with that test's t. Only the template's directory is kept: what build
// makes in t's temporary directories (a repository it mined) goes when
// that test ends, so the template must not need it.
func NewTemplateOf(build func(t testing.TB, dir string)) *Template {
	return &Template{buildTB: build}
}

// Copy writes the template into dir (created if missing), over files of
// the same names.
func (tp *Template) Copy(t testing.TB, dir string) {
	t.Helper()
	tp.once.Do(func() { tp.load(t) })
	if tp.err != nil {
		t.Fatal(tp.err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range tp.files {
		path := filepath.Join(dir, f.rel)
		var err error
		if f.mode.IsDir() {
			err = os.MkdirAll(path, f.mode.Perm())
		} else {
			err = os.WriteFile(path, f.data, f.mode.Perm())
		}
		if err != nil {
			t.Fatalf("copy the template: %v", err)
		}
	}
}

// load builds the template in a temporary directory and keeps its files
// in memory (a home is a few MB), so nothing is left on disk when the test
// binary exits.
func (tp *Template) load(t testing.TB) {
	// Until built: a build that fails its test with t.Fatal ends the once
	// here and leaves this for the tests after.
	tp.err = errors.New("the template's build failed in an earlier test")
	dir, err := os.MkdirTemp("", "storetest-template-")
	if err != nil {
		tp.err = err
		return
	}
	defer os.RemoveAll(dir)
	if tp.buildTB != nil {
		tp.buildTB(t, dir)
	} else if err := tp.build(dir); err != nil {
		tp.err = fmt.Errorf("build the template: %w", err)
		return
	}
	tp.err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		f := templateFile{rel: rel, mode: info.Mode()}
		switch {
		case d.IsDir():
		case info.Mode().IsRegular():
			if f.data, err = os.ReadFile(path); err != nil {
				return err
			}
		default:
			return fmt.Errorf("template %s: %s is neither a file nor a directory", dir, rel)
		}
		tp.files = append(tp.files, f)
		return nil
	})
}
