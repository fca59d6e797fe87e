package lang

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// genPython returns a Python module of about lines lines in the style of
// application code: classes, methods, docstrings, comments, raises.
func genPython(lines int) []byte {
	var b strings.Builder
	b.WriteString("\"\"\"Generated module.\"\"\"\nimport os\nfrom .base import Base, helper\n\n_cache = {}\n\n")
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		fmt.Fprintf(&b, `
class Service%[1]d(Base):
    """Service %[1]d.

    Args:
        name (str): The name.
    """

    def __init__(self, name):
        self.name = name  # keep it
        self.calls = 0

    def run(self, key: str) -> "Result":
        """Run it.

        :param key: the key
        :raises KeyError: when missing
        """
        # TODO: batch these lookups because each one is a round trip
        self.calls += 1
        if key not in _cache:
            logger.error("missing key %%s", key)
            raise KeyError(f"missing {key}")
        _cache[key] = helper(self.name, key)
        return os.path.join(self.name, _cache[key])


def build_%[1]d(items):
    total = 0
    for item in items:
        total += item.size
    return Service%[1]d(str(total))
`, i)
	}
	return []byte(b.String())
}

// genGo returns a Go file of about lines lines.
func genGo(lines int) []byte {
	var b strings.Builder
	b.WriteString("// Package gen is generated.\npackage gen\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\nvar cache = map[string]int{}\n\n")
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		fmt.Fprintf(&b, `
// ErrMissing%[1]d is returned when a key is missing.
var ErrMissing%[1]d = errors.New("missing %[1]d")

// Store%[1]d stores things.
type Store%[1]d struct {
	Base
	items map[string]*Item
	count int
}

// Get returns the item for key.
func (s *Store%[1]d) Get(key string) (*Item, error) {
	s.count++ // we need this for metrics
	it, ok := s.items[key]
	if !ok {
		return nil, fmt.Errorf("get %%q: %%w", key, ErrMissing%[1]d)
	}
	cache[key]++
	return it, nil
}

func build%[1]d(n int) *Store%[1]d {
	// TODO: size the map
	s := &Store%[1]d{items: map[string]*Item{}}
	for i := 0; i < n; i++ {
		s.items[fmt.Sprint(i)] = &Item{}
	}
	return s
}
`, i)
	}
	return []byte(b.String())
}

// genTS returns a TypeScript module of about lines lines: imports, an
// interface, classes with JSDoc'd methods, comments, throws and calls. With
// types false it is plain JavaScript (no annotations, no interface).
func genTS(lines int, types bool) []byte {
	ann := func(s string) string {
		if types {
			return s
		}
		return ""
	}
	var b strings.Builder
	b.WriteString("/**\n * @file Generated module.\n */\nimport { Base, helper } from './base';\nimport * as path from 'path';\n\nconst cache = new Map();\nlet calls = 0;\n\n")
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		if types {
			fmt.Fprintf(&b, "export interface Options%[1]d extends Base {\n  name: string;\n  size?: number;\n  run(key: string): Result%[1]d;\n}\n", i)
		}
		fmt.Fprintf(&b, `
/**
 * Service %[1]d does things.
 * @param {string} name the name
 */
export class Service%[1]d extends Base {
  %[2]scount = 0;

  constructor(name%[3]s) {
    super(name);
    this.name = name; // keep it
  }

  /**
   * Run it.
   * @param {string} key the key
   * @returns {Result} the result
   * @throws {KeyError} when missing
   */
  run(key%[3]s)%[4]s {
    // TODO: batch these lookups because each one is a round trip
    this.count++;
    calls += 1;
    if (!cache.has(key)) {
      console.error("missing key %%s", key);
      throw new KeyError(`+"`missing ${key}`"+`);
    }
    cache.set(key, helper(this.name, key));
    return path.join(this.name, cache.get(key));
  }
}

export function build%[1]d(items%[5]s) {
  let total = 0;
  for (const item of items) {
    total += item.size;
  }
  return new Service%[1]d(String(total));
}
`, i, ann("private "), ann(": string"), ann(": Result"), ann(": Item[]"))
	}
	return []byte(b.String())
}

// syntheticSources returns n files in the shape internal/gittest's
// synthetic repositories use (which is what BenchmarkIndexTree parses):
// every third file Python, Go and TypeScript, funcs functions each.
func syntheticSources(language string, n, funcs int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i++ {
		var b strings.Builder
		next := (i + 3) % n
		switch language {
		case Python:
			fmt.Fprintf(&b, "\"\"\"Module %d.\"\"\"\nimport logging\nfrom py.pkg%02d import mod%03d\n\nlog = logging.getLogger(__name__)\n_cache = {}\n\n\n", i, next/10, next)
			fmt.Fprintf(&b, "class Service%d:\n    \"\"\"A service.\"\"\"\n\n    def __init__(self):\n        self.state = %d\n\n", i, i)
			for f := 0; f < funcs; f++ {
				fmt.Fprintf(&b, "    def op%d(self, x, y=None):\n        \"\"\"Operation %d.\n\n        Args:\n            x: the input.\n            y: optional.\n\n        Returns:\n            the result.\n        \"\"\"\n", f, f)
				fmt.Fprintf(&b, "        # TODO: handle y (version %d)\n        if x is None:\n            log.error(\"op%d got no input\")\n            raise ValueError(\"x is required\")\n", i, f)
				fmt.Fprintf(&b, "        self.state += 1\n        _cache[x] = mod%03d.helper(x)\n        return self.op%d(x) if x > 100 else x * %d\n\n", next, (f+1)%funcs, f)
			}
			b.WriteString("\ndef helper(x):\n    return x\n")
		case Go:
			fmt.Fprintf(&b, "// Package pkg%02d is generated for benchmarks.\npackage pkg%02d\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\n", i/10, i/10)
			fmt.Fprintf(&b, "// ErrNotFound%d is returned when nothing matches.\nvar ErrNotFound%d = errors.New(\"not found\")\n\n// Store%d keeps values.\ntype Store%d struct {\n\titems map[string]int\n\tn     int\n}\n\n", i, i, i, i)
			for f := 0; f < funcs; f++ {
				fmt.Fprintf(&b, "// Op%d does operation %d.\n// It returns ErrNotFound%d for unknown keys.\nfunc (s *Store%d) Op%d(k string) (int, error) {\n", f, f, i, i, f)
				fmt.Fprintf(&b, "\tv, ok := s.items[k]\n\tif !ok {\n\t\treturn 0, fmt.Errorf(\"op%d %%s: %%w\", k, ErrNotFound%d)\n\t}\n\ts.n++ // count calls (version %d)\n\treturn v + %d, nil\n}\n\n", f, i, i, f)
			}
		default:
			fmt.Fprintf(&b, "import { helper } from '../pkg%02d/mod%03d';\n\n/** Module %d. */\nexport class Widget%d {\n  private count = 0;\n\n", next/10, next, i, i)
			for f := 0; f < funcs; f++ {
				fmt.Fprintf(&b, "  /**\n   * Render part %d.\n   * @param x the input\n   * @returns the output\n   */\n  render%d(x: number): number {\n", f, f)
				fmt.Fprintf(&b, "    if (x < 0) {\n      throw new Error('negative input %d');\n    }\n    this.count++; // FIXME: overflow (version %d)\n    return helper(x) + %d;\n  }\n\n", f, i, f)
			}
			b.WriteString("}\n\nexport function helper(x: number): number {\n  return x;\n}\n")
		}
		out = append(out, []byte(b.String()))
	}
	return out
}

func benchExtract(b *testing.B, language string, src []byte) {
	e, err := New(language)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := e.Extract("bench", src)
		if err != nil || f.ErrorNodes != 0 || len(f.Symbols) == 0 {
			b.Fatalf("extract: %v, %d error nodes, %d symbols", err, f.ErrorNodes, len(f.Symbols))
		}
	}
}

// benchFiles extracts many small files with one extractor, as an indexing
// worker does.
func benchFiles(b *testing.B, language string, files [][]byte) {
	e, err := New(language)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var size int64
	for _, src := range files {
		size += int64(len(src))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range files {
			if f, err := e.Extract("bench", src); err != nil || f.ErrorNodes != 0 || len(f.Symbols) == 0 {
				b.Fatalf("extract: %v, %+v", err, f)
			}
		}
	}
}

// benchParse is the floor: tree-sitter parsing alone, through
// go-tree-sitter, no extraction.
func benchParse(b *testing.B, language string, src []byte) {
	e, err := New(language)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var g *grammar
	switch x := e.(type) {
	case *PythonExtractor:
		g = x.e.g
	case *JSExtractor:
		g = x.e.g
	case *GoExtractor:
		g = x.e.g
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(g.lang)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tree, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			b.Fatal(err)
		}
		tree.Close()
	}
}

// Mid-size generated files (~50-70 KB each).
func BenchmarkExtractPython(b *testing.B)     { benchExtract(b, Python, genPython(2000)) }
func BenchmarkExtractGo(b *testing.B)         { benchExtract(b, Go, genGo(2000)) }
func BenchmarkExtractTypeScript(b *testing.B) { benchExtract(b, TypeScript, genTS(2000, true)) }
func BenchmarkExtractJavaScript(b *testing.B) { benchExtract(b, JavaScript, genTS(2000, false)) }

// The synthetic repository shape, 30 functions a file (~5-10 KB).
func BenchmarkSyntheticPython(b *testing.B) { benchFiles(b, Python, syntheticSources(Python, 20, 30)) }
func BenchmarkSyntheticGo(b *testing.B)     { benchFiles(b, Go, syntheticSources(Go, 20, 30)) }
func BenchmarkSyntheticTypeScript(b *testing.B) {
	benchFiles(b, TypeScript, syntheticSources(TypeScript, 20, 30))
}

func BenchmarkParsePython(b *testing.B)     { benchParse(b, Python, genPython(2000)) }
func BenchmarkParseGo(b *testing.B)         { benchParse(b, Go, genGo(2000)) }
func BenchmarkParseTypeScript(b *testing.B) { benchParse(b, TypeScript, genTS(2000, true)) }
