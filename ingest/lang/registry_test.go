package lang

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestLanguageOf(t *testing.T) {
	cases := map[string]string{
		"a/b.py": Python, "x.PYI": Python,
		"app.js": JavaScript, "m.mjs": JavaScript, "c.cjs": JavaScript, "v.jsx": JavaScript,
		"t.ts": TypeScript, "types.d.ts": TypeScript, "m.mts": TypeScript, "c.cts": TypeScript, "v.tsx": TSX, "main.go": Go,
		"lib.rs": "rust", "A.java": "java", "x.c": "c", "x.h": "c", "x.cpp": "cpp", "x.rb": "ruby",
		"README.md": "markdown", "ci.yml": "yaml", "a.yaml": "yaml", "package.json": "json", "Cargo.toml": "toml",
		"run.sh": "shell", "Makefile": "make", "sub/Dockerfile": "dockerfile", "go.mod": "go-mod",
		`win\path\x.py`: Python, "LICENSE": "", "noext": "", "x.unknown": "",
	}
	for path, want := range cases {
		if got := LanguageOf(path); got != want {
			t.Errorf("LanguageOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestForPath(t *testing.T) {
	for path, want := range map[string]string{"a.py": Python, "a.jsx": JavaScript, "a.mts": TypeScript, "a.tsx": TSX, "a.go": Go} {
		e := ForPath(path)
		if e == nil {
			t.Fatalf("ForPath(%q) = nil", path)
		}
		if e.Language() != want {
			t.Errorf("ForPath(%q).Language() = %q, want %q", path, e.Language(), want)
		}
		e.Close()
	}
	if e := ForPath("README.md"); e != nil {
		t.Errorf("ForPath(README.md) = %v, want nil", e)
	}
	if _, err := New("rust"); err == nil {
		t.Error("New(rust) succeeded")
	}
}

func TestSetReusesExtractors(t *testing.T) {
	s := NewSet()
	defer s.Close()
	a, err := s.ForPath("a.py")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.ForPath("dir/b.py")
	if a != b {
		t.Error("Set made two Python extractors")
	}
	if e, err := s.ForPath("x.md"); e != nil || err != nil {
		t.Errorf("ForPath(x.md) = %v, %v; want nil, nil", e, err)
	}
	if _, err := a.Extract("a.py", []byte("def f(): pass\n")); err != nil {
		t.Fatal(err)
	}
}

func TestExtractErrors(t *testing.T) {
	e, err := NewPython()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Extract("big.py", make([]byte, MaxFileBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized file: err = %v, want ErrTooLarge", err)
	}
	e.Close()
	e.Close() // idempotent
	if _, err := e.Extract("a.py", []byte("x = 1\n")); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("extract after Close: err = %v", err)
	}
}

func TestEmptyAndBOM(t *testing.T) {
	for _, lang := range []string{Python, JavaScript, TypeScript, TSX, Go} {
		f := extract(t, lang, "")
		if len(f.Symbols) != 0 || f.ErrorNodes != 0 {
			t.Errorf("%s: empty file gave %v, %d errors", lang, symbolLines(f), f.ErrorNodes)
		}
	}
	f := extract(t, Python, "\xef\xbb\xbfdef f():\n    pass\n")
	eq(t, "BOM file", symbolLines(f), []string{"function f 1-2 ^-"})
	eq(t, "BOM errors", f.ErrorNodes, 0)
}

// Each goroutine owns its extractors, as workers in ingest do; run with
// -race.
func TestConcurrentWorkers(t *testing.T) {
	files := map[string]string{
		"a.py": "class A:\n    def m(self):\n        raise ValueError('x')\n",
		"b.ts": "export class B { m(): void { throw new Error('y'); } }\n",
		"c.go": "package c\n\nfunc C() { panic(\"z\") }\n",
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewSet()
			defer s.Close()
			for i := 0; i < 20; i++ {
				for path, src := range files {
					e, err := s.ForPath(path)
					if err != nil {
						errs <- err
						return
					}
					f, err := e.Extract(path, []byte(src))
					if err != nil {
						errs <- err
						return
					}
					if len(f.Symbols) == 0 || len(f.Symbols[len(f.Symbols)-1].ErrorStrings) != 1 {
						errs <- fmt.Errorf("%s: unexpected facts %v", path, symbolLines(f))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
