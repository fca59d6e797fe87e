package lang

import (
	"fmt"
	"strings"
	"testing"
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

func BenchmarkExtractPython(b *testing.B) { benchExtract(b, Python, genPython(2000)) }

func BenchmarkExtractGo(b *testing.B) { benchExtract(b, Go, genGo(2000)) }
