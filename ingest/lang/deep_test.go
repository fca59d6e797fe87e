package lang

import (
	"strings"
	"testing"
	"time"
)

// Pathological nesting must neither overflow nor take long: the recursive
// helpers stop at maxDepth.
func TestDeepNesting(t *testing.T) {
	const n = 20000
	cases := map[string]string{
		Python:     "def f():\n    raise E(" + strings.Repeat("(", n) + "'x'" + strings.Repeat(")", n) + ")\n    a" + strings.Repeat(".b", n) + "()\n    x: " + strings.Repeat("L[", n) + "T" + strings.Repeat("]", n) + " = 1\n",
		JavaScript: "function f() { throw new Error(" + strings.Repeat("(", n) + "'x'" + strings.Repeat(")", n) + "); a" + strings.Repeat(".b", n) + "(); }\n",
		TypeScript: "function f(x: " + strings.Repeat("A<", n) + "T" + strings.Repeat(">", n) + ") { [" + strings.Repeat("[", n) + "a" + strings.Repeat("]", n) + "] = y; }\n",
		Go:         "package p\nfunc f() { panic(" + strings.Repeat("(", n) + "\"x\"" + strings.Repeat(")", n) + "); a" + strings.Repeat(".b", n) + "() }\n",
	}
	for lang, src := range cases {
		start := time.Now()
		f := extract(t, lang, src)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %v for deep nesting", lang, d)
		}
		if len(f.Symbols) == 0 {
			t.Errorf("%s: no symbols", lang)
		}
		for _, r := range f.References {
			if len(r.Name) > 4*maxDepth {
				t.Errorf("%s: reference name of %d bytes escaped the depth bound", lang, len(r.Name))
			}
		}
	}
}
