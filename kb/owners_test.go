package kb_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// tableOwners is the package whose SQL writes each table of the
// migrations (kb/doc.go states the rule): only it and kb spell the table
// in SQL. A new table fails TestSQLOwnership until it has a line here.
var tableOwners = map[string]string{
	// curated.duckdb: cra index writes it.
	"repos": "ingest", "files": "ingest", "symbols": "ingest", "docstrings": "ingest", "inline_comments": "ingest",
	"imports": "ingest", "name_references": "ingest", "dependencies": "ingest", "symbol_references": "ingest",
	"commits": "ingest", "commit_files": "ingest", "file_commits": "ingest", "co_changes": "ingest",
	"file_metadata": "ingest", "skipped_files": "ingest", "code_index": "ingest",
	"adapter_metadata": "kb",        // no writer yet; kb's KnowledgeBase reads it
	"bootstrap_facts":  "bootstrap", // bootstrap's parsed facts kept across runs
	// raw.duckdb
	"enrichment_outputs": "ingest",
	"index_runs":         "kb",
	"task_runs":          "kb", "retrieval_llm_calls": "kb", "retrieval_decisions": "kb", "run_attempts": "kb",
	"validation_results": "kb", "session_archives": "kb", "orchestrator_runs": "kb", "orchestrator_passes": "kb",
	"gen_ai_calls": "kb", "solve_trace": "kb",
	"training_plans": "kb", "training_datasets": "kb", "training_examples": "kb", "training_examples_staging": "kb",
	"dataset_versions": "kb",
	"adapter_registry": "kb", // dropped by 0016_adapters
	"adapters":         "kb", "adapter_gates": "kb", "adapter_events": "kb",
	"distill_runs": "kb", "distill_cache": "kb", "distill_spend": "kb", "distill_batches": "kb",
	"distill_outcomes": "kb", "distill_pairs": "kb",
	"bootstrap_runs": "bootstrap", "bootstrap_repos": "bootstrap", "bootstrap_commits": "bootstrap",
	"bootstrap_merges": "bootstrap", "bootstrap_funnel": "bootstrap", "bootstrap_walked": "bootstrap",
	"synthetic_tasks": "bootstrap", "synthetic_targets": "bootstrap",
	"eval_runs": "agent/eval", "eval_tasks": "agent/eval", "eval_results": "agent/eval",
	"eval_commit_tests": "agent/eval", "eval_commit_judgements": "agent/eval", "ask_questions": "agent/eval",
	"shard_home": "shards", "shard_runs": "shards",
}

// tableCopiers may spell tables they do not own, to copy them whole:
// shards exports bootstrap's tables as Parquet and loads them into
// another home (its own SQL, anti-joined on bootstrap's keys), and views
// them in place for `cra sql --shards`. It never reads them for a
// feature of its own.
var tableCopiers = map[string][]string{
	"shards": {"bootstrap_runs", "bootstrap_repos", "bootstrap_commits", "bootstrap_merges",
		"synthetic_tasks", "synthetic_targets"},
}

// sqlExempt are the packages whose SQL is users' SQL, not cra's: what
// `cra sql` runs and the help text that shows it, the notebooks, and the
// store fixtures tests build.
var sqlExempt = map[string]string{
	"cmd/cra":            "users' SQL: cra sql, and help text showing queries to type",
	"notebooks":          "users' SQL notebooks",
	"internal/storetest": "test fixtures writing the rows tests need",
}

var (
	createRE = regexp.MustCompile(`(?i)CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_]+)`)
	// cra's SQL spells its keywords in capitals; prose ("from files")
	// and the queries help text suggests to users do not.
	sqlNameRE = regexp.MustCompile(`\b(?:FROM|JOIN|INTO|UPDATE)\s+(?:raw\.|curated\.)?([a-z_]+)\b`)
)

// TestSQLOwnership enforces kb/doc.go's rule: outside kb, a package's SQL
// names only the tables it owns. It scans the string literals of every
// non-test .go file for FROM/JOIN/INTO/UPDATE <table>, and the table a
// call of an Append* method names.
func TestSQLOwnership(t *testing.T) {
	t.Parallel()
	tables := migrationTables(t)
	for _, tb := range tables {
		if tableOwners[tb] == "" {
			t.Errorf("table %s has no owner in tableOwners: name the package that writes it", tb)
		}
	}
	uses := sqlUses(t, tables)
	var got []string
	for use, where := range uses {
		pkg, table, _ := strings.Cut(use, " ")
		if tableOwners[table] == pkg || slices.Contains(tableCopiers[pkg], table) {
			continue
		}
		got = append(got, use+" ("+where+")")
	}
	sort.Strings(got)
	for _, v := range got {
		t.Errorf("%s: move this SQL into a reader in kb (kb/doc.go), or into the table's owner", v)
	}
}

// migrationTables are the tables and views the migrations create.
func migrationTables(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir("migrations", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range createRE.FindAllStringSubmatch(string(b), -1) {
			seen[strings.ToLower(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for tb := range seen {
		out = append(out, tb)
	}
	sort.Strings(out)
	if len(out) < 40 {
		t.Fatalf("found only %d tables in the migrations: %v", len(out), out)
	}
	return out
}

// sqlUses maps "package table" to the first file:line outside kb and the
// exempt packages whose SQL names table.
func sqlUses(t *testing.T, tables []string) map[string]string {
	t.Helper()
	known := map[string]bool{}
	for _, tb := range tables {
		known[tb] = true
	}
	uses := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		if d.IsDir() {
			if path == ".." {
				return nil
			}
			if rel == "kb" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, ok := sqlExempt[pkg]; ok {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		add := func(tb string, pos token.Pos) {
			tb = strings.ToLower(tb)
			if !known[tb] {
				return
			}
			if _, ok := uses[pkg+" "+tb]; !ok {
				uses[pkg+" "+tb] = rel + ":" + strconv.Itoa(fset.Position(pos).Line)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					for _, m := range sqlNameRE.FindAllStringSubmatch(n.Value, -1) {
						add(m[1], n.Pos())
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Append") {
					for _, a := range n.Args {
						if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if s, err := strconv.Unquote(lit.Value); err == nil {
								add(s, lit.Pos())
							}
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return uses
}

// The scan finds a table after each SQL keyword, with or without its
// catalog, and not in prose.
func TestSQLNameRE(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"SELECT x FROM task_runs t", "task_runs"},
		{"a JOIN eval_tasks e ON", "eval_tasks"},
		{"INSERT INTO raw.training_plans (id)", "training_plans"},
		{"UPDATE curated.file_metadata SET", "file_metadata"},
		{"DELETE FROM co_changes WHERE", "co_changes"},
		{"expanding from files the task names", ""},
		{"select * from solve_trace", ""},
	} {
		got := ""
		if m := sqlNameRE.FindStringSubmatch(c.in); m != nil {
			got = m[1]
		}
		if got != c.want {
			t.Errorf("%q: found %q, want %q", c.in, got, c.want)
		}
	}
}
