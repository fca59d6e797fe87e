package eval

import (
	"context"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// RecallCut is how many files recall counts: what a reader looks at.
const RecallCut = 5

// ScoreAsk scores what cra ask did with a question against its known
// answer:
//   - ask_classify correct: the mode is the question's;
//   - ask_retrieval recall_at_5 of the initial retrieval (before any model
//     choice), correct when it is 1;
//   - ask_answer recall_at_5 of the files cited, symbol_hit, answered, and
//     correct when it answered, recalled every expected file (up to 5) and
//     hit a symbol where one is expected.
func ScoreAsk(q Question, r *ask.Result) []Score {
	retrieved := recallAt(q.Files, sourcePaths(r.Retrieved))
	cited := recallAt(q.Files, sourcePaths(r.Cited))
	answered := strings.TrimSpace(r.Answer) != "" && len(r.Cited) > 0
	out := []Score{
		{schema.StageAskClassify, MetricCorrect, b2f(r.Classification.Mode == q.Mode)},
		{schema.StageAskRetrieval, schema.MetricRecallAt5, retrieved},
		{schema.StageAskRetrieval, MetricCorrect, b2f(retrieved == 1)},
		{schema.StageAskAnswer, schema.MetricRecallAt5, cited},
		{schema.StageAskAnswer, schema.MetricAnswered, b2f(answered)},
	}
	right := answered && cited == 1
	if len(q.Symbols) > 0 {
		hit := symbolHit(q.Symbols, r.Cited)
		out = append(out, Score{schema.StageAskAnswer, schema.MetricSymbolHit, b2f(hit)})
		right = right && hit
	}
	return append(out, Score{schema.StageAskAnswer, MetricCorrect, b2f(right)})
}

// sourcePaths are the distinct files of sources, in order (sources
// without a file, such as a repository's structure, are skipped).
func sourcePaths(ss []ask.Source) []string {
	var out []string
	for _, s := range ss {
		if s.Path != "" && !slices.Contains(out, s.Path) {
			out = append(out, s.Path)
		}
	}
	return out
}

// recallAt is the share of want among got's first RecallCut, out of
// min(len(want), RecallCut); 0 when nothing is wanted.
func recallAt(want, got []string) float64 {
	if len(want) == 0 {
		return 0
	}
	got = got[:min(len(got), RecallCut)]
	hit := 0
	for _, w := range want {
		if slices.Contains(got, w) {
			hit++
		}
	}
	return float64(min(hit, RecallCut)) / float64(min(len(want), RecallCut))
}

// symbolHit: a cited source names an expected symbol (its qualified name,
// or the same last part: "invoke" cites Context.invoke) in its file, or
// cites lines of the expected symbol's range.
func symbolHit(want []Symbol, cited []ask.Source) bool {
	for _, w := range want {
		for _, c := range cited {
			if c.Path != w.Path {
				continue
			}
			if c.Symbol != "" && (c.Symbol == w.Name || lastDotted(c.Symbol) == lastDotted(w.Name)) {
				return true
			}
			if c.Start > 0 && c.Start <= w.End && w.Start <= max(c.End, c.Start) {
				return true
			}
		}
	}
	return false
}

// b2f is 1 for true, as a score.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// AskReport is an ask eval's scores per kind of question (kb reads it).
type AskReport = kb.AskReport

// askBoard reads an ask eval's questions and scores back from the raw
// store (a resumed eval reports every question, not only this run's),
// with the status this run ends it with.
func askBoard(ctx context.Context, raw *kb.Lease, run runRow, status string) (*AskReport, error) {
	var rep *AskReport
	err := raw.Write(ctx, func(w kb.Writer) (err error) {
		rep, err = kb.ReadAskReport(ctx, w.Conn, run.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.Status = status
	return rep, nil
}
