package analysis

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Narrative is the reasoning model's prose about the computed findings.
// It sits under its own heading and changes no figure; numbers it writes
// that the findings do not hold are listed beside it.
type Narrative struct {
	Model string
	Text  string
	// Unsupported are numbers in Text that appear nowhere in the findings.
	Unsupported []string
}

// narrativeClient is the logged client of the reasoning model, or nil with
// the reason the report has no narrative.
func narrativeClient(opts Options, status string) (llm.ModelConfig, *llm.Logged, string) {
	switch {
	case opts.NoLLM:
		return llm.ModelConfig{}, nil, "computed figures only (--no-llm)"
	case status == StatusNotEnoughData:
		return llm.ModelConfig{}, nil, "no narrative: there is not enough evidence to tell a story about"
	}
	cfg, err := llm.NewRouter(opts.Config).Resolve(llm.RoleReasoning, schema.StageTrainPlan)
	if err != nil {
		return cfg, nil, "computed figures only: no reasoning model is configured (`cra init --reasoning-model M`)"
	}
	cfg.SafetyMargin = opts.Config.Budget.SafetyMargin
	newClient := opts.NewClient
	if newClient == nil {
		newClient = func(c llm.ModelConfig) (llm.Client, error) { return llm.New(c) }
	}
	inner, err := newClient(cfg)
	if err != nil {
		return cfg, nil, "computed figures only: the reasoning model's client: " + err.Error()
	}
	return cfg, llm.NewLogged(inner, cfg, func(ctx context.Context, calls []kb.LLMCall) error {
		return kb.AppendRunLog(ctx, opts.Dir, "cra train-plan", nil, calls)
	}), ""
}

// narrate asks for the narrative of the computed findings; a failed call
// leaves the report without one (the call is logged either way).
func narrate(ctx context.Context, c llm.Client, model, taskID string, rep *Report) (*Narrative, string) {
	findings := Findings(rep)
	p := prompt.TrainPlanNarrative(findings)
	resp, err := c.Complete(ctx, llm.Request{System: p.System, Prompt: p.User, TaskID: taskID,
		CallType: schema.CallTrainPlanNarrative, StageName: schema.StageTrainPlan})
	if err != nil {
		return nil, "computed figures only: the narrative call failed (" + err.Error() + "); run again, or pass --no-llm"
	}
	text := strings.TrimSpace(resp.Text)
	if text == "" {
		return nil, "computed figures only: the reasoning model's narrative was empty"
	}
	return &Narrative{Model: model, Text: text, Unsupported: unsupported(text, findings)}, ""
}

var numberRE = regexp.MustCompile(`\d+(?:[.,]\d+)?`)

// unsupported lists the numbers of text that findings do not contain.
func unsupported(text, findings string) []string {
	have := map[string]bool{}
	for _, n := range numberRE.FindAllString(findings, -1) {
		have[n] = true
	}
	var out []string
	for _, n := range numberRE.FindAllString(text, -1) {
		if !have[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
