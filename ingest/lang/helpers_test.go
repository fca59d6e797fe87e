package lang

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// extract runs a fresh extractor for language over src.
func extract(t testing.TB, language, src string) *FileFacts {
	t.Helper()
	e, err := New(language)
	if err != nil {
		t.Fatalf("New(%q): %v", language, err)
	}
	defer e.Close()
	f, err := e.Extract("test", []byte(src))
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return f
}

// extractFile extracts testdata/name with the extractor its extension picks.
func extractFile(t testing.TB, name string) *FileFacts {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return extract(t, LanguageOf(name), string(src))
}

// symbolLines renders symbols as "kind name start-end ^parent".
func symbolLines(f *FileFacts) []string {
	var out []string
	for _, s := range f.Symbols {
		parent := "-"
		if s.Parent >= 0 {
			parent = f.Symbols[s.Parent].Name
		}
		out = append(out, fmt.Sprintf("%s %s %d-%d ^%s", s.Kind, s.Name, s.StartLine, s.EndLine, parent))
	}
	return out
}

// refLines renders references as "caller kind name@line" (caller "-" for
// module level).
func refLines(f *FileFacts) []string {
	var out []string
	for _, r := range f.References {
		out = append(out, fmt.Sprintf("%s %s %s@%d", symName(f, r.Symbol), r.Kind, r.Name, r.Line))
	}
	return out
}

// commentLines renders comments as "line symbol kind rationale: content".
func commentLines(f *FileFacts) []string {
	var out []string
	for _, c := range f.Comments {
		out = append(out, fmt.Sprintf("%d %s %s %v: %s", c.Line, symName(f, c.Symbol), c.Kind, c.IsRationale, c.Content))
	}
	return out
}

func symName(f *FileFacts, i int) string {
	if i < 0 {
		return "-"
	}
	return f.Symbols[i].Name
}

// symbol returns the only symbol called name of the given kind.
func symbol(t testing.TB, f *FileFacts, kind, name string) Symbol {
	t.Helper()
	var found []Symbol
	for _, s := range f.Symbols {
		if s.Name == name && s.Kind == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s %s, found %d in %v", kind, name, len(found), symbolLines(f))
	}
	return found[0]
}

// docOf returns the docstring of the symbol at index sym.
func docOf(t testing.TB, f *FileFacts, sym int) Docstring {
	t.Helper()
	for _, d := range f.Docstrings {
		if d.Symbol == sym {
			return d
		}
	}
	t.Fatalf("no docstring for symbol %d", sym)
	return Docstring{}
}

func indexOf(t testing.TB, f *FileFacts, kind, name string) int {
	t.Helper()
	for i, s := range f.Symbols {
		if s.Name == name && s.Kind == kind {
			return i
		}
	}
	t.Fatalf("no %s %s in %v", kind, name, symbolLines(f))
	return -1
}

// codeFacts is a symbol's CGRAG facts, for table comparisons.
type codeFacts struct {
	Raises, ErrorStrings, Mutates []string
}

func factsOf(s Symbol) codeFacts {
	return codeFacts{Raises: s.Raises, ErrorStrings: s.ErrorStrings, Mutates: s.Mutates}
}

func eq(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s:\ngot  %s\nwant %s", what, g, w)
	}
}

// allValid fails if any string in f is not valid UTF-8. (json.Marshal would
// hide the problem by replacing bad bytes, so walk the structs.)
func allValid(t testing.TB, f *FileFacts) {
	t.Helper()
	checkStrings(t, reflect.ValueOf(f).Elem())
}

func checkStrings(t testing.TB, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			t.Errorf("invalid UTF-8 string %q", v.String())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			checkStrings(t, v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			checkStrings(t, v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			checkStrings(t, v.Elem())
		}
	}
}
