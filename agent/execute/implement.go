package execute

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/pathrule"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// Attempt is one implement attempt: the prompt, the coder's answer, the
// edits it parsed to and what applying them did.
type Attempt struct {
	Prompt                         prompt.Prompt
	Response                       string
	Edits                          []schema.Edit
	Applied                        Applied
	PromptTokens, CompletionTokens *int
	Latency                        time.Duration
	// Err is why the answer changed nothing: it did not parse, or the
	// patch was refused (nothing written); nil when the patch applied.
	Err error
}

// PatchApplied reports whether the attempt's edits are in the tree.
func (a Attempt) PatchApplied() bool { return a.Err == nil && len(a.Edits) > 0 }

// Implement is the implement pass: the coder answers the implement prompt
// (the prompt curate trains on) with search/replace edits, which are
// applied to the tree at dir (Apply). An answer refused unread (over its
// size limit), one that does not parse, has no edit, or whose patch is
// refused is a failed attempt (Attempt.Err),
// not an error: the caller retries with the reason. The error is for a
// call that could not be made.
func Implement(ctx context.Context, client llm.Client, taskID string, in prompt.ImplementInput, dir string) (Attempt, error) {
	a := Attempt{Prompt: prompt.ImplementPrompt(in)}
	resp, err := client.Complete(ctx, llm.Request{System: a.Prompt.System, Prompt: a.Prompt.User, TaskID: taskID,
		CallType: schema.StageImplement, StageName: schema.StageImplement})
	if errors.Is(err, llm.ErrMalformedResponse) {
		a.Err = err // an answer refused unread (over its size limit) is a failed attempt, as one that does not parse
		return a, nil
	}
	if err != nil {
		return a, err
	}
	a.Response, a.PromptTokens, a.CompletionTokens, a.Latency = resp.Text, resp.PromptTokens, resp.CompletionTokens, resp.Latency
	if a.Edits, a.Err = prompt.ParseEdits(resp.Text); a.Err != nil {
		return a, nil
	}
	if len(a.Edits) == 0 {
		a.Err = errors.New("the answer has no edit")
		return a, nil
	}
	a.Applied, a.Err = Apply(dir, a.Edits)
	return a, nil
}

// FilesToEdit reads the files of paths that exist in the tree at dir, as
// the implement prompt shows them (whole); paths that do not exist yet are
// left out (the coder creates them). A path the worktree rule refuses
// (pathrule.Root.Path: a link out of the tree, "..", .git) is read the way a write
// would be refused: not at all. It is left out of the prompt — simply
// absent, as the prompts curate trains on never mention one — and
// returned in refused for the caller to record; an edit of it is then
// refused by Apply, whose reason the retry prompt carries.
func FilesToEdit(dir string, paths []string) (files []prompt.File, refused []*pathrule.PathError, err error) {
	root, err := pathrule.ResolveRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		rel, abs, err := root.Path(p)
		var pe *pathrule.PathError
		switch {
		case errors.As(err, &pe):
			refused = append(refused, pe)
			continue
		case err != nil:
			return nil, nil, err
		case rel != p && seen[rel]:
			continue
		}
		seen[rel] = true
		b, err := os.ReadFile(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, nil, err
		}
		files = append(files, prompt.File{Path: rel, Content: string(b)})
	}
	return files, refused, nil
}
