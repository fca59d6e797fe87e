package eval

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// OracleStages are the stages --oracle can replace by their ground truth:
// those with one. (An adjustment has none: it revises the model's own
// steps.)
var OracleStages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision,
	schema.StageMetaPlan, schema.StagePartPlan, schema.StageImplement}

// oracleClient answers the calls of the oracle stages with the ground
// truth, unsent, and passes every other call to the model. Its answers
// are logged like any call (model "oracle"), so a run's rows say which
// stages were the model's.
type oracleClient struct {
	inner  llm.Client
	truth  prompt.Truth
	stages []string
}

// OracleModel is the model name the calls an oracle answered are logged
// under.
const OracleModel = "oracle"

func (c *oracleClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if slices.Contains(c.stages, req.CallType) {
		if text, ok := c.truth.Answer(req.CallType, req.Prompt); ok {
			return llm.Response{Text: text, Model: OracleModel, Provider: "cra", Attempts: 1, Latency: time.Microsecond}, nil
		}
	}
	if c.inner == nil {
		return llm.Response{}, fmt.Errorf("no model for %s", req.CallType)
	}
	return c.inner.Complete(ctx, req)
}

func (c *oracleClient) Close() error {
	if c.inner == nil {
		return nil
	}
	return c.inner.Close()
}
