package retrieval

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
)

func TestAnalyzeTaskSeedsFromTheModelAndTheText(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: `{"summary": "s", "files": ["app/api.py"], "symbols": [], "keywords": ["default"]}`})
	c, err := llm.New(llm.ModelConfig{Provider: llm.ProviderOllama, BaseURL: srv.OllamaURL(), Model: "r:1b", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	g := memGraph{files: map[string][]string{"app/store.py": {"Store"}, "app/api.py": {"handler"}}}
	a, seeds, err := AnalyzeTask(context.Background(), c, "run1", "Let Store.get return a default", g)
	if err != nil || a.Summary != "s" {
		t.Fatalf("%+v, %v", a, err)
	}
	if len(seeds) != 2 || seeds[0].Reason != "mention: defines Store" || seeds[1].Reason != "task_analysis: names app/api.py" {
		t.Errorf("seeds %+v", seeds)
	}
	req := srv.Requests()[0]
	if !req.JSON || !strings.Contains(req.Messages[0].Content, "extract what retrieval needs") {
		t.Errorf("not the task analysis prompt: %+v", req.Messages)
	}
}
