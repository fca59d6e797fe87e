package execute_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/execute"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/internal/fakellm"
)

const goodPlan = `{"task_summary": "Default for Store.get", "affected_files": [{"path": "app/store.py", "role": "modify",
	"changes": [{"symbol": "Store.get", "action": "modify", "description": "take a default", "depends_on": [], "depended_by": []}]}],
	"execution_order": ["app/store.py"], "rationale": "one method"}`

func TestPlanPassChecksThePlanAgainstTheRepository(t *testing.T) {
	exists := func(p string) bool { return p == "app/store.py" }
	in := prompt.PlanInput{Task: "Let Store.get return a default", Files: []prompt.ContextFile{{Path: "app/store.py", Symbols: []prompt.ContextSymbol{{Tier: "primary", Text: "class Store:"}}}}}
	for _, tc := range []struct {
		name    string
		replies []fakellm.Reply
		ok      bool
	}{
		{"valid", []fakellm.Reply{{Text: goodPlan}}, true},
		{"a missing file, then valid", []fakellm.Reply{{Text: strings.ReplaceAll(goodPlan, "app/store.py", "app/nope.py")}, {Text: goodPlan}}, true},
		{"prose twice", []fakellm.Reply{{Text: "I would change the store."}, {Text: "Really."}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakellm.New(t, tc.replies...)
			c, err := llm.New(llm.ModelConfig{Provider: llm.ProviderOllama, BaseURL: srv.OllamaURL(), Model: "r:1b", Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			plan, err := execute.Plan(context.Background(), c, "run1", in, exists)
			var ue *retrieval.UnusableAnswerError
			switch {
			case tc.ok && (err != nil || plan.AffectedFiles[0].Path != "app/store.py"):
				t.Errorf("%+v, %v", plan, err)
			case !tc.ok && !errors.As(err, &ue):
				t.Errorf("%v: want an UnusableAnswerError", err)
			}
			if n := len(tc.replies); srv.Calls() != n {
				t.Errorf("%d calls, want %d", srv.Calls(), n)
			}
			if len(tc.replies) == 2 {
				last := srv.Requests()[1].Messages
				if !strings.Contains(last[len(last)-1].Content, "could not be used") {
					t.Errorf("the second call does not say why: %q", last[len(last)-1].Content)
				}
			}
		})
	}
}
