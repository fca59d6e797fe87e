package orchestrator

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
)

// keepModel plans three steps; its adjustment after s1 keeps s2 by its
// id alone and drops s3, the one after s2 leaves nothing. It records the
// prompts it was sent per kind.
type keepModel struct {
	mu      sync.Mutex
	prompts map[string][]string
}

func (*keepModel) Close() error { return nil }

func (m *keepModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	kind := ""
	text, ok := oneNotesPart(req.System)
	switch {
	case ok:
	case strings.HasPrefix(req.System, "You plan one part"):
		text = `{"part_id": "p1", "task_summary": "", "steps": [` +
			`{"id": "s1", "description": "Write the first note", "target_files": ["one.txt"], "target_symbols": [], "depends_on": []}, ` +
			`{"id": "s2", "description": "Write the second note", "target_files": ["two.txt", "notes/two.md"], "target_symbols": ["Notes.second"], "depends_on": ["s1"]}, ` +
			`{"id": "s3", "description": "Write a third note", "target_files": ["three.txt"], "target_symbols": [], "depends_on": []}], "rationale": ""}`
	case strings.HasPrefix(req.System, "You implement"):
		kind = "implement"
		id := between(req.Prompt, "Step ", " to implement")
		text = "<edit file=\"" + id + ".txt\">\n<search>\n</search>\n<replacement>\nnote " + id + "\n</replacement>\n</edit>"
	case strings.HasPrefix(req.System, "You revise a plan"):
		kind = "adjustment"
		text = `{"revised_steps": [], "rationale": "done", "changes_made": []}`
		if strings.Contains(req.Prompt, "\nRemaining steps:\n- s2:") {
			text = `{"revised_steps": [{"id": "s2", "keep": true}], "rationale": "s1 worked", "changes_made": ["s3 dropped"]}`
		}
	}
	if kind != "" {
		m.mu.Lock()
		m.prompts[kind] = append(m.prompts[kind], req.Prompt)
		m.mu.Unlock()
	}
	return llm.Response{Text: text}, nil
}

// A step the adjustment keeps by its id reaches its implement pass with
// the files, symbols and dependencies the part plan gave it; a step it
// leaves out is dropped.
func TestAdjustmentKeptStepReachesImplementAsPlanned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := gittest.New(t)
	repo.Write("calc.py", "def add(a, b):\n    return a + b\n")
	repo.Commit("calc")
	home := storetest.Home(t)
	if _, err := ingest.IndexRepos(ctx, home, []string{repo.Dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Models.Coding, cfg.Models.Reasoning = "stub", "stub"
	cfg.Testing.TestCommand = "true"
	model := &keepModel{prompts: map[string][]string{}}
	out, err := Solve(ctx, Options{Home: home, Repo: repo.Dir, Task: "Write the notes", Config: cfg,
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: func(p string) bool { return lang.Supported(lang.LanguageOf(p)) }},
		NewClient:    func(llm.ModelConfig) (llm.Client, error) { return model, nil }})
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, s := range out.Steps {
		ran = append(ran, s.Step)
	}
	if strings.Join(ran, ",") != "s1,s2" || out.Status != StatusComplete {
		t.Fatalf("status %s, steps %v (want s1,s2: s3 dropped); problems %v", out.Status, ran, out.Problems)
	}
	// The adjustment saw s2 as planned.
	if adj := model.prompts["adjustment"]; len(adj) == 0 || !strings.Contains(adj[0],
		"- s2: Write the second note\n  target_files: two.txt, notes/two.md\n  target_symbols: Notes.second\n  depends_on: s1\n") {
		t.Errorf("the first adjustment prompt does not show s2 as planned:\n%q", adj)
	}
	impl := model.prompts["implement"]
	if len(impl) != 2 {
		t.Fatalf("%d implement prompts, want 2", len(impl))
	}
	if want := "Step s2 to implement now:\nWrite the second note\nFiles: two.txt, notes/two.md\nSymbols: Notes.second\n"; !strings.Contains(impl[1], want) {
		t.Errorf("s2's implement prompt lacks its planned files and symbols %q:\n%s", want, impl[1])
	}
	// s3 was dropped: the adjustment after s2 has no step left to show.
	if adj := model.prompts["adjustment"]; len(adj) != 2 || prompt.RemainingSteps(adj[1]) != nil {
		t.Errorf("adjustment prompts %d, the second with steps left %v", len(adj), prompt.RemainingSteps(adj[len(adj)-1]))
	}
}
