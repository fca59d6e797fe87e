package ask_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// The fixture's planted error path: cli (the entry point) → run (mutates
// the module's _cache) → parse_args → require, which raises
// UsageError("Missing parameter: {key}") three calls below cli; preview
// calls parse_args too without mutating anything.
const (
	cliPy = `"""Command-line entry point of the greeter."""
import sys

from pkg.core import run


def cli(argv):
    """Run the greeter from the command line."""
    params = run(argv)
    print("hello", params["name"])
    return 0


if __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
`
	corePy = `"""Parse the command line and keep what was parsed."""
from pkg.util import require

_cache = None


def run(argv):
    """Parse argv and remember the result."""
    global _cache
    _cache = parse_args(argv)
    return _cache


def preview(argv):
    """Parse argv without keeping it."""
    return parse_args(argv)


def parse_args(argv):
    """Turn key=value arguments into a dictionary."""
    params = dict(a.split("=", 1) for a in argv if "=" in a)
    require(params, "name")
    return params
`
	utilPy = `"""Checks of parsed parameters."""


class UsageError(Exception):
    """A command line that cannot be run."""


def require(params, key):
    """Fail when a parameter is missing."""
    if key not in params:
        raise UsageError(f"Missing parameter: {key}")
    return params[key]
`
	colorPy = `"""Colour palettes that style the greeting output: each palette maps a role to a terminal colour."""

PALETTES = {"plain": {}, "bold": {"name": "bright_white"}}


def palette(name):
    """Return the palette called name."""
    return PALETTES[name]
`
	storeGo = `// Package store keeps values by key.
package store

import (
	"errors"
	"fmt"
)

// ErrNotFound says a key is not stored.
var ErrNotFound = errors.New("key not found")

// Get returns the value stored under k.
func Get(m map[string]string, k string) (string, error) {
	v, ok := m[k]
	if !ok {
		return "", fmt.Errorf("get %s: %w", k, ErrNotFound)
	}
	return v, nil
}
`
)

// longTable is a function of 150 body lines: longer than
// max_source_lines_per_function (100).
func longTable() string {
	var b strings.Builder
	b.WriteString("\"\"\"Render rows as a text table.\"\"\"\n\n\ndef render_table(rows):\n    \"\"\"Render rows as the lines of a table.\"\"\"\n    out = []\n")
	for i := range 150 {
		fmt.Fprintf(&b, "    out.append(\"row %d: \" + str(rows[%d]))\n", i, i)
	}
	b.WriteString("    return out\n")
	return b.String()
}

// lineOf is the 1-based line of the first line of text holding s.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q is not in the fixture", s)
	}
	return strings.Count(text[:i], "\n") + 1
}

// fixture is the indexed repository every subtest reads.
type fixture struct {
	kb    *kb.KnowledgeBase
	repo  kb.Repo
	graph *retrieval.KnowledgeGraph
	fix   string // the bug-fix commit touching pkg/core.py
}

func (f fixture) retriever(cfg config.Ask) *ask.Retriever {
	return &ask.Retriever{KB: f.kb, Repo: f.repo, Graph: f.graph, Config: cfg}
}

// buildFixture makes the repository (three commits: the greeter, a bug fix
// in pkg/core.py, a palette), indexes it with the real indexer, promotes a
// description of pkg/core.py and opens the store read-only.
func buildFixture(t *testing.T) fixture {
	t.Helper()
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("pkg/__init__.py", "\"\"\"The greeter package.\"\"\"\n")
	r.Write("pkg/cli.py", cliPy)
	r.Write("pkg/core.py", strings.Replace(corePy, ` if "=" in a`, "", 1))
	r.Write("pkg/util.py", utilPy)
	r.Write("pkg/color.py", strings.Replace(colorPy, `, "bold": {"name": "bright_white"}`, "", 1))
	r.Write("pkg/table.py", longTable())
	r.Write("store/store.go", storeGo)
	r.Commit("Create the greeter")
	r.Write("pkg/core.py", corePy)
	fix := r.Commit("Fix crash when an argument has no equals sign")
	r.Write("pkg/color.py", colorPy)
	r.Commit("Add a bold palette")
	home := storetest.Home(t)
	if _, err := ingest.IndexRepos(ctx, home, []string{r.Dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	w, err := kb.Open(ctx, home, kb.Curated, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.DB.Exec(`INSERT INTO file_metadata (file_id, purpose, module, domain, concepts)
		SELECT id, 'Keeps the parsed command line in a module-level state cache', 'core', 'cli', ['argument parsing', 'state cache']
		FROM files WHERE path = 'pkg/core.py'`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	s, err := kb.Open(ctx, home, kb.Curated, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	k := kb.NewKnowledgeBase(s.DB)
	repo, err := k.RepoByPath(ctx, kb.CanonicalPath(r.Dir))
	if err != nil {
		t.Fatal(err)
	}
	g, err := retrieval.LoadKnowledgeGraph(ctx, s.DB, repo.ID, retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
		Source: func(p string) bool { return lang.Supported(lang.LanguageOf(p)) }})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{kb: k, repo: *repo, graph: g, fix: fix}
}

func defaultAsk() config.Ask { return config.Default().Ask }

// TestRetriever runs every mode, the budgets and gap resolution on one
// indexed fixture.
func TestRetriever(t *testing.T) {
	f := buildFixture(t)
	t.Run("modes", func(t *testing.T) { testModes(t, f) })
	t.Run("budget", func(t *testing.T) { testBudget(t, f) })
	t.Run("gaps", func(t *testing.T) { testGaps(t, f) })
}

// at finds the source of symbol (or, with symbol "", the first source of
// path) with the step; -1 when none.
func at(srcs []ask.Source, path, symbol, step string) int {
	return slices.IndexFunc(srcs, func(s ask.Source) bool {
		return s.Path == path && (symbol == "" || s.Symbol == symbol) && (step == "" || s.Step == step)
	})
}

func describe(srcs []ask.Source) string {
	var b strings.Builder
	for i, s := range srcs {
		fmt.Fprintf(&b, "\n  %d. %s %s %s %s (%s) %d tokens", i, s.Kind, s.Step, s.Cite(), s.Symbol, s.Why, s.Tokens)
	}
	return b.String()
}

func testModes(t *testing.T, f fixture) {
	ctx := context.Background()
	parseLine := lineOf(t, corePy, `require(params, "name")`)
	tests := []struct {
		name     string
		mode     ask.Mode
		scope    string
		question string
		check    func(t *testing.T, got ask.Retrieval)
	}{
		{"diagnostic: the raising function first, the mutating caller before the other", ask.Diagnostic, "",
			"Why do I get UsageError: Missing parameter?", func(t *testing.T, got ask.Retrieval) {
				if len(got.Sources) == 0 || got.Sources[0].Symbol != "require" || got.Sources[0].Step != ask.StepErrorSite {
					t.Fatalf("first source is not require's error site:%s", describe(got.Sources))
				}
				run, preview := at(got.Sources, "pkg/core.py", "run", ask.CallerStep(2)), at(got.Sources, "pkg/core.py", "preview", ask.CallerStep(2))
				parse := at(got.Sources, "pkg/core.py", "parse_args", ask.CallerStep(1))
				if run < 0 || preview < 0 || parse < 0 || run > preview {
					t.Errorf("want parse_args (caller_1), run before preview (caller_2):%s", describe(got.Sources))
				}
				if run > parse {
					t.Errorf("the mutating caller run should come before the direct caller parse_args:%s", describe(got.Sources))
				}
				if !slices.Contains(got.Anchors, "UsageError") || !slices.Contains(got.Anchors, `"Missing parameter"`) {
					t.Errorf("anchors = %q", got.Anchors)
				}
				if i := at(got.Sources, "pkg/util.py", "", ask.StepDoc); i < 0 || got.Sources[i].Kind != ask.KindDoc {
					t.Errorf("no doc of pkg/util.py:%s", describe(got.Sources))
				}
			}},
		{"diagnostic: a Python frame is looked up directly", ask.Diagnostic, "",
			fmt.Sprintf("Traceback (most recent call last):\n  File \"/home/ada/greeter/pkg/core.py\", line %d, in parse_args\nKeyError: 'x'", parseLine),
			func(t *testing.T, got ask.Retrieval) {
				if len(got.Sources) == 0 || got.Sources[0].Symbol != "parse_args" || got.Sources[0].Step != ask.StepFrame {
					t.Fatalf("first source is not the frame's parse_args:%s", describe(got.Sources))
				}
				s := got.Sources[0]
				if s.Start != lineOf(t, corePy, "def parse_args") || s.End != lineOf(t, corePy, "return params") ||
					!strings.HasPrefix(s.Text, "def parse_args(argv):") || s.SymbolID == 0 || s.FileID == 0 || s.Kind != ask.KindSource {
					t.Errorf("frame source = %+v", s)
				}
			}},
		{"diagnostic: a Go sentinel error and a Go frame", ask.Diagnostic, "",
			"Get fails with ErrNotFound:\npanic: boom\n\nstore.Get(...)\n\tstore/store.go:16 +0x1d", func(t *testing.T, got ask.Retrieval) {
				if len(got.Sources) == 0 || got.Sources[0].Symbol != "Get" || got.Sources[0].Step != ask.StepErrorSite {
					t.Fatalf("first source is not Get's error site:%s", describe(got.Sources))
				}
				if !slices.Contains(got.Anchors, "store/store.go:16 in Get") {
					t.Errorf("anchors = %q", got.Anchors)
				}
			}},
		{"diagnostic without an anchor: the words' matches, the mutating caller, more matches, then the other callers", ask.Diagnostic, "",
			"The greeting prints no name after parsing the arguments", func(t *testing.T, got ask.Retrieval) {
				parse, run := at(got.Sources, "pkg/core.py", "parse_args", ask.StepLexical), at(got.Sources, "pkg/core.py", "run", ask.CallerStep(1))
				doc := slices.IndexFunc(got.Sources, func(s ask.Source) bool {
					return s.Path == "pkg/core.py" && s.Symbol == "" && s.Step == ask.StepLexical
				})
				preview := at(got.Sources, "pkg/core.py", "preview", ask.CallerStep(1))
				if parse < 0 || run < 0 || doc < 0 || preview < 0 || !(parse < run && run < doc && doc < preview) {
					t.Errorf("want parse_args (a match), run (its mutating caller), pkg/core.py's docstring (a further match), then preview:%s", describe(got.Sources))
				}
			}},
		{"exploratory: from the entry point to the raising function through callees", ask.Exploratory, "",
			"Trace the flow from cli to the missing parameter error", func(t *testing.T, got ask.Retrieval) {
				if len(got.Sources) == 0 || got.Sources[0].Symbol != "cli" || got.Sources[0].Step != ask.StepEntry {
					t.Fatalf("first source is not the entry point cli:%s", describe(got.Sources))
				}
				for i, sym := range []string{"run", "parse_args", "require"} {
					if at(got.Sources, pathOf(sym), sym, ask.CalleeStep(i+1)) < 0 {
						t.Errorf("%s is not callee_%d:%s", sym, i+1, describe(got.Sources))
					}
				}
				if at(got.Sources, "pkg/core.py", "preview", "") >= 0 {
					t.Errorf("preview is not on the flow from cli:%s", describe(got.Sources))
				}
			}},
		{"analytical: the most coupled file, its importers and its bug-fix commit", ask.Analytical, "pkg",
			"What are the structural weaknesses of the pkg package?", func(t *testing.T, got ask.Retrieval) {
				var structure []ask.Source
				for _, s := range got.Sources {
					if s.Kind == ask.KindStructure {
						structure = append(structure, s)
					}
				}
				if len(structure) == 0 || structure[0].Path != "pkg/core.py" || structure[0].Step != ask.StepHotspot {
					t.Fatalf("the first structure is not pkg/core.py's hotspot:%s", describe(got.Sources))
				}
				if i := at(structure, "pkg/core.py", "", ask.StepImporter); i < 0 || !strings.Contains(structure[i].Text, "is imported by: pkg/cli.py") ||
					!strings.Contains(structure[i].Text, "imports: pkg/util.py") {
					t.Errorf("no importers of pkg/core.py:%s", describe(got.Sources))
				}
				i := at(structure, "pkg/core.py", "", ask.StepBugfix)
				if i < 0 || !strings.Contains(structure[i].Text, f.fix[:7]) || !strings.Contains(structure[i].Text, "Fix crash when an argument has no equals sign") {
					t.Fatalf("no bug-fix commit of pkg/core.py:%s", describe(got.Sources))
				}
				if strings.Contains(structure[i].Text, "Add a bold palette") || at(structure, "pkg/color.py", "", ask.StepBugfix) >= 0 {
					t.Errorf("a commit that fixes nothing is listed:%s", describe(got.Sources))
				}
				if at(got.Sources, "store/store.go", "", "") >= 0 {
					t.Errorf("store/store.go is out of the scope pkg:%s", describe(got.Sources))
				}
				if got.Sources[0].Kind != ask.KindSource || got.Sources[0].Step != ask.StepHotspot {
					t.Errorf("the first source is not a most coupled function:%s", describe(got.Sources))
				}
			}},
		{"conceptual: the module whose docstring matches first", ask.Conceptual, "",
			"What are the colour palettes for?", func(t *testing.T, got ask.Retrieval) {
				if len(got.Sources) == 0 || got.Sources[0].Path != "pkg/color.py" || got.Sources[0].Start != 0 ||
					got.Sources[0].Step != ask.StepLexical || !strings.Contains(got.Sources[0].Text, "Colour palettes") {
					t.Fatalf("first source is not pkg/color.py's docstring:%s", describe(got.Sources))
				}
			}},
		{"conceptual: the file whose description matches first", ask.Conceptual, "",
			"Where is the state cache kept?", func(t *testing.T, got ask.Retrieval) {
				if len(got.Sources) == 0 || got.Sources[0].Path != "pkg/core.py" || !strings.Contains(got.Sources[0].Text, "Purpose: Keeps the parsed command line") {
					t.Fatalf("first source is not pkg/core.py's description:%s", describe(got.Sources))
				}
			}},
		{"conceptual: a symbol named in the question", ask.Conceptual, "",
			"What does palette do?", func(t *testing.T, got ask.Retrieval) {
				i := at(got.Sources, "pkg/color.py", "palette", "")
				if i < 0 || got.Sources[i].Kind != ask.KindDoc || !strings.Contains(got.Sources[i].Text, "Return the palette called name.") {
					t.Fatalf("no doc of palette:%s", describe(got.Sources))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.retriever(defaultAsk())
			got, err := r.Retrieve(ctx, ask.Classification{Mode: tt.mode, Scope: tt.scope}, tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode != tt.mode {
				t.Errorf("mode = %q", got.Mode)
			}
			t.Log(describe(got.Sources))
			tt.check(t, got)
			again, err := f.retriever(defaultAsk()).Retrieve(ctx, ask.Classification{Mode: tt.mode, Scope: tt.scope}, tt.question)
			if err != nil || describe(again.Sources) != describe(got.Sources) {
				t.Errorf("a second retrieval differs:%s\nthen:%s", describe(again.Sources), describe(got.Sources))
			}
		})
	}
}

func pathOf(sym string) string {
	if sym == "require" {
		return "pkg/util.py"
	}
	return "pkg/core.py"
}

// A mode's sources never pass its budgets, kind by kind; what does not
// fit is cut, and a function longer than max_source_lines_per_function
// keeps its signature and docstring, its first lines and a marker.
func testBudget(t *testing.T, f fixture) {
	ctx := context.Background()
	tight := defaultAsk()
	tight.Diagnostic = config.ModeBudget{Source: 120, Docs: 30}
	tight.Exploratory = config.ModeBudget{Source: 300, Docs: 0}
	tight.Analytical = config.ModeBudget{Source: 80, Docs: 10, Structure: 60}
	tight.Conceptual = config.ModeBudget{Docs: 10}
	questions := map[ask.Mode]string{
		ask.Diagnostic:  "Why do I get UsageError: Missing parameter?",
		ask.Exploratory: "Trace the flow from render_table",
		ask.Analytical:  "Which files are the most coupled?",
		ask.Conceptual:  "What are the colour palettes for?",
	}
	for _, cfg := range []struct {
		name string
		ask  config.Ask
	}{{"default", defaultAsk()}, {"tight", tight}} {
		for _, mode := range ask.Modes {
			t.Run(cfg.name+"/"+string(mode), func(t *testing.T) {
				got, err := f.retriever(cfg.ask).Retrieve(ctx, ask.Classification{Mode: mode}, questions[mode])
				if err != nil {
					t.Fatal(err)
				}
				b := cfg.ask.Mode(string(mode))
				used := map[string]int{}
				total := 0
				for _, s := range got.Sources {
					if s.Tokens != ask.Tokens(s.Text) || s.Text == "" {
						t.Errorf("%s: %d tokens for %d characters", s.Cite(), s.Tokens, len(s.Text))
					}
					used[s.Kind] += s.Tokens
					total += s.Tokens
				}
				for kind, limit := range map[string]int{ask.KindSource: b.Source, ask.KindDoc: b.Docs, ask.KindStructure: b.Structure} {
					if used[kind] > limit {
						t.Errorf("%s: %d tokens over the budget of %d:%s", kind, used[kind], limit, describe(got.Sources))
					}
				}
				if got.Tokens != total {
					t.Errorf("Tokens = %d, want %d", got.Tokens, total)
				}
				for _, c := range got.Cut {
					if c.Text != "" {
						t.Errorf("cut %s keeps its text", c.Cite())
					}
				}
				if cfg.name == "tight" && len(got.Cut) == 0 {
					t.Errorf("nothing cut within a tight budget:%s", describe(got.Sources))
				}
				if mode == ask.Exploratory {
					i := at(got.Sources, "pkg/table.py", "render_table", ask.StepEntry)
					if i < 0 {
						t.Fatalf("no render_table:%s", describe(got.Sources))
					}
					s := got.Sources[i]
					if !strings.HasPrefix(s.Text, "def render_table(rows):\n    \"\"\"Render rows as the lines of a table.\"\"\"\n") ||
						!strings.Contains(s.Text, "... truncated (") || s.Start != 4 || s.End != 4+153 {
						t.Errorf("render_table is not cut with its signature, docstring and a marker: %d-%d\n%s", s.Start, s.End, s.Text)
					}
					if lines := strings.Count(s.Text, "\n") + 1; lines > cfg.ask.MaxSourceLines+1 {
						t.Errorf("render_table shows %d lines, over %d and the marker", lines, cfg.ask.MaxSourceLines)
					}
				}
			})
		}
	}
}

func testGaps(t *testing.T, f fixture) {
	ctx := context.Background()
	seenParse := map[string]bool{fmt.Sprintf("pkg/core.py:%d-%d", lineOf(t, corePy, "def parse_args"), lineOf(t, corePy, "return params")): true}
	tests := []struct {
		name   string
		gap    string
		mode   ask.Mode
		budget int
		seen   map[string]bool
		want   []string // Step and citation of each source; nil: nothing found
	}{
		{"a function in a file", "The implementation of parse_args in pkg/core.py", ask.Diagnostic, 500, nil,
			[]string{ask.StepGapDirect + " " + fmt.Sprintf("pkg/core.py:%d-%d", lineOf(t, corePy, "def parse_args"), lineOf(t, corePy, "return params"))}},
		{"a path", "What pkg/util.py checks", ask.Conceptual, 500, nil,
			[]string{ask.StepGapDirect + " pkg/util.py:1-12"}},
		{"a call", "what require() does with the key", ask.Exploratory, 500, nil,
			[]string{ask.StepGapDirect + " pkg/util.py:8-12"}},
		{"a code-like identifier", "where UsageError is defined", ask.Analytical, 500, nil,
			[]string{ask.StepGapDirect + " pkg/util.py:4-5"}},
		{"a library not in the repository", "How numpy.linalg.solve inverts the matrix", ask.Conceptual, 500, nil, nil},
		{"a library not in the repository, diagnostic", "Why requests.Session raises ConnectTimeout", ask.Diagnostic, 500, nil, nil},
		{"the diagnostic search: an error string", "where \"Missing parameter\" comes from", ask.Diagnostic, 500, nil,
			[]string{ask.StepGapSearch + " pkg/util.py:8-12"}},
		{"seen sources are not returned again", "parse_args in pkg/core.py", ask.Diagnostic, 500, seenParse, []string{}},
		{"no budget", "parse_args in pkg/core.py", ask.Diagnostic, 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.retriever(defaultAsk()).ResolveGap(ctx, tt.gap, tt.mode, tt.budget, tt.seen)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			var steps []string
			for _, s := range got {
				if tt.seen[s.Cite()] {
					t.Errorf("%s was seen", s.Cite())
				}
				total += s.Tokens
				steps = append(steps, s.Step+" "+s.Cite())
			}
			if total > tt.budget {
				t.Errorf("%d tokens over the budget of %d", total, tt.budget)
			}
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("found%s; want nothing", describe(got))
			case tt.want != nil && len(tt.want) == 0:
				// anything but the seen sources
			case tt.want != nil && !slices.Equal(steps[:min(len(steps), len(tt.want))], tt.want):
				t.Errorf("found %q; want %q first", steps, tt.want)
			}
		})
	}
	// A long function is cut to the gap's budget, signature first.
	got, err := f.retriever(defaultAsk()).ResolveGap(ctx, "render_table in pkg/table.py", ask.Conceptual, 200, nil)
	if err != nil || len(got) != 1 || got[0].Tokens > 200 || !strings.HasPrefix(got[0].Text, "def render_table(rows):") ||
		!strings.Contains(got[0].Text, "... truncated (") {
		t.Errorf("render_table within 200 tokens = %+v, %v", got, err)
	}
}
