package e2e

import (
	"context"
	"fmt"

	"github.com/cra-dev/cra/agent/ask/asktest"
	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb"
)

// Oracle is a fake model that knows the ground truth of every task mined
// into home (read once, read-only: call it when no cra process writes the
// raw store, between bootstrap and eval). It answers eval's calls and the
// teacher's from that truth, cra ask's as asktest does (the keyword rule's
// mode, the answer citing what it was shown), and any request it cannot
// place (train-plan's narrative) with a sentence. It returns how many tasks it knows.
func Oracle(ctx context.Context, home string) (fakellm.Oracle, int, error) {
	s, err := kb.Open(ctx, home, kb.Raw, kb.Options{Command: "e2e oracle"})
	if err != nil {
		return fakellm.Oracle{}, 0, err
	}
	defer s.Close()
	repos, err := kb.SyntheticRepos(ctx, s.DB)
	if err != nil {
		return fakellm.Oracle{}, 0, err
	}
	// Every task, held out or not: distill asks about training tasks too.
	tasks, err := eval.Select(ctx, s.DB, eval.Selection{Split: eval.SplitAll, Rule: kb.NewSplitRule(config.Curate{}, repos), Seed: 1})
	if err != nil {
		return fakellm.Oracle{}, 0, fmt.Errorf("the oracle's tasks: %w", err)
	}
	agent, asks := evaltest.Answer(tasks), asktest.Answer(nil)
	answer := func(req fakellm.Request) (string, string, string, bool) {
		if stage, right, wrong, ok := agent(req); ok {
			return stage, right, wrong, ok
		}
		return asks(req)
	}
	return fakellm.Oracle{Answer: answer, Fallback: func(fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Text: "The figures above say which stage to train first."}
	}}, len(tasks), nil
}

// Billing is what the fake teacher charges: config.toml's prices, tokens
// counted as cra estimates them (chars/4).
func Billing() fakellm.Billing {
	return fakellm.Billing{InputPerMillion: TeacherInputPerMillion, OutputPerMillion: TeacherOutputPerMillion,
		Tokens: func(s string) int { return (len(s) + 3) / 4 }}
}
