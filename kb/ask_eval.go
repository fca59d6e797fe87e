package kb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/cra-dev/cra/kb/schema"
)

// askEvalRun says an eval_runs row r is cra ask --eval's: its scored
// stages are cra ask's. Failure attribution (train-plan) reads cra eval's
// runs only: an ask eval scores no pipeline stage and has no end-to-end
// outcome.
const askEvalRun = `list_contains(r.stages, '` + schema.StageAskClassify + `')`

// AskEvalNames lists the names of cra ask --eval's runs, so train-plan can
// say why it does not read one named with --eval.
func (l *LogAnalysis) AskEvalNames(ctx context.Context) ([]string, error) {
	return l.strings(ctx, `SELECT DISTINCT name FROM eval_runs r WHERE `+askEvalRun+` ORDER BY 1`)
}

// AskReport is an ask eval's scores per kind of question.
type AskReport struct {
	Name      string          `json:"name"`
	Oracle    []string        `json:"oracle"`
	Status    string          `json:"status"`
	Started   time.Time       `json:"started_at"`
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

// ReadAskReport reads the scores of the ask eval of eval_runs id runID,
// every question it asked in every run of it (a resumed eval reports them
// all), per kind in schema.AskKinds' order.
func ReadAskReport(ctx context.Context, q Querier, runID int64) (*AskReport, error) {
	rep := &AskReport{Kinds: []AskKindReport{}}
	var oracle []string
	err := q.QueryRowContext(ctx, `SELECT r.name, r.oracle, r.status, r.started_at FROM eval_runs r WHERE r.id = ?`, runID).
		Scan(&rep.Name, stringList{&oracle}, &rep.Status, &rep.Started)
	if err != nil {
		return nil, fmt.Errorf("kb: read ask eval %d: %w", runID, err)
	}
	rep.Oracle = nonNil(oracle)
	byKind := map[string]*AskKindReport{}
	for _, k := range schema.AskKinds {
		byKind[k] = &AskKindReport{Kind: k, Mode: schema.AskKindModes[k]}
	}
	rows, err := q.QueryContext(ctx, `SELECT q.kind, r.stage, r.metric, r.value
		FROM ask_questions q JOIN eval_tasks t ON t.eval_run_id = q.eval_run_id AND t.task_id = q.question_id
		LEFT JOIN eval_results r ON r.eval_run_id = t.eval_run_id AND r.task_id = t.task_id
		WHERE q.eval_run_id = ? ORDER BY q.question_id`, runID)
	if err != nil {
		return nil, fmt.Errorf("kb: read the scores of ask eval %s: %w", rep.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var stage, metric sql.NullString
		var v sql.NullFloat64
		if err := rows.Scan(&kind, &stage, &metric, &v); err != nil {
			return nil, err
		}
		k := byKind[kind]
		switch {
		case k == nil:
		case !stage.Valid: // asked, not scored: the model failed
			k.Questions++
			k.Errors++
		default:
			if stage.String == schema.StageAskClassify && metric.String == schema.MetricCorrect {
				k.Questions++ // one classify score per scored question
			}
			if m := k.metric(stage.String, metric.String); m != nil {
				m.add(v.Float64)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("kb: read the scores of ask eval %s: %w", rep.Name, err)
	}
	for _, kind := range schema.AskKinds {
		if k := byKind[kind]; k.Questions > 0 {
			rep.Questions += k.Questions
			rep.Errors += k.Errors
			rep.Kinds = append(rep.Kinds, *k)
		}
	}
	rep.Scored = rep.Questions - rep.Errors
	return rep, nil
}

// metric is where a stage's metric is kept in the report (nil: not
// reported).
func (k *AskKindReport) metric(stage, metric string) *AskMean {
	switch {
	case stage == schema.StageAskClassify && metric == schema.MetricCorrect:
		return &k.Classification
	case stage == schema.StageAskRetrieval && metric == schema.MetricRecallAt5:
		return &k.RetrievalRecall
	case stage == schema.StageAskAnswer && metric == schema.MetricRecallAt5:
		return &k.AnswerRecall
	case stage == schema.StageAskAnswer && metric == schema.MetricSymbolHit:
		return &k.SymbolHit
	case stage == schema.StageAskAnswer && metric == schema.MetricAnswered:
		return &k.Answered
	}
	return nil
}

// AskEvals reads the ask evals f selects (started since f.Since, named in
// f.Evals when it names any): the newest run of each name, by name.
func (l *LogAnalysis) AskEvals(ctx context.Context, f LogFilter) ([]AskReport, error) {
	var ids []int64
	err := l.each(ctx, `SELECT max_by(r.id, r.started_at) FROM eval_runs r
		WHERE r.started_at >= ? AND (len(?::VARCHAR[]) = 0 OR list_contains(?::VARCHAR[], r.name)) AND `+askEvalRun+`
		GROUP BY r.name ORDER BY r.name`, f.evalRunArgs(), func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("kb: read ask evals: %w", err)
	}
	out := []AskReport{}
	for _, id := range ids {
		rep, err := ReadAskReport(ctx, l.q, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *rep)
	}
	return out, nil
}
