package retrieval

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// ScopeResult is the scope stage's outcome: the candidates the model kept,
// in expansion order, and a decision per candidate.
type ScopeResult struct {
	Kept      []schema.ScopeCandidate
	Decisions []kb.Decision
}

// Scope asks the model which of the candidates the change needs (the scope
// prompt curate trains on), asking once more after an unusable answer.
// Every candidate gets a decision — kept or left out by the model — with
// its file id from fileIDs; a path the model names that is no candidate is
// ignored.
func Scope(ctx context.Context, client llm.Client, taskID, task string, cands []schema.ScopeCandidate, fileIDs map[string]int64) (*ScopeResult, error) {
	in := prompt.ScopeInput{Task: task}
	for _, c := range cands {
		in.Candidates = append(in.Candidates, prompt.ScopeCandidate{Path: c.Path, Tier: c.Tier, Reason: c.Reason, Symbols: c.Symbols})
	}
	resp, err := Ask(ctx, client, taskID, schema.StageScope, prompt.ScopePrompt(in), prompt.ParseScope)
	if err != nil {
		return nil, err
	}
	res := &ScopeResult{}
	now := time.Now().UTC()
	for _, c := range cands {
		kept := slices.Contains(resp.Relevant, c.Path)
		reason := "left out by the model"
		if kept {
			reason = "kept by the model"
			res.Kept = append(res.Kept, c)
		}
		res.Decisions = append(res.Decisions, kb.Decision{TaskID: taskID, Stage: schema.StageScope, FileID: fileIDs[c.Path],
			Tier: strconv.Itoa(c.Tier), Rank: c.Rank, Included: kept, Reason: reason + " (tier " + strconv.Itoa(c.Tier) + ": " + c.Reason + ")", At: now})
	}
	return res, nil
}

// CapDecisions are the scope decisions of the files expansion proposed past
// a tier's cap: not included, the reason naming the cap.
func CapDecisions(taskID string, capped []schema.ScopeCandidate, lim Limits, fileIDs map[string]int64) []kb.Decision {
	caps := map[int]int{schema.TierDependency: lim.Dependencies, schema.TierCoChange: lim.CoChanges, schema.TierLexical: lim.Lexical}
	now := time.Now().UTC()
	out := make([]kb.Decision, 0, len(capped))
	for _, c := range capped {
		out = append(out, kb.Decision{TaskID: taskID, Stage: schema.StageScope, FileID: fileIDs[c.Path], Tier: strconv.Itoa(c.Tier),
			Rank: c.Rank, Reason: fmt.Sprintf("cap: tier %d keeps %d candidates (%s)", c.Tier, caps[c.Tier], c.Reason), At: now})
	}
	return out
}
