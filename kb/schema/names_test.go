package schema

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// spelledElsewhere lists the places outside kb/schema where a word that is
// a stage, pass-type or call-type name is allowed to appear as a literal,
// because there it names something else that happens to share the word.
// Keyed by slash path from the module root, then by the word.
var spelledElsewhere = map[string]map[string]string{
	"agent/eval/score.go":         {StagePrecision: "a metric's name"},
	"agent/execute/run.go":        {StagePlan: "cra plan's task id prefix and task_runs mode"},
	"agent/orchestrator/solve.go": {StagePlan: "the id of a --plan run's one part"},
	"analysis/decide.go":          {StagePlan: "a train-plan decision's status"},
	"cmd/cra/cmd_distill.go":      {CallDistill: "the command's name"},
	"cmd/cra/cmd_plan.go":         {StagePlan: "the command's name"},
	"cmd/cra/cmd_solve.go":        {StagePlan: "the --plan flag"},
	"cmd/cra/cmd_adapters.go":     {StagePlan: "the --plan flag (a training plan id)"},
	"curate/logged_distilled.go":  {CallDistill: "an evidence field naming the distill run"},
	"curate/logged_items.go":      {StageAdjustment: "a label signal's name"},
	"internal/e2e/recipe.go":      {CallDistill: "the command's name"},
	"kb/status.go":                {CallDistill: "a status row, named for its command", StageTrainPlan: "a status row, named for its command"},
	"kb/task_runs.go":             {StageTrainPlan: "cra train-plan's task_runs mode"},
}

// TestNamesSpelledOnce fails when a stage, pass-type or call-type name is
// written as a string literal in Go code outside kb/schema: renaming a
// stage must be one edit here, found everywhere by the compiler. Test files
// may spell names (they check stored values); SQL inside a literal counts
// ('step_implement'), so pass names to SQL as parameters.
func TestNamesSpelledOnce(t *testing.T) {
	names := declaredNames(t)
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "kb/schema" || rel == "testdata" || strings.HasSuffix(rel, "/testdata") || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		found = append(found, literalNames(t, path, rel, names)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("stage, pass-type or call-type names spelled outside kb/schema (use the schema constants):\n%s", strings.Join(found, "\n"))
	}
}

// declaredNames are the values of the Stage*, Pass* and Call* constants
// declared in this package.
func declaredNames(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "stages.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || !(strings.HasPrefix(id.Name, "Stage") || strings.HasPrefix(id.Name, "Pass") || strings.HasPrefix(id.Name, "Call")) {
					continue // an alias of another name
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, v)
			}
		}
	}
	if !slices.Contains(names, PassStepImplement) || !slices.Contains(names, StageTaskAnalysis) || !slices.Contains(names, CallDistill) {
		t.Fatalf("declaredNames read %v from stages.go: the constants moved?", names)
	}
	return names
}

// literalNames are the file:line places where a string literal of the file
// is a name, or holds one in single quotes (SQL).
func literalNames(t *testing.T, path, rel string, names []string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	var out []string
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok != token.STRING {
			continue
		}
		v, err := strconv.Unquote(lit)
		if err != nil {
			continue
		}
		for _, n := range names {
			if (v == n || strings.Contains(v, "'"+n+"'")) && spelledElsewhere[rel][n] == "" {
				out = append(out, rel+":"+strconv.Itoa(fset.Position(pos).Line)+": "+strconv.Quote(n))
			}
		}
	}
}

// TestLiteralNames checks the scan itself: a quoted name and a name in SQL
// quotes are found, a comment, a longer word and an allowed place are not.
func TestLiteralNames(t *testing.T) {
	src := "package p\n" +
		"// \"step_implement\" in a comment\n" +
		"var a = \"step_implement\"\n" +
		"var b = `SELECT 1 WHERE pass_type = 'adjustment'`\n" +
		"var c = \"step_implemented\"\n" +
		"var d = `json:\"plan\"`\n" +
		"var e = \"plan\"\n"
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spelledElsewhere["x/p.go"] = map[string]string{StagePlan: "test"}
	defer delete(spelledElsewhere, "x/p.go")
	got := literalNames(t, path, "x/p.go", []string{PassStepImplement, PassAdjustment, StagePlan})
	want := []string{`x/p.go:3: "step_implement"`, `x/p.go:4: "adjustment"`}
	if !slices.Equal(got, want) {
		t.Errorf("literalNames = %q, want %q", got, want)
	}
}
