package retrieval

import (
	"context"
	"fmt"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
)

// UnusableAnswerError says a stage's model answered twice with what its
// parser could not use; both calls are logged with their answers.
type UnusableAnswerError struct {
	Stage string
	Err   error // the parser's last error
}

func (e *UnusableAnswerError) Error() string {
	return fmt.Sprintf("%s: the model's answer could not be used, twice: %v", e.Stage, e.Err)
}

func (e *UnusableAnswerError) Unwrap() error { return e.Err }

// Ask sends p for stage under taskID and parses the answer; an answer the
// parser refuses is asked for once more, with the parser's error. Every
// stage that asks a model for a structured answer goes through it.
func Ask[T any](ctx context.Context, client llm.Client, taskID, stage string, p prompt.Prompt, parse func(string) (T, error)) (T, error) {
	var zero T
	req := llm.Request{System: p.System, Prompt: p.User, JSON: true, TaskID: taskID, CallType: stage, StageName: stage}
	resp, err := client.Complete(ctx, req)
	if err != nil {
		return zero, err
	}
	v, perr := parse(resp.Text)
	if perr == nil {
		return v, nil
	}
	again := prompt.AskAgain(p, resp.Text, perr)
	req.Prompt = again.User
	if resp, err = client.Complete(ctx, req); err != nil {
		return zero, err
	}
	if v, perr = parse(resp.Text); perr != nil {
		return zero, &UnusableAnswerError{Stage: stage, Err: perr}
	}
	return v, nil
}
