package eval

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// The stages an ask eval scores (eval_runs.stages of its row).
var AskStages = []string{schema.StageAskClassify, schema.StageAskRetrieval, schema.StageAskAnswer}

// An ask eval's metrics, beside MetricCorrect.
const (
	// MetricRecallAt5 is the share of the expected files among the first 5
	// distinct files (of the retrieval, or of what the answer cites), out
	// of at most 5: a question whose answer spans 7 files is fully
	// recalled by 5 of them.
	MetricRecallAt5 = "recall_at_5"
	// MetricSymbolHit is 1 when a cited source names an expected symbol or
	// its line range overlaps one's; scored only for questions with
	// expected symbols.
	MetricSymbolHit = "symbol_hit"
	// MetricAnswered is 1 when the ask gave an answer citing something.
	MetricAnswered = "answered"
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
		{schema.StageAskRetrieval, MetricRecallAt5, retrieved},
		{schema.StageAskRetrieval, MetricCorrect, b2f(retrieved == 1)},
		{schema.StageAskAnswer, MetricRecallAt5, cited},
		{schema.StageAskAnswer, MetricAnswered, b2f(answered)},
	}
	right := answered && cited == 1
	if len(q.Symbols) > 0 {
		hit := symbolHit(q.Symbols, r.Cited)
		out = append(out, Score{schema.StageAskAnswer, MetricSymbolHit, b2f(hit)})
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

// AskReport is an ask eval's scores per kind of question.
type AskReport struct {
	Name      string          `json:"name"`
	Oracle    []string        `json:"oracle"`
	Status    string          `json:"status"`
	Questions int             `json:"questions"`
	Scored    int             `json:"scored"`
	Errors    int             `json:"errors"` // questions that could not be answered (model failure)
	Kinds     []AskKindReport `json:"kinds"`
}

// AskKindReport is one kind's figures: each a mean over the questions
// scored (N of them; N 0 when none has the metric).
type AskKindReport struct {
	Kind            string  `json:"kind"`
	Mode            string  `json:"mode"`
	Questions       int     `json:"questions"`
	Errors          int     `json:"errors"`
	Classification  AskMean `json:"classification_accuracy"`
	RetrievalRecall AskMean `json:"retrieval_recall_at_5"`
	AnswerRecall    AskMean `json:"answer_recall_at_5"`
	SymbolHit       AskMean `json:"symbol_hit"`
	Answered        AskMean `json:"answer_rate"`
}

// AskMean is a metric's mean over N questions.
type AskMean struct {
	Mean float64 `json:"mean"`
	N    int     `json:"n"`
}

func (m *AskMean) add(v float64) {
	m.Mean = (m.Mean*float64(m.N) + v) / float64(m.N+1)
	m.N++
}

// askBoard reads an ask eval's questions and scores back from the raw
// store (a resumed eval reports every question, not only this run's).
func askBoard(ctx context.Context, raw *kb.Lease, run runRow, status string) (*AskReport, error) {
	rep := &AskReport{Name: run.Name, Oracle: nonNil(run.Oracle), Status: status, Kinds: []AskKindReport{}}
	byKind := map[string]*AskKindReport{}
	for _, k := range QuestionKinds {
		byKind[k] = &AskKindReport{Kind: k, Mode: string(kindModes[k])}
	}
	err := raw.Write(ctx, func(w kb.Writer) error {
		rows, err := w.Conn.QueryContext(ctx, `SELECT q.kind, t.status, r.stage, r.metric, r.value
			FROM ask_questions q JOIN eval_tasks t ON t.eval_run_id = q.eval_run_id AND t.task_id = q.question_id
			LEFT JOIN eval_results r ON r.eval_run_id = t.eval_run_id AND r.task_id = t.task_id
			WHERE q.eval_run_id = ? ORDER BY q.question_id`, run.ID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var kind, st string
			var stage, metric sql.NullString
			var v sql.NullFloat64
			if err := rows.Scan(&kind, &st, &stage, &metric, &v); err != nil {
				return err
			}
			k := byKind[kind]
			if k == nil {
				continue
			}
			if !stage.Valid {
				k.Questions++
				k.Errors++
				continue
			}
			if stage.String == schema.StageAskClassify && metric.String == MetricCorrect {
				k.Questions++ // one classify score per scored question
			}
			if m := k.metric(stage.String, metric.String); m != nil {
				m.add(v.Float64)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read the scores of ask eval %s: %w", run.Name, err)
	}
	for _, kind := range QuestionKinds {
		k := byKind[kind]
		if k.Questions == 0 {
			continue
		}
		rep.Questions += k.Questions
		rep.Errors += k.Errors
		rep.Kinds = append(rep.Kinds, *k)
	}
	rep.Scored = rep.Questions - rep.Errors
	return rep, nil
}

// metric is where a stage's metric is kept in the report (nil: not
// reported).
func (k *AskKindReport) metric(stage, metric string) *AskMean {
	switch {
	case stage == schema.StageAskClassify && metric == MetricCorrect:
		return &k.Classification
	case stage == schema.StageAskRetrieval && metric == MetricRecallAt5:
		return &k.RetrievalRecall
	case stage == schema.StageAskAnswer && metric == MetricRecallAt5:
		return &k.AnswerRecall
	case stage == schema.StageAskAnswer && metric == MetricSymbolHit:
		return &k.SymbolHit
	case stage == schema.StageAskAnswer && metric == MetricAnswered:
		return &k.Answered
	}
	return nil
}
