package retrieval

import (
	"context"
	"errors"
	"fmt"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
)

// UnusableAnswerError says a stage's model answered with what its parser
// could not use, twice, or once with an answer refused unread (over its
// size limit, or not the provider's JSON); the calls are logged with their
// answers.
type UnusableAnswerError struct {
	Stage   string
	Err     error // the parser's last error, or the client's refusal
	Refused bool  // the last answer was refused unread, not parsed
}

func (e *UnusableAnswerError) Error() string {
	if e.Refused {
		return fmt.Sprintf("%s: the model's answer could not be used: %v", e.Stage, e.Err)
	}
	return fmt.Sprintf("%s: the model's answer could not be used, twice: %v", e.Stage, e.Err)
}

func (e *UnusableAnswerError) Unwrap() error { return e.Err }

// Ask sends p for stage under taskID and parses the answer; an answer the
// parser refuses is asked for once more, with the parser's error. An
// answer the client refused unread (llm.ErrMalformedResponse: over its
// size limit, or not the provider's JSON) is unusable at once: the client
// does not ask again for what a server sends every time, and neither does
// Ask. Every stage that asks a model for a structured answer goes through
// it.
func Ask[T any](ctx context.Context, client llm.Client, taskID, stage string, p prompt.Prompt, parse func(string) (T, error)) (T, error) {
	var zero T
	req := llm.Request{System: p.System, Prompt: p.User, JSON: true, TaskID: taskID, CallType: stage, StageName: stage}
	resp, err := client.Complete(ctx, req)
	if err != nil {
		return zero, refused(stage, err)
	}
	v, perr := parse(resp.Text)
	if perr == nil {
		return v, nil
	}
	again := prompt.AskAgain(p, resp.Text, perr)
	req.Prompt = again.User
	if resp, err = client.Complete(ctx, req); err != nil {
		return zero, refused(stage, err)
	}
	if v, perr = parse(resp.Text); perr != nil {
		return zero, &UnusableAnswerError{Stage: stage, Err: perr}
	}
	return v, nil
}

// refused is err as an UnusableAnswerError when the client refused the
// answer itself, else err unchanged (a server down, a cancelled run).
func refused(stage string, err error) error {
	if errors.Is(err, llm.ErrMalformedResponse) {
		return &UnusableAnswerError{Stage: stage, Err: err, Refused: true}
	}
	return err
}
