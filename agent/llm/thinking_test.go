package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/storetest"
)

// Thinking is switched off by default on both wire formats, and whatever
// thinking still arrives — a separate field or <think> blocks in the text —
// is kept apart from the answer and logged in its own column.
func TestThinkingIsOffAndKeptApartFromTheAnswer(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	for _, p := range []string{llm.ProviderOllama, llm.ProviderOpenAICompat} {
		t.Run(p, func(t *testing.T) {
			srv := fakellm.New(t,
				fakellm.Reply{Text: `{"relevant": ["a.py"]}`, Thinking: "The task names a.py."},
				fakellm.Reply{Text: "<think>\nMaybe b.py?\n</think>\n\n{\"relevant\": []}"},
			)
			db, log := callStore(t)
			cfg := config(p, srv)
			inner, _ := newClient(t, cfg)
			c := llm.NewLogged(inner, cfg, log)
			req := llm.Request{Prompt: "p", TaskID: "t", CallType: "scope", StageName: "scope"}
			first, err := c.Complete(context.Background(), req)
			if err != nil || first.Text != `{"relevant": ["a.py"]}` || first.Thinking != "The task names a.py." {
				t.Errorf("separate thinking: %+v, %v", first, err)
			}
			second, err := c.Complete(context.Background(), req)
			if err != nil || second.Text != `{"relevant": []}` || second.Thinking != "Maybe b.py?" {
				t.Errorf("<think> block: %+v, %v", second, err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			for i, r := range srv.Requests() {
				if r.Think == nil || *r.Think {
					t.Errorf("request %d did not switch thinking off: %s", i, r.Body)
				}
			}
			rows := storetest.RowsOf(t, db, "SELECT response, thinking FROM retrieval_llm_calls ORDER BY id")
			if len(rows) != 2 || strings.Contains(rows[1], "<think>") || !strings.Contains(rows[1], "Maybe b.py?") {
				t.Errorf("logged rows %q: want the answer and the thinking in their own columns", rows)
			}
		})
	}
}

func TestThinkCanBeTurnedOn(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: "ok"})
	cfg := config(llm.ProviderOllama, srv)
	cfg.Think = true
	c, _ := newClient(t, cfg)
	if _, err := c.Complete(context.Background(), llm.Request{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.Think == nil || !*r.Think {
		t.Errorf("think = true was not sent: %s", r.Body)
	}
}
