package kb

import (
	"context"

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
