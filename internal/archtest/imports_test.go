package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// everything is the "may import" of a folder that may import any cra
// package (cmd/cra: the CLI wires them all).
const everything = "..."

// mayImport is the "may import" column of the design's package table
// (DESIGN.md, "Packages"): a folder, and the cra folders its packages may
// import. A package is governed by the row of the longest folder holding
// it; a folder named in a list allows the folders below it too (kb allows
// kb/schema), and a package may import any package its own row governs
// (ingest imports ingest/walk). Anyone may import internal/*; what is not
// cra (duckdb, gonum, the standard library) is not checked here.
var mayImport = map[string][]string{
	"cmd/cra":   {everything},
	"kb":        {"kb/schema"},
	"kb/schema": nil, // a leaf
	"ingest":    {"kb", "agent/llm", "agent/prompt"},
	"agent/llm": {"kb"},
	// "kb (types only)": the types live in kb/schema.
	"agent/prompt": {"kb/schema"},
	// Beyond DESIGN.md's table: agent/pathrule is the one rule of which
	// paths a run may read or write inside its worktree (after links are
	// resolved), a leaf every agent package that touches files imports.
	"agent/pathrule":  nil,
	"agent/retrieval": {"kb", "agent/llm", "agent/prompt", "agent/pathrule"},
	"agent/execute":   {"kb", "agent/llm", "agent/prompt", "agent/retrieval", "agent/pathrule"},
	// "the agent packages above", and kb, which they all import: the
	// orchestrator writes its runs' rows and reads the knowledge base.
	"agent/orchestrator": {"agent/llm", "agent/prompt", "agent/retrieval", "agent/execute", "agent/pathrule", "kb"},
	// "agent/*, kb, ingest, internal/stats": not analysis.
	"agent/eval":     {"agent", "kb", "ingest"},
	"agent/adapters": {"kb", "agent/llm", "agent/eval"},
	"agent/ask":      {"kb", "agent/llm", "agent/prompt", "agent/retrieval"},
	// The folder agent holds only the agent packages' doc comment.
	"agent":          nil,
	"bootstrap":      {"ingest", "kb", "agent/retrieval"},
	"analysis":       {"kb", "agent/llm", "agent/prompt"},
	"curate":         {"kb", "agent/prompt", "agent/llm", "datasets"},
	"curate/distill": {"curate", "kb", "agent/prompt", "agent/llm"},
	"datasets":       {"kb"},
	// Beyond DESIGN.md's table: shards splits the nightly batch across
	// machines (selection, export, import, the union's views); cmd/cra
	// wires it, and bootstrap and ingest know nothing of it.
	"shards":    {"kb"},
	"notebooks": nil,
	"internal":  nil,
	// "internal/storetest may import kb".
	"internal/storetest": {"kb"},
	// Beyond DESIGN.md's table: the e2e harness (make e2e) plants cra
	// eval's oracle answers from a store's ground truth, and cra ask's;
	// make shards compares a union with one run by shards.Checks.
	"internal/e2e": {"agent/eval", "agent/ask", "kb", "shards"},
	// The command line's test helpers make eval homes and the fake
	// model's oracle from a home's held-out tasks, and answer a solve's
	// calls by the stage its prompt names.
	"internal/clitest": {"agent/eval", "agent/prompt", "kb"},
}

// TestImportsFollowTheDesign reads the imports of every non-test Go file
// of the module and fails on each import of a cra package that the
// importer's row of mayImport does not allow, and on a package no row
// governs.
func TestImportsFollowTheDesign(t *testing.T) {
	root, module := moduleRoot(t)
	edges := importsOf(t, root, module)
	if len(edges) < 10 {
		t.Fatalf("read %d packages under %s: the walk missed the module", len(edges), root)
	}
	for _, pkg := range slices.Sorted(maps.Keys(edges)) {
		row, ok := governing(pkg)
		if !ok {
			t.Errorf("package %s has no row in the package table: add one to DESIGN.md and to mayImport", pkg)
			continue
		}
		for _, imp := range edges[pkg] {
			if !allowed(row, imp.path) {
				t.Errorf("%s imports %s (%s): the package table lets %s import only %v and internal/*",
					pkg, imp.path, imp.file, row, mayImport[row])
			}
		}
	}
}

// TestAllowed: the rule itself, on both sides of each of its cases.
func TestAllowed(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		want     bool
	}{
		{"agent/eval", "analysis", false},
		{"agent/eval", "internal/stats", true},
		{"agent/eval", "agent/orchestrator", true},  // agent/*
		{"agent/eval/evaltest", "agent/eval", true}, // its own row
		{"kb", "kb/schema", true},
		{"kb", "agent/llm", false},
		{"kb/schema", "kb", false},
		{"analysis", "kb/schema", true}, // below an allowed folder
		{"analysis", "kbx", false},      // a prefix of a name is no folder
		{"analysis", "datasets", false}, // nothing else
		{"datasets", "internal/report", true},
		{"cmd/cra", "curate", true},
		{"ingest/walk", "ingest/history", true},
		{"internal/charts", "kb", false},
		{"internal/storetest", "kb", true},
		{"shards", "kb/schema", true},
		{"shards", "bootstrap", false},
		{"bootstrap", "shards", false},
		{"ingest", "shards", false},
	} {
		row, ok := governing(tc.pkg)
		if !ok {
			t.Fatalf("%s: no row", tc.pkg)
		}
		if got := allowed(row, tc.imp); got != tc.want {
			t.Errorf("%s (row %s) importing %s: allowed %v, want %v", tc.pkg, row, tc.imp, got, tc.want)
		}
	}
}

// governing is the row of the longest folder of mayImport that holds pkg.
func governing(pkg string) (string, bool) {
	for p := pkg; p != "." && p != ""; p = path.Dir(p) {
		if _, ok := mayImport[p]; ok {
			return p, true
		}
	}
	return "", false
}

// allowed says whether a package governed by row may import imp.
func allowed(row, imp string) bool {
	if within(imp, "internal") {
		return true
	}
	if r, ok := governing(imp); ok && r == row {
		return true
	}
	for _, a := range mayImport[row] {
		if a == everything || within(imp, a) {
			return true
		}
	}
	return false
}

// within says whether package p is folder dir or below it.
func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

type edge struct{ path, file string }

// importsOf maps each package of the module (by folder, relative to root)
// to the cra packages its non-test files import, each with the first file
// that does.
func importsOf(t *testing.T, root, module string) map[string][]edge {
	t.Helper()
	out := map[string][]edge{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// The go tool's own rule: testdata and names starting with . or _
			// hold no package; vendor is not cra's.
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, is := range f.Imports {
			imp, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return err
			}
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			imp = strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if !slices.ContainsFunc(out[pkg], func(e edge) bool { return e.path == imp }) {
				out[pkg] = append(out[pkg], edge{imp, filepath.ToSlash(filepath.Join(pkg, name))})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the imports under %s: %v", root, err)
	}
	return out
}

// moduleRoot is the folder of the module's go.mod, above the test's
// working directory, and the module's path.
func moduleRoot(t *testing.T) (string, string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir, modfile.ModulePath(data)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
