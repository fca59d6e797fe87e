package lang

import "testing"

func TestGoStoreFixture(t *testing.T) {
	f := extractFile(t, "store.go")
	if f.Language != Go || f.ErrorNodes != 0 {
		t.Fatalf("language %q, error nodes %d", f.Language, f.ErrorNodes)
	}
	eq(t, "symbols", symbolLines(f), []string{
		"variable ErrNotFound 18-18 ^-",
		"variable hits 21-21 ^-",
		"variable cache 22-22 ^-",
		"variable errBad 23-23 ^-",
		"variable Small 28-28 ^-",
		"variable Large 29-29 ^-",
		"class Store 33-38 ^-",
		"interface Getter 41-45 ^-",
		"method Get 44-44 ^Getter",
		"type_alias Size 48-48 ^-",
		"type_alias Alias 49-49 ^-",
		"method Get 55-68 ^Store", // parent is the receiver type
		"method Put 71-86 ^Store",
		"function load 88-101 ^-",
	})
	get := f.Symbols[11]
	eq(t, "Get signature", get.Signature, "func (s *Store[K]) Get(k K, opt opts.Option) (*Item, error) {")
	eq(t, "Get receiver", get.Receiver, "Store")

	eq(t, "imports", f.Imports, []Import{
		{Line: 7, Kind: ImportPlain, Module: "errors"},
		{Line: 8, Kind: ImportPlain, Module: "fmt"},
		{Line: 9, Kind: ImportPlain, Module: "github.com/pkg/errors", Alias: "xerr"},
		{Line: 10, Kind: ImportPlain, Module: "log/slog"},
		{Line: 12, Kind: ImportPlain, Module: "embed", Alias: "_"},
		{Line: 15, Kind: ImportPlain, Module: "os"},
	})

	var docs []string
	for _, d := range f.Docstrings {
		docs = append(docs, symName(f, d.Symbol)+": "+d.Content)
	}
	eq(t, "docstrings", docs, []string{
		"-: Package store keeps items.\n\nIt is safe for one writer.",
		"ErrNotFound: ErrNotFound is returned when a key is missing.",
		"Small: Small is small.",
		"Store: Store holds items.",
		"Getter: Getter gets.",
		"Get: Get returns the item for k.",
		"Get: Get returns the item.", // the //go:noinline directive is dropped
		"Put: Put stores it.",
	})
	eq(t, "comments", commentLines(f), []string{
		"56 Get rationale true: we need the count for metrics",
		"72 Put todo false: TODO: validate k",
	})

	eq(t, "references", refLines(f), []string{
		"ErrNotFound call errors.New@18",
		"errBad call xerr.New@23",
		"Small type_ref Size@28",
		"Store inherit sync.Mutex@34", // embedded
		"Store inherit Base@35",
		"Store type_ref Item@36", // K is a type parameter
		"Store type_ref slog.Logger@37",
		"Getter inherit fmt.Stringer@42",
		"Get type_ref Item@44",
		"Alias type_ref Item@49",
		"Get type_ref opts.Option@55",
		"Get type_ref Item@55",
		"Get call s.Lock@57",
		"Get call s.Unlock@58",
		"Get call s.log.Error@61",
		"Get call fmt.Errorf@65",
		"Put type_ref Item@71",
		"Put call panic@74",
		"Put call fmt.Sprint@78",
		"Put call os.Remove@80",
		"Put call slog.Error@82",
		"load call errors.New@89",
	})

	eq(t, "ErrNotFound facts", factsOf(f.Symbols[0]), codeFacts{ErrorStrings: []string{"not found"}})
	eq(t, "errBad facts", factsOf(f.Symbols[3]), codeFacts{ErrorStrings: []string{"bad item"}})
	eq(t, "Get facts", factsOf(get), codeFacts{
		Raises:       []string{"ErrNotFound", "errBad"}, // errBad wrapped with %w
		ErrorStrings: []string{"missing item", "item %v: %w"},
		Mutates:      []string{"hits"},
	})
	eq(t, "Put facts", factsOf(f.Symbols[12]), codeFacts{
		Raises:       []string{"panic"},
		ErrorStrings: []string{"nil item", "remove failed"}, // from the func literal too
		Mutates:      []string{"s.items", "s.count", "cache"},
	})
	// errLocal and the local hits are locals; &PathError{} is an error type.
	eq(t, "load facts", factsOf(f.Symbols[13]), codeFacts{
		Raises:       []string{"PathError", "os.ErrNotExist"},
		ErrorStrings: []string{"local"},
	})
}

func TestGoCodeFacts(t *testing.T) {
	cases := []struct {
		name, src string
		want      codeFacts
	}{
		{"shadowed in if header only", "package p\nvar n int\nfunc f() {\n\tif n := 2; n > 1 {\n\t\tn++\n\t}\n\tn = 3\n}\n", codeFacts{Mutates: []string{"n"}}},
		{"func literal parameter shadows", "package p\nvar m = map[int]int{}\nfunc f() {\n\tg := func(m map[int]int) { m[1] = 1 }\n\t_ = g\n\tdelete(m, 2)\n}\n", codeFacts{Mutates: []string{"m"}}},
		{"range with = assigns", "package p\nvar last string\nfunc f(xs []string) {\n\tfor _, last = range xs {\n\t}\n}\n", codeFacts{Mutates: []string{"last"}}},
		{"receiver through pointer and index", "package p\nfunc (r *R) f() {\n\t(*r).n = 1\n\tr.m[\"k\"]++\n\tr.a.b.c = 2\n}\n", codeFacts{Mutates: []string{"r.n", "r.m", "r.a"}}},
		{"const is not mutable state", "package p\nconst c = 1\nfunc f() { c = 2 }\n", codeFacts{}},
		{"err is never a sentinel", "package p\nfunc f() error {\n\terr := g()\n\treturn err\n}\n", codeFacts{}},
		{"sentinel names", "package p\nfunc f() (int, error) {\n\tif a {\n\t\treturn 0, io.EOF\n\t}\n\tif b {\n\t\treturn 0, errs.ErrClosed\n\t}\n\treturn 0, errTimeout\n}\n",
			codeFacts{Raises: []string{"errs.ErrClosed", "errTimeout"}}},
		{"panic and log", "package p\nfunc f() {\n\tlog.Fatalf(\"cannot start: %v\", err)\n\tlog.Panicln(\"boom\")\n\tlogger.Warnf(\"slow %d\", n)\n\tt.Errorf(\"test failure\")\n\tpanic(fmt.Sprintf(\"bad state %d\", n))\n}\n",
			codeFacts{Raises: []string{"panic"}, ErrorStrings: []string{"cannot start: %v", "boom", "slow %d", "bad state %d"}}},
		{"error constructors", "package p\nimport pe \"github.com/pkg/errors\"\nimport \"google.golang.org/grpc/status\"\nfunc f() error {\n\t_ = status.Errorf(codes.NotFound, \"grpc gone\")\n\t_ = other.Errorf(\"not an error package\")\n\treturn pe.Wrap(err, \"wrapped \" + x)\n}\n",
			codeFacts{ErrorStrings: []string{"grpc gone", "wrapped "}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(t, Go, c.src)
			var got *Symbol
			for i := range f.Symbols {
				if f.Symbols[i].Name == "f" {
					got = &f.Symbols[i]
				}
			}
			if got == nil {
				t.Fatalf("no f in %v", symbolLines(f))
			}
			eq(t, "facts", factsOf(*got), c.want)
		})
	}
}

func TestGoSyntaxErrorRecovery(t *testing.T) {
	src := "package p\n\nfunc good() int { return 1 }\n\ntype T struct{ a int }\n\nfunc broken( {\n\tx := := 2\n}\n"
	f := extract(t, Go, src)
	if f.ErrorNodes == 0 {
		t.Fatal("want error nodes for broken syntax")
	}
	eq(t, "recovered symbols", symbolLines(f)[:2], []string{"function good 3-3 ^-", "class T 5-5 ^-"})
}

func TestGoInvalidUTF8(t *testing.T) {
	src := "// Package p \xff.\npackage p\n\n// F does \xfe.\nfunc F() error { return errors.New(\"bad \xc3\") }\n\nfunc OK() {}\n"
	f := extract(t, Go, src)
	allValid(t, f)
	eq(t, "OK found", symbol(t, f, KindFunction, "OK").StartLine, 7)
	eq(t, "F error string", symbol(t, f, KindFunction, "F").ErrorStrings, []string{"bad \uFFFD"})
}

func TestGoPackageName(t *testing.T) {
	for path, want := range map[string]string{
		"fmt":                                  "fmt",
		"example.com/x/store":                  "store",
		"k8s.io/klog/v2":                       "klog",
		"gopkg.in/yaml.v3":                     "yaml",
		"github.com/mattn/go-sqlite3":          "sqlite3",
		"github.com/getsentry/sentry-go":       "sentry",
		"github.com/smacker/go-tree-sitter/v1": "tree-sitter",
		"v2":                                   "v2",
	} {
		if got := GoPackageName(path); got != want {
			t.Errorf("GoPackageName(%q) = %q, want %q", path, got, want)
		}
	}
}
