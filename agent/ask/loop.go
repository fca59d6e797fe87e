package ask

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// finder is what the loop needs of retrieval (Retriever): a question's
// initial context, and context for one gap.
type finder interface {
	Retrieve(ctx context.Context, c Classification, question string) (Retrieval, error)
	ResolveGap(ctx context.Context, gap string, mode Mode, budget int, seen map[string]bool) ([]Source, error)
}

// Why the loop stopped.
const (
	StopNoGaps          = "no_gaps"          // the answer named nothing missing
	StopNoNewGaps       = "no_new_gaps"      // it named only gaps resolved before
	StopAllUnresolvable = "all_unresolvable" // every gap it named was looked for and not found
	StopMaxPasses       = "max_passes"
	StopBudget          = "budget" // no budget left for the gaps it named
)

// How a gap was resolved (GapResolution.By).
const (
	GapDirect       = "direct"       // a file or symbol it named, looked up
	GapSearch       = "search"       // the mode's search on its words
	GapUnresolvable = "unresolvable" // looked for, nothing found: remembered, never looked for again
	GapKnown        = "known_unresolvable"
	GapRepeated     = "repeated"     // resolved in an earlier pass
	GapOverBudget   = "over_budget"  // not looked for: the pass's or the ask's budget was spent
	GapPassesSpent  = "passes_spent" // not looked for: named in the last pass
)

// GapResolution is one gap an answer named and what became of it.
type GapResolution struct {
	Pass    int      `json:"pass"`
	Gap     string   `json:"gap"`
	By      string   `json:"by"`
	Sources []string `json:"sources,omitempty"` // cites of what it added
	Tokens  int      `json:"tokens"`
}

// BudgetUsage is the context an ask used against its limit, in tokens:
// the initial retrieval, then what each pass's gaps added.
type BudgetUsage struct {
	Initial int   `json:"initial_retrieval"`
	Gaps    []int `json:"gap_resolution"` // per pass that resolved gaps
	Total   int   `json:"total_used"`
	Limit   int   `json:"budget_limit"`
}

// outcome is what the loop ends with.
type outcome struct {
	answer     prompt.AskAnswer
	shown      []Source
	passes     int
	stop       string
	unresolved []string
	gaps       []GapResolution
	budget     BudgetUsage
}

// loop is the CGRAG loop of one ask: answer on the context so far, look
// up what the answer says is missing, answer again.
type loop struct {
	cfg      config.Ask
	find     finder
	client   llm.Client // the ask_answer stage's
	taskID   string
	question string
	mode     Mode
	record   func(context.Context, []kb.Decision, []kb.LLMCall) error
	log      *slog.Logger
}

// run answers on initial and resolves gaps until a stop condition holds.
// A model failure (answers unusable twice, a server down) returns the
// error with what was done so far.
func (l *loop) run(ctx context.Context, initial Retrieval) (outcome, error) {
	o := outcome{shown: initial.Sources, budget: BudgetUsage{Initial: initial.Tokens, Total: initial.Tokens, Limit: l.cfg.TotalBudget}}
	seen := map[string]bool{}
	for _, s := range initial.Sources {
		seen[s.Cite()] = true
	}
	if err := l.recordContext(ctx, 1, initial.Sources, initial.Cut, o.budget); err != nil {
		return o, err
	}
	unresolvable, resolved := map[string]bool{}, map[string]bool{}
	gapSpent := 0
	for pass := 1; ; pass++ {
		o.passes = pass
		in := prompt.AskAnswerInput{Question: l.question, Mode: string(l.mode), Pass: pass, Sources: promptSources(o.shown), Unresolved: o.unresolved}
		ans, err := retrieval.Ask(ctx, l.client, l.taskID, schema.StageAskAnswer, prompt.AskAnswerPrompt(in), prompt.ParseAskAnswer)
		if err != nil {
			return o, err
		}
		o.answer = ans
		if len(ans.Missing) == 0 {
			o.stop = StopNoGaps
			break
		}
		if pass >= l.cfg.MaxPasses {
			o.stop = StopMaxPasses
			if err := l.recordGaps(ctx, pass, ans.Missing, GapPassesSpent, &o); err != nil {
				return o, err
			}
			break
		}
		passBudget := min(l.cfg.PerPassGapBudget, l.cfg.GapBudget-gapSpent, l.cfg.TotalBudget-o.budget.Total)
		var added []Source
		var res []GapResolution
		looked, found := 0, 0
		for _, gap := range ans.Missing {
			key := normalizeGap(gap)
			r := GapResolution{Pass: pass, Gap: gap}
			switch {
			case unresolvable[key]:
				r.By = GapKnown
			case resolved[key]:
				r.By = GapRepeated
			case min(l.cfg.PerGapBudget, passBudget) <= 0:
				r.By = GapOverBudget
			default:
				looked++
				srcs, err := l.find.ResolveGap(ctx, gap, l.mode, min(l.cfg.PerGapBudget, passBudget), seen)
				if err != nil {
					return o, fmt.Errorf("resolve gap %q: %w", gap, err)
				}
				srcs = fit(srcs, min(l.cfg.PerGapBudget, passBudget))
				if len(srcs) == 0 {
					r.By, unresolvable[key] = GapUnresolvable, true
					o.unresolved = append(o.unresolved, gap)
					break
				}
				found++
				resolved[key] = true
				r.By = GapSearch
				for _, s := range srcs {
					if s.Step == "gap_direct" {
						r.By = GapDirect
					}
					seen[s.Cite()] = true
					r.Sources = append(r.Sources, s.Cite())
					r.Tokens += s.Tokens
				}
				passBudget -= r.Tokens
				added = append(added, srcs...)
			}
			res = append(res, r)
		}
		o.gaps = append(o.gaps, res...)
		if err := l.recordGapRows(ctx, res); err != nil {
			return o, err
		}
		if found == 0 {
			o.stop = l.stuck(res, looked)
			break
		}
		spent := 0
		for _, s := range added {
			spent += s.Tokens
		}
		gapSpent += spent
		o.budget.Gaps = append(o.budget.Gaps, spent)
		o.budget.Total += spent
		o.shown = append(o.shown, added...)
		if err := l.recordContext(ctx, pass+1, added, nil, o.budget); err != nil {
			return o, err
		}
	}
	l.log.Debug("ask context budget", "task", l.taskID, "used", o.budget.Total, "limit", o.budget.Limit,
		"initial", o.budget.Initial, "gaps_per_pass", o.budget.Gaps, "passes", o.passes, "stop", o.stop)
	return o, nil
}

// stuck says why a pass that added nothing ends the loop: every gap it
// named had already been resolved (nothing new), the budget left none to
// look for, or every gap was looked for and not found.
func (l *loop) stuck(res []GapResolution, looked int) string {
	repeated, over := 0, 0
	for _, r := range res {
		switch r.By {
		case GapRepeated:
			repeated++
		case GapOverBudget:
			over++
		}
	}
	switch {
	case repeated == len(res):
		return StopNoNewGaps
	case over > 0 && looked == 0:
		return StopBudget
	}
	return StopAllUnresolvable
}

// fit keeps the sources, in order, that fit budget tokens together.
func fit(srcs []Source, budget int) []Source {
	var out []Source
	for _, s := range srcs {
		if s.Tokens > budget {
			continue
		}
		budget -= s.Tokens
		out = append(out, s)
	}
	return out
}

// normalizeGap is a gap's identity: lower case, words only, so "The
// parse_args() function in core.py." and "the parse_args function in
// core.py" are one gap.
func normalizeGap(gap string) string {
	f := strings.FieldsFunc(strings.ToLower(gap), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '.' && r != '/'
	})
	for i, w := range f {
		f[i] = strings.Trim(w, "./")
	}
	return strings.Join(f, " ")
}

func promptSources(srcs []Source) []prompt.AskSource {
	out := make([]prompt.AskSource, len(srcs))
	for i, s := range srcs {
		out[i] = prompt.AskSource{Path: s.Path, Start: s.Start, End: s.End, Symbol: s.Symbol, Why: s.Why, Text: s.Text}
	}
	return out
}

// recordContext logs what a pass is shown: a decision per source (cut
// ones not included) and an ask_retrieval row with the budget so far.
func (l *loop) recordContext(ctx context.Context, pass int, shown, cut []Source, b BudgetUsage) error {
	now := time.Now().UTC()
	var ds []kb.Decision
	for i, s := range append(append([]Source(nil), shown...), cut...) {
		d := kb.Decision{TaskID: l.taskID, Stage: schema.StageAskRetrieval, FileID: s.FileID, Tier: s.Step, Rank: i + 1,
			Included: i < len(shown), Reason: fmt.Sprintf("%s, pass %d: %s", l.mode, pass, s.Why), At: now}
		if s.SymbolID != 0 {
			id := s.SymbolID
			d.SymbolID = &id
		}
		ds = append(ds, d)
	}
	cites := make([]string, len(shown))
	for i, s := range shown {
		cites[i] = s.Cite()
	}
	body, _ := json.Marshal(map[string]any{"pass": pass, "mode": l.mode, "sources": cites, "cut": len(cut), "budget": b})
	text := string(body)
	row := kb.LLMCall{TaskID: l.taskID, CallType: schema.CallAskRetrieval, StageName: schema.StageAskAnswer, Model: "none", Provider: "cra",
		Prompt: fmt.Sprintf("context for pass %d of %q", pass, l.question), Response: &text, At: now}
	return l.record(ctx, ds, []kb.LLMCall{row})
}

// recordGaps logs gaps that were not looked for, all with one resolution.
func (l *loop) recordGaps(ctx context.Context, pass int, gaps []string, by string, o *outcome) error {
	var res []GapResolution
	for _, g := range gaps {
		res = append(res, GapResolution{Pass: pass, Gap: g, By: by})
	}
	o.gaps = append(o.gaps, res...)
	return l.recordGapRows(ctx, res)
}

// recordGapRows logs each gap and its resolution as an ask_gap row.
func (l *loop) recordGapRows(ctx context.Context, res []GapResolution) error {
	now := time.Now().UTC()
	rows := make([]kb.LLMCall, len(res))
	for i, r := range res {
		body, _ := json.Marshal(r)
		text := string(body)
		rows[i] = kb.LLMCall{TaskID: l.taskID, CallType: schema.CallAskGap, StageName: schema.StageAskAnswer, Model: "none", Provider: "cra",
			Prompt: r.Gap, Response: &text, At: now}
	}
	return l.record(ctx, nil, rows)
}
