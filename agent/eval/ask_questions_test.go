package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// indexedAt is a curated store of repo at rev, indexed by the real
// indexer, and its knowledge base.
func indexedAt(t *testing.T, repo, rev string) (*kb.KnowledgeBase, kb.Repo) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "home")
	storetest.HomeAt(t, dir)
	s, err := kb.Open(ctx, dir, kb.Curated, kb.Options{Write: true, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := ingest.Index(ctx, s.DB, repo, ingest.Options{Jobs: 1, Rev: rev}); err != nil {
		t.Fatal(err)
	}
	k := kb.NewKnowledgeBase(s.DB)
	rs, err := k.Repos(ctx)
	if err != nil || len(rs) != 1 {
		t.Fatalf("repos %v, %v", rs, err)
	}
	return k, rs[0]
}

// Each kind's question and its expected answer, from a real repository
// indexed by the real indexer; the same seed draws the same questions.
func TestCodeQuestionsOfAFixtureRepository(t *testing.T) {
	h := gittest.NewAskHistory(t)
	k, repo := indexedAt(t, h.Dir, h.Feature)
	qs, err := CodeQuestions(context.Background(), k, repo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range qs {
		var syms []string
		for _, s := range q.Symbols {
			syms = append(syms, s.Name+"@"+s.Cite())
		}
		if !strings.HasPrefix(q.ID, "ask/"+q.Kind+"/") || q.Repo != repo.Path || q.Rev != "" {
			t.Errorf("question %+v: id, repository or revision wrong", q)
		}
		got = append(got, fmt.Sprintf("%s %s %q files=%v symbols=%v", q.Kind, q.Mode, q.Text, q.Files, syms))
	}
	want := []string{
		`conceptual conceptual "How does this work in the code: Commands and their parameters?" files=[tool/core.py] symbols=[]`,
		`conceptual conceptual "How does this work in the code: Wrap long help text into columns that fit the terminal width?" files=[tool/formatting.py] symbols=[]`,
		`diagnostic diagnostic "Why do I get \"UsageError: Missing parameter: name\"?" files=[tool/core.py] symbols=[require@tool/core.py:13-16]`,
		`exploratory exploratory "Trace what happens when check runs, step by step" files=[tool/core.py tool/names.py] symbols=[check@tool/core.py:31-32 require@tool/core.py:13-16 _is_blank@tool/core.py:9-10 normalize_name@tool/names.py:1-2]`,
		`exploratory exploratory "Trace what happens when convert runs, step by step" files=[tool/core.py] symbols=[convert@tool/core.py:27-28 check@tool/core.py:31-32 require@tool/core.py:13-16 _is_blank@tool/core.py:9-10]`,
		`exploratory exploratory "Trace what happens when main runs, step by step" files=[tool/core.py] symbols=[main@tool/core.py:19-20 parse@tool/core.py:23-24 convert@tool/core.py:27-28 check@tool/core.py:31-32]`,
		`exploratory exploratory "Trace what happens when parse runs, step by step" files=[tool/core.py] symbols=[parse@tool/core.py:23-24 convert@tool/core.py:27-28 check@tool/core.py:31-32 require@tool/core.py:13-16]`,
		`exploratory exploratory "Trace what happens when require runs, step by step" files=[tool/core.py tool/names.py] symbols=[require@tool/core.py:13-16 _is_blank@tool/core.py:9-10 normalize_name@tool/names.py:1-2]`,
	}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("questions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	one := SampleQuestions(qs, 1, 7)
	if len(one) != 3 || !slices.Equal(ids(one), ids(SampleQuestions(qs, 1, 7))) {
		t.Errorf("one of each kind, twice the same: %v", ids(one))
	}
	drawn := map[string]bool{}
	// 100 seeds: the chance that one of five exploratory questions is
	// never drawn is 5·0.8^100, where 20 seeds left it at 6 %.
	for seed := range int64(100) {
		for _, q := range SampleQuestions(qs, 1, seed) {
			drawn[q.ID] = true
		}
	}
	if len(drawn) != len(qs) {
		t.Errorf("100 seeds drew %d of the %d questions: the seed does not change the draw", len(drawn), len(qs))
	}
}

func ids(qs []Question) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.ID)
	}
	return out
}

// A bug report is asked over a knowledge base of its fix's parent: the
// function and the file the fix adds are not in it, and the function it
// changes is as it was before.
func TestBugReportIsAskedAtTheFixParent(t *testing.T) {
	h := gittest.NewAskHistory(t)
	home := filepath.Join(t.TempDir(), "home")
	q := newQuestion(KindBugReport, h.Dir, h.Base, "Fix crash when the name is empty", []string{"tool/core.py"}, nil)
	asked := 0
	a := &asker{opts: AskOptions{Home: home}, scratch: filepath.Join(home, "scratch"),
		askRun: func(ctx context.Context, o ask.Options) (*ask.Result, error) {
			asked++
			if o.Knowledge == nil {
				t.Fatal("a bug report was asked over the home's knowledge base, which holds the fix")
			}
			k := kb.NewKnowledgeBase(o.Knowledge.DB)
			rs, err := k.Repos(ctx)
			if err != nil || len(rs) != 1 {
				t.Fatalf("repos %v, %v", rs, err)
			}
			if rs[0].HeadCommit != h.Base {
				t.Errorf("the knowledge base holds history to %s, want the fix's parent %s", rs[0].HeadCommit, h.Base)
			}
			if _, err := k.GetFileByPath(ctx, rs[0].ID, "tool/names.py"); err == nil {
				t.Error("the file the fix adds is in the knowledge base")
			}
			for _, name := range []string{"_is_blank", "normalize_name"} {
				if es, _ := k.SearchCodeIndex(ctx, rs[0].ID, kb.CodeIndexQuery{Name: name}); len(es) > 0 {
					t.Errorf("%s, which the fix adds, is in the knowledge base", name)
				}
			}
			req, _ := k.SearchCodeIndex(ctx, rs[0].ID, kb.CodeIndexQuery{Name: "require"})
			if len(req) != 1 || slices.Contains(req[0].Calls, "_is_blank") {
				t.Errorf("require as the knowledge base has it: %+v, want the parent's (no _is_blank)", req)
			}
			return &ask.Result{}, nil
		}}
	defer func() {
		if a.k != nil {
			a.k.close()
		}
	}()
	storetest.HomeAt(t, home)
	if _, err := a.ask(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Fatalf("asked %d times", asked)
	}
}

func TestAsShownFillsPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Missing parameter: {name}", "Missing parameter: name"},
		{"invalid width {self.width!r} (must be > 0)", "invalid width width (must be > 0)"},
		{"Got {len(args)} args", "Got args args"},
		{"{} is bad", "x is bad"},
		{"no such option: %s", "no such option: x"},
		{"no such option: %(name)s", "no such option: name"},
		{"  spaced\n  out  ", "spaced out"},
		{"100% sure", "100% sure"},
	} {
		if got := asShown(c.in); got != c.want {
			t.Errorf("asShown(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDiagnosticQuestionsLeaveOutSharedAndShortMessages(t *testing.T) {
	entries := []kb.CodeIndexEntry{
		{QualifiedName: "a", FilePath: "src/a.py", ErrorStrings: []string{"Shared message for two functions"}, Raises: []string{"ValueError"}},
		{QualifiedName: "b", FilePath: "src/b.py", ErrorStrings: []string{"Shared message for two functions", "Only b says this"}, Raises: []string{"ValueError", "TypeError"}},
		{QualifiedName: "c", FilePath: "src/c.py", ErrorStrings: []string{"too short"}},
		{QualifiedName: "test_d", FilePath: "tests/test_d.py", ErrorStrings: []string{"A test's own message here"}},
		{QualifiedName: "e", FilePath: "src/e.py", ErrorStrings: []string{"Bad value given here"}, Raises: []string{"click.BadParameter"}},
	}
	var got []string
	for _, q := range DiagnosticQuestions("/r", entries) {
		got = append(got, q.Text+" "+strings.Join(q.Files, ","))
	}
	want := []string{`Why do I get "Only b says this"? src/b.py`, `Why do I get "BadParameter: Bad value given here"? src/e.py`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestExploratoryChainsNeedUniqueNamesAndTwoHops(t *testing.T) {
	e := func(id int64, name, file string, calls ...string) kb.CodeIndexEntry {
		return kb.CodeIndexEntry{ID: id, QualifiedName: name, FilePath: file, SymbolType: "function", Calls: calls}
	}
	entries := []kb.CodeIndexEntry{
		e(1, "start", "a.py", "dup", "mid"),
		e(2, "dup", "a.py", "end"), e(3, "dup", "b.py", "end"), // ambiguous: never a hop
		e(4, "mid", "b.py", "end"),
		e(5, "end", "c.py", "start"), // a cycle back to start is not followed
		e(6, "short", "a.py", "leaf"),
		e(7, "leaf", "a.py"),
		{ID: 8, QualifiedName: "Klass", FilePath: "a.py", SymbolType: "class", Calls: []string{"mid"}},
		e(9, "test_it", "tests/test_a.py", "start"),
	}
	var got []string
	for _, q := range ExploratoryQuestions("/r", entries) {
		var names []string
		for _, s := range q.Symbols {
			names = append(names, s.Name)
		}
		got = append(got, strings.Join(names, ">")+" "+strings.Join(q.Files, ","))
	}
	want := []string{"start>mid>end a.py,b.py,c.py", "mid>end>start b.py,c.py,a.py", "end>start>mid c.py,a.py,b.py"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestConceptualQuestionsDoNotNameTheFile(t *testing.T) {
	docs := []FileDoc{
		{"src/click/termui.py", "Termui helpers prompt the user and show progress bars. More here."},
		{"src/click/short.py", "Short module."},
		{"tests/test_x.py", "Tests of prompting the user for input"},
	}
	qs := ConceptualQuestions("/r", docs)
	if len(qs) != 1 || qs[0].Text != "How does this work in the code: helpers prompt the user and show progress bars?" ||
		!slices.Equal(qs[0].Files, []string{"src/click/termui.py"}) {
		t.Errorf("got %+v", qs)
	}
}

func TestBugReportsExpectTheSourceFilesTouched(t *testing.T) {
	task := func(msg string, touched ...string) Task {
		tk := Task{ID: msg, Repo: "/r", Commit: "c", Parent: "p", Text: msg}
		tk.Truth.Scope.Touched = touched
		return tk
	}
	py := func(p string) bool { return strings.HasSuffix(p, ".py") }
	qs := BugReportQuestions([]Task{
		task("Fix the parser", "CHANGES.rst", "src/parser.py", "tests/test_parser.py", "docs/parser.md"),
		task("Fix the tests only", "tests/test_parser.py"),
		task("Add a verbose flag", "src/cli.py"),
	}, py)
	if len(qs) != 1 || !slices.Equal(qs[0].Files, []string{"src/parser.py"}) || qs[0].Rev != "p" || qs[0].Commit != "c" || qs[0].Mode != ask.Diagnostic {
		t.Errorf("got %+v", qs)
	}
}
