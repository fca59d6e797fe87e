package lang

import (
	"strings"
	"testing"

	"github.com/cra-dev/cra/kb/schema"
)

func TestPythonStoreFixture(t *testing.T) {
	f := extractFile(t, "store.py")
	if f.Language != Python || f.ErrorNodes != 0 {
		t.Fatalf("language %q, error nodes %d", f.Language, f.ErrorNodes)
	}
	eq(t, "symbols", symbolLines(f), []string{
		"variable _cache 11-11 ^-",
		"variable MAX_RETRIES 12-12 ^-",
		"variable counter 13-13 ^-",
		"function load 16-42 ^-",
		"class Store 45-93 ^-", // decorators included
		"method get 70-87 ^Store",
		"function helper 84-86 ^get", // nested function
		"method make 89-93 ^Store",
	})
	// The signature of a decorated definition is its def/class line.
	eq(t, "Store signature", symbol(t, f, KindClass, "Store").Signature, "class Store(Base, Generic[T], metaclass=Meta):")
	eq(t, "make signature", symbol(t, f, KindMethod, "make").Signature, `def make() -> "Store":`)
	eq(t, "variable signature", symbol(t, f, KindVariable, "MAX_RETRIES").Signature, "MAX_RETRIES: int = 3")

	eq(t, "imports", f.Imports, []Import{
		{Line: 7, Kind: ImportPlain, Module: "os"},
		{Line: 8, Kind: ImportFrom, Module: "core.db", Level: 2, Names: []ImportName{{Name: "connect"}, {Name: "Pool", Alias: "P"}}},
		{Line: 9, Kind: ImportFrom, Module: "", Level: 1, Names: []ImportName{{Name: "util"}}},
	})

	// Shebang and coding lines are pragmas, not comments; the two-line
	// rationale is one comment.
	eq(t, "comments", commentLines(f), []string{
		"33 load todo false: TODO(ana): cache negative lookups",
		"40 load rationale true: We need the lock here because two workers\nmay load the same path at once.",
		"79 get fixme false: FIXME: not thread safe",
		"91 make hack false: HACK: see #123 for the background",
	})

	eq(t, "references", refLines(f), []string{
		"load type_ref Pool@16", // forward reference "Pool"
		"load type_ref Record@16",
		"load call connect@36",
		"load call os.path.exists@37",
		"load call logger.error@38",
		"load call FileNotFoundError@39",
		"load call util.parse@42",
		"Store call dataclass@45",
		"Store call register@46",
		"Store inherit Base@47",
		"Store inherit Generic@47",
		"Store type_ref Item@68",
		"get call self.items.append@80",
		"helper call errors.NotFound@86",
		"get call helper@87",
		"make call staticmethod@89",
		"make type_ref Store@90",
	})

	for name, want := range map[string]codeFacts{
		"load": {
			Raises:       []string{"FileNotFoundError"},
			ErrorStrings: []string{"missing file %s", "no such file: {path}"},
			Mutates:      []string{"counter", "_cache"},
		},
		"get":    {Mutates: []string{"self.hits", "self.items"}}, // local[key] is a local
		"helper": {Raises: []string{"errors.NotFound"}, ErrorStrings: []string{"helper failed"}},
		"make":   {ErrorStrings: []string{"cache must be warm"}}, // bare raise names nothing
	} {
		var got Symbol
		for _, s := range f.Symbols {
			if s.Name == name {
				got = s
			}
		}
		eq(t, name+" facts", factsOf(got), want)
	}
}

func TestPythonDocstrings(t *testing.T) {
	f := extractFile(t, "store.py")
	eq(t, "module doc", docOf(t, f, -1), Docstring{
		Symbol: -1, Line: 3, Content: "Storage helpers.\n\nLonger description.", Format: FormatPlain,
		Fields: schema.DocFields{Summary: "Storage helpers."},
	})
	cases := []struct {
		kind, name string
		format     string
		fields     schema.DocFields
	}{
		{KindFunction, "load", FormatGoogle, schema.DocFields{
			Summary: "Load a record.",
			Params: []schema.DocParam{
				{Name: "path", Type: "str", Description: "Where to read. Continues here."},
				{Name: "pool", Description: "Connection pool."},
			},
			Returns: &schema.DocType{Type: "Record", Description: "The loaded record."},
			Raises: []schema.DocType{
				{Type: "FileNotFoundError", Description: "If path is missing."},
				{Type: "ValueError", Description: "If the file is corrupt."},
			},
		}},
		{KindClass, "Store", FormatNumpy, schema.DocFields{
			Summary: "A store.",
			Params: []schema.DocParam{
				{Name: "root", Type: "str", Description: "Root directory."},
				{Name: "size", Type: "int", Description: "Sizes."},
				{Name: "limit", Type: "int", Description: "Sizes."},
			},
			Returns: &schema.DocType{Type: "Store", Description: "Itself."},
			Raises:  []schema.DocType{{Type: "KeyError", Description: "When missing."}},
		}},
		{KindMethod, "get", FormatSphinx, schema.DocFields{
			Summary: "Get a key.",
			Params:  []schema.DocParam{{Name: "key", Type: "str", Description: "The key."}},
			Returns: &schema.DocType{Type: "bytes", Description: "The value."},
			Raises:  []schema.DocType{{Type: "KeyError", Description: "If absent."}},
		}},
		{KindFunction, "helper", FormatPlain, schema.DocFields{Summary: "Plain helper doc."}},
	}
	for _, c := range cases {
		d := docOf(t, f, indexOf(t, f, c.kind, c.name))
		eq(t, c.name+" format", d.Format, c.format)
		eq(t, c.name+" fields", d.Fields, c.fields)
	}
	if d := docOf(t, f, indexOf(t, f, KindFunction, "load")); !strings.HasPrefix(d.Content, "Load a record.\n\nArgs:\n    path (str): Where to read.\n        Continues here.") {
		t.Errorf("load docstring not dedented: %q", d.Content)
	}
}

func TestPythonCodeFacts(t *testing.T) {
	cases := []struct {
		name, src, fn string
		want          codeFacts
	}{
		{"global then assign", "n = 0\ndef f():\n    global n\n    n = 1\n", "f", codeFacts{Mutates: []string{"n"}}},
		{"assign without global is a local", "n = 0\ndef f():\n    n = 1\n    n += 1\n", "f", codeFacts{}},
		{"global not declared at module level", "def f():\n    global seen\n    seen = True\n", "f", codeFacts{Mutates: []string{"seen"}}},
		{"subscript of module dict", "_reg = {}\ndef f(k):\n    _reg[k] = 1\n", "f", codeFacts{Mutates: []string{"_reg"}}},
		{"parameter shadows module name", "_reg = {}\ndef f(_reg):\n    _reg['k'] = 1\n", "f", codeFacts{}},
		{"for target shadows", "items = []\ndef f():\n    for items in x:\n        items.append(1)\n", "f", codeFacts{}},
		{"del and mutating method", "_c = {}\n_l = []\ndef f(k):\n    del _c[k]\n    _l.append(k)\n", "f", codeFacts{Mutates: []string{"_c", "_l"}}},
		{"attribute of module object", "state = S()\ndef f():\n    state.ready = True\n", "f", codeFacts{Mutates: []string{"state"}}},
		{"self and cls attributes", "class A:\n    def f(self):\n        self.a.b = 1\n        self.c[0] = 2\n    @classmethod\n    def g(cls):\n        cls.count += 1\n", "f", codeFacts{Mutates: []string{"self.a", "self.c"}}},
		{"closure var of outer function", "def outer():\n    cache = {}\n    def inner(k):\n        cache[k] = 1\n", "inner", codeFacts{}},
		{"raise forms", "def f(e):\n    raise ValueError('bad ' + str(e))\n    raise KeyError\n    raise e\n    raise mod.Custom('x %s' % e) from e\n    raise\n", "f",
			codeFacts{Raises: []string{"ValueError", "KeyError", "mod.Custom"}, ErrorStrings: []string{"bad ", "x %s"}}},
		{"error strings", "def f():\n    log.exception('boom')\n    self.logger.warning('careful {}'.format(1))\n    print('not an error')\n    errs.append(TimeoutError('slow'))\n    assert ok, 'must be ok'\n", "f",
			codeFacts{ErrorStrings: []string{"boom", "careful {}", "slow", "must be ok"}}},
		{"raise in nested function stays there", "def outer():\n    def inner():\n        raise RuntimeError('x')\n    return inner\n", "outer", codeFacts{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(t, Python, c.src)
			var got *Symbol
			for i := range f.Symbols {
				if f.Symbols[i].Name == c.fn {
					got = &f.Symbols[i]
				}
			}
			if got == nil {
				t.Fatalf("no symbol %s in %v", c.fn, symbolLines(f))
			}
			eq(t, "facts", factsOf(*got), c.want)
		})
	}
}

func TestPythonImports(t *testing.T) {
	src := "import a.b.c\nimport x as y, z\nfrom ... import m\nfrom ...pkg.mod import (p,\n    q as r)\nfrom .m import *\nfrom __future__ import annotations\ndef f():\n    import json\n"
	eq(t, "imports", extract(t, Python, src).Imports, []Import{
		{Line: 1, Kind: ImportPlain, Module: "a.b.c"},
		{Line: 2, Kind: ImportPlain, Module: "x", Alias: "y"},
		{Line: 2, Kind: ImportPlain, Module: "z"},
		{Line: 3, Kind: ImportFrom, Level: 3, Names: []ImportName{{Name: "m"}}},
		{Line: 4, Kind: ImportFrom, Module: "pkg.mod", Level: 3, Names: []ImportName{{Name: "p"}, {Name: "q", Alias: "r"}}},
		{Line: 6, Kind: ImportFrom, Module: "m", Level: 1, Names: []ImportName{{Name: "*"}}},
		{Line: 7, Kind: ImportFrom, Module: "__future__", Names: []ImportName{{Name: "annotations"}}},
		{Line: 9, Kind: ImportPlain, Module: "json"},
	})
}

func TestPythonVariablesAndNesting(t *testing.T) {
	src := `A = B = 1
x, (y, *z) = 1, (2, 3)
os.environ["K"] = "v"
if TYPE_CHECKING:
    HIDDEN = 1
class Outer:
    attr = 1
    class Inner:
        def m(self):
            def deep():
                pass
async def run():
    lambda: 1
`
	f := extract(t, Python, src)
	eq(t, "symbols", symbolLines(f), []string{
		"variable A 1-1 ^-",
		"variable B 1-1 ^-",
		"variable x 2-2 ^-",
		"variable y 2-2 ^-",
		"variable z 2-2 ^-",
		"class Outer 6-11 ^-",
		"class Inner 8-11 ^Outer",
		"method m 9-11 ^Inner",
		"function deep 10-11 ^m",
		"function run 12-13 ^-",
	})
}

func TestPythonSyntaxErrorRecovery(t *testing.T) {
	src := "def good(a):\n    return a\n\nclass Fine:\n    pass\n\ndef broken(:\n    x = = 2\n"
	f := extract(t, Python, src)
	if f.ErrorNodes == 0 {
		t.Fatal("want error nodes for broken syntax")
	}
	eq(t, "recovered symbols", symbolLines(f)[:2], []string{"function good 1-2 ^-", "class Fine 4-5 ^-"})
}

func TestPythonInvalidUTF8(t *testing.T) {
	src := "def caf\xe9():\n    \"\"\"Doc \xff\xfe.\"\"\"\n    # note \xc3\x28 here\n    raise ValueError('bad \xff')\n\ndef ok():\n    pass\n"
	f := extract(t, Python, src)
	allValid(t, f)
	eq(t, "ok still found", symbol(t, f, KindFunction, "ok").StartLine, 6)
}
