package ask

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// gapFinder resolves the gaps it knows, counting every lookup.
type gapFinder struct {
	gaps    map[string][]Source // normalised gap → what it finds
	lookups map[string]int
}

func (f *gapFinder) Retrieve(context.Context, Classification, string) (Retrieval, error) {
	return Retrieval{}, nil
}

func (f *gapFinder) ResolveGap(_ context.Context, gap string, _ Mode, budget int, seen map[string]bool) ([]Source, error) {
	f.lookups[normalizeGap(gap)]++
	var out []Source
	for _, s := range f.gaps[normalizeGap(gap)] {
		if !seen[s.Cite()] && s.Tokens <= budget {
			out = append(out, s)
		}
	}
	return out, nil
}

func src(path string, start, tokens int, step string) Source {
	return Source{Path: path, Start: start, End: start + 5, FileID: 1, Kind: KindSource, Step: step, Why: "w",
		Text: strings.Repeat("x", 4*tokens), Tokens: tokens}
}

// answer is an answer pass's reply naming missing.
func answer(missing ...string) fakellm.Reply {
	var b strings.Builder
	b.WriteString("<answer>\nIt is raised in core.py [pkg/core.py:1-6]\n</answer>\n<sources>\n- pkg/core.py:1-6\n</sources>\n<missing>\n")
	for _, m := range missing {
		b.WriteString("- " + m + "\n")
	}
	b.WriteString("</missing>\n")
	return fakellm.Reply{Text: b.String()}
}

// The loop stops at each of its conditions; a gap naming a file is
// resolved by lookup and the next pass shows it; a gap nothing resolves
// is remembered and never looked for again.
func TestLoopStops(t *testing.T) {
	direct := src("pkg/util.py", 10, 100, "gap_direct")
	search := src("pkg/errors.py", 3, 100, "gap_search")
	big := src("pkg/big.py", 1, 900, "gap_direct")
	known := map[string][]Source{
		normalizeGap("pkg/util.py"):              {direct},
		normalizeGap("how errors are formatted"): {search},
		normalizeGap("the big module"):           {big},
	}
	cfg := config.Default().Ask
	tests := []struct {
		name    string
		replies []fakellm.Reply
		cfg     func(*config.Ask)
		stop    string
		passes  int
		lookups map[string]int // normalised gap → lookups
		shown   []string       // cites the last pass was shown, beyond the initial source
		gapsBy  []string
	}{
		{name: "no gaps", replies: []fakellm.Reply{answer()}, stop: StopNoGaps, passes: 1},
		{name: "a named file is looked up, then no gaps",
			replies: []fakellm.Reply{answer("pkg/util.py"), answer()}, stop: StopNoGaps, passes: 2,
			lookups: map[string]int{"pkg/util.py": 1}, shown: []string{"pkg/util.py:10-15"}, gapsBy: []string{GapDirect}},
		{name: "searched, then the same gap again is nothing new",
			replies: []fakellm.Reply{answer("How errors are formatted."), answer("how errors are formatted")}, stop: StopNoNewGaps, passes: 2,
			lookups: map[string]int{"how errors are formatted": 1}, shown: []string{"pkg/errors.py:3-8"}, gapsBy: []string{GapSearch, GapRepeated}},
		{name: "all unresolvable, never looked up twice",
			replies: []fakellm.Reply{answer("pkg/util.py", "requests.Session in the requests library"), answer("Requests.Session in the requests library.")},
			stop:    StopAllUnresolvable, passes: 2,
			lookups: map[string]int{"requests.session in the requests library": 1, "pkg/util.py": 1},
			shown:   []string{"pkg/util.py:10-15"}, gapsBy: []string{GapDirect, GapUnresolvable, GapKnown}},
		{name: "the only gap is unresolvable", replies: []fakellm.Reply{answer("requests.Session in the requests library")},
			stop: StopAllUnresolvable, passes: 1, lookups: map[string]int{"requests.session in the requests library": 1}, gapsBy: []string{GapUnresolvable}},
		{name: "max passes", replies: []fakellm.Reply{answer("pkg/util.py"), answer("how errors are formatted")},
			cfg: func(c *config.Ask) { c.MaxPasses = 2 }, stop: StopMaxPasses, passes: 2,
			lookups: map[string]int{"pkg/util.py": 1}, shown: []string{"pkg/util.py:10-15"}, gapsBy: []string{GapDirect, GapPassesSpent}},
		{name: "budget spent", replies: []fakellm.Reply{answer("pkg/util.py"), answer("how errors are formatted")},
			cfg: func(c *config.Ask) { c.GapBudget = 100 }, stop: StopBudget, passes: 2,
			lookups: map[string]int{"pkg/util.py": 1}, shown: []string{"pkg/util.py:10-15"}, gapsBy: []string{GapDirect, GapOverBudget}},
		{name: "a gap over the per-gap budget finds nothing that fits",
			replies: []fakellm.Reply{answer("the big module")}, stop: StopAllUnresolvable, passes: 1,
			lookups: map[string]int{"the big module": 1}, gapsBy: []string{GapUnresolvable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := cfg
			if tt.cfg != nil {
				tt.cfg(&c)
			}
			srv := fakellm.New(t, tt.replies...)
			f := &gapFinder{gaps: known, lookups: map[string]int{}}
			var calls []kb.LLMCall
			var decisions []kb.Decision
			l := &loop{cfg: c, find: f, client: client(t, srv), taskID: "ask-1", question: "Why do I get UsageError?", mode: Diagnostic,
				record: func(_ context.Context, d []kb.Decision, cs []kb.LLMCall) error {
					decisions, calls = append(decisions, d...), append(calls, cs...)
					return nil
				}, log: slog.New(slog.DiscardHandler)}
			initial := Retrieval{Mode: Diagnostic, Sources: []Source{src("pkg/core.py", 1, 200, "error_site")}, Tokens: 200}
			o, err := l.run(context.Background(), initial)
			if err != nil {
				t.Fatal(err)
			}
			if o.stop != tt.stop || o.passes != tt.passes {
				t.Errorf("stop %s after %d passes, want %s after %d", o.stop, o.passes, tt.stop, tt.passes)
			}
			if tt.lookups == nil {
				tt.lookups = map[string]int{}
			}
			if !mapsEqual(f.lookups, tt.lookups) {
				t.Errorf("lookups %v, want %v", f.lookups, tt.lookups)
			}
			var shown []string
			for _, s := range o.shown[1:] {
				shown = append(shown, s.Cite())
			}
			if !slices.Equal(shown, tt.shown) {
				t.Errorf("shown beyond the initial source %v, want %v", shown, tt.shown)
			}
			// The last prompt shows what gap resolution added.
			reqs := srv.Requests()
			last := reqs[len(reqs)-1].Messages[1].Content
			for _, s := range tt.shown {
				if !strings.Contains(last, "### "+s) {
					t.Errorf("the last answer prompt does not show %s", s)
				}
			}
			if tt.name == "all unresolvable, never looked up twice" && !strings.Contains(last, "not found (do not ask again):\n- requests.Session in the requests library\n") {
				t.Errorf("the last prompt does not list the unresolvable gap:\n%s", last)
			}
			var by []string
			gapRows := 0
			for _, g := range o.gaps {
				by = append(by, g.By)
			}
			for _, c := range calls {
				if c.CallType == schema.CallAskGap {
					gapRows++
				}
			}
			if !slices.Equal(by, tt.gapsBy) || gapRows != len(tt.gapsBy) {
				t.Errorf("gaps resolved by %v (%d rows), want %v", by, gapRows, tt.gapsBy)
			}
			if o.budget.Total > c.TotalBudget || o.budget.Total != o.budget.Initial+sum(o.budget.Gaps) {
				t.Errorf("budget %+v", o.budget)
			}
			if len(decisions) != len(o.shown) {
				t.Errorf("%d decisions for %d sources shown", len(decisions), len(o.shown))
			}
		})
	}
}

func TestNormalizeGap(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"The parse_args() function in core.py.", "the parse_args function in core.py"},
		{"  pkg/util.py ", "pkg/util.py"},
		{"How errors are FORMATTED?", "how errors are formatted"},
	} {
		if normalizeGap(tt.a) != normalizeGap(tt.b) {
			t.Errorf("%q → %q, %q → %q: want one gap", tt.a, normalizeGap(tt.a), tt.b, normalizeGap(tt.b))
		}
	}
	if normalizeGap("pkg/util.py") == normalizeGap("pkg/utils.py") {
		t.Error("two files are one gap")
	}
}

func client(t *testing.T, srv *fakellm.Server) llm.Client {
	t.Helper()
	c, err := llm.New(llm.ModelConfig{Provider: llm.ProviderOllama, BaseURL: srv.OllamaURL(), Model: "r:1b", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
