package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// notesCheck is the fixture repository's test command's script: every
// note under notes/ must read "ok"; a note that does not is a failing
// test, named as go test names one so the run's parser finds it.
const notesCheck = `status=0
for f in notes/*.txt; do
	[ -e "$f" ] || continue
	read -r line < "$f"
	if [ "$line" != ok ]; then
		echo "--- FAIL: Test_$(basename "$f" .txt) ($f reads: $line)"
		status=1
	fi
done
exit $status
`

// solveScript answers each call type of a solve run, told apart by its
// system prompt (prompt.StageOf); retrieval finds nothing. An implement
// call writes the first file its step targets with the next of that
// file's notes (the last one repeats; none: "ok", which passes the
// tests). Adjustments are answered in turn, then by keeping every
// remaining step by its id. It records the user prompt of every call per
// call type.
type solveScript struct {
	meta   schema.MetaPlan
	parts  map[string]schema.PartPlan // by part id
	notes  map[string][]string        // by target file
	adjust []string

	mu      sync.Mutex
	written map[string]int // implement answers given per target file
	adjusts int
	prompts map[string][]string
}

// reply answers one chat request of the run.
func (s *solveScript) reply(t *testing.T, req fakellm.Request) fakellm.Reply {
	user := req.Messages[len(req.Messages)-1].Content
	if user == llm.PingPrompt {
		return fakellm.Reply{Text: "ok"}
	}
	kind := prompt.StageOf(req.Messages[0].Content)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts[kind] = append(s.prompts[kind], user)
	switch kind {
	case schema.StageMetaPlan:
		return fakellm.Reply{Text: mustJSON(t, s.meta)}
	case schema.StagePartPlan:
		id, _, _ := strings.Cut(between(user, "\nPart ", " to plan:"), "\n")
		return fakellm.Reply{Text: mustJSON(t, s.parts[id])}
	case schema.StageImplement:
		return fakellm.Reply{Text: s.implement(t, user)}
	case prompt.PlanAdjustment:
		if s.adjusts++; s.adjusts <= len(s.adjust) {
			return fakellm.Reply{Text: s.adjust[s.adjusts-1]}
		}
		var kept []json.RawMessage
		for _, id := range prompt.RemainingSteps(user) {
			kept = append(kept, keptStep(id))
		}
		return fakellm.Reply{Text: adjustAnswer(kept...)}
	}
	if text, ok := oneNotesPart(req.Messages[0].Content); ok { // retrieval's stages: nothing found
		return fakellm.Reply{Text: text}
	}
	t.Errorf("a call the script does not know: system prompt %.60q", req.Messages[0].Content)
	return fakellm.Reply{Status: 500}
}

// implement is the edit that writes the step's first target file with the
// file's next note.
func (s *solveScript) implement(t *testing.T, user string) string {
	files := prompt.StepFiles(user)
	if len(files) == 0 {
		t.Errorf("an implement prompt names no target file:\n%s", user)
		return ""
	}
	file := files[0]
	note := "ok"
	if notes := s.notes[file]; len(notes) > 0 {
		note = notes[min(s.written[file], len(notes)-1)]
	}
	s.written[file]++
	return prompt.RenderEdits([]schema.Edit{{File: file, Replace: note + "\n"}})
}

// sent is the user prompts of the calls of one type, in order.
func (s *solveScript) sent(kind string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts[kind]...)
}

// noteStep is a plan step that writes one note.
func noteStep(id, description, file string) schema.PlanStep {
	return schema.PlanStep{ID: id, Description: description, TargetFiles: []string{file}}
}

// notesPlan is part id's plan of steps.
func notesPlan(id string, steps ...schema.PlanStep) schema.PartPlan {
	return schema.PartPlan{PartID: id, Steps: steps, Rationale: "one note per step"}
}

// onePart is a meta plan of the one part p1.
func onePart() schema.MetaPlan {
	return schema.MetaPlan{Parts: []schema.MetaPart{{ID: "p1", Description: "Write the notes", AffectedFiles: []string{"notes"}}}}
}

// keptStep is an adjustment's step kept by its id alone, as a model writes it.
func keptStep(id string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"id": %q, "keep": true}`, id))
}

// writtenStep is an adjustment's step written out: revised or added.
func writtenStep(s schema.PlanStep) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// adjustAnswer is an adjustment pass's answer of steps.
func adjustAnswer(steps ...json.RawMessage) string {
	b, err := json.Marshal(map[string]any{"revised_steps": append([]json.RawMessage{}, steps...), "rationale": "scripted", "changes_made": []string{}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Error(err)
	}
	return string(b)
}

// solveFixture is the world of the solve loop's tests: a small git
// repository whose test command checks its notes, indexed in a fresh home,
// and a fake model server over real HTTP answering from the script of the
// test in progress. The tests share it one after another (each run starts
// from base on a branch of its own and its rows carry its task id); two
// runs at once would share the home's raw store and the repository's
// sweep of stale worktrees.
type solveFixture struct {
	repo   *gittest.Repo
	base   string // the commit every run starts from
	home   string
	srv    *fakellm.Server
	script *solveScript
	cfg    config.Config
}

// newSolveFixture builds the repository (one note, which passes), indexes
// it and starts the model server.
func newSolveFixture(t *testing.T) *solveFixture {
	t.Helper()
	repo := gittest.New(t)
	repo.Write("check.sh", notesCheck)
	repo.Write("notes/readme.txt", "ok\n")
	repo.Write("calc.py", "def add(a, b):\n    return a + b\n")
	base := repo.Commit("notes and their check")
	home := storetest.Home(t)
	if _, err := ingest.IndexRepos(context.Background(), home, []string{repo.Dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(t)
	cfg := config.Default()
	cfg.Models.Provider, cfg.Models.BaseURL = llm.ProviderOllama, srv.OllamaURL()
	cfg.Models.Coding, cfg.Models.Reasoning = "c:1b", "r:1b"
	cfg.Testing.TestCommand, cfg.Testing.TimeoutSeconds = "sh check.sh", 30
	return &solveFixture{repo: repo, base: base, home: home, srv: srv, cfg: cfg}
}

// use makes the model server answer test t's calls from s.
func (f *solveFixture) use(t *testing.T, s *solveScript) {
	s.written, s.prompts = map[string]int{}, map[string][]string{}
	f.script = s
	f.srv.SetDefault(func(req fakellm.Request) fakellm.Reply { return s.reply(t, req) })
}

// solve runs cra solve on the fixture through Solve.
func (f *solveFixture) solve(t *testing.T, task string) *Outcome {
	t.Helper()
	out, err := Solve(context.Background(), Options{Home: f.home, Repo: f.repo.Dir, Task: task, Config: f.cfg,
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: func(p string) bool { return lang.Supported(lang.LanguageOf(p)) }}})
	if err != nil {
		t.Fatalf("solve: %v (outcome %+v)", err, out)
	}
	return out
}

// commits are the subjects of the commits the run left on its branch,
// oldest first, each as "part/step: description".
func (f *solveFixture) commits(out *Outcome) []string {
	log := f.repo.Git("log", "--reverse", "--format=%s", f.base+".."+out.Branch)
	var subjects []string
	for _, s := range strings.Split(log, "\n") {
		if s != "" {
			subjects = append(subjects, strings.TrimPrefix(s, "cra "+out.TaskID+": "))
		}
	}
	return subjects
}

// rows are a query's rows over the home's raw store.
func (f *solveFixture) rows(t *testing.T, q string, args ...any) []string {
	t.Helper()
	return storetest.Rows(t, f.home, kb.Raw, q, args...)
}

// attempts are the rows of the run's implement attempts, in order: the
// pass's task id after the run's, whether the pass succeeded, the
// attempt's number, whether its patch applied, its validation's verdict
// and failing tests, and whether the test output it kept names a
// failing test.
func (f *solveFixture) attempts(t *testing.T, out *Outcome) []string {
	t.Helper()
	return f.rows(t, `SELECT substr(t.task_id, length(?) + 1), t.success, a.attempt, a.patch_applied, v.success, v.failing_tests,
			contains(v.test_output, '--- FAIL: ')
		FROM run_attempts a JOIN validation_results v ON v.attempt_id = a.id JOIN task_runs t ON t.id = a.task_run_id
		WHERE starts_with(t.task_id, ?) ORDER BY a.id`, out.TaskID, out.TaskID+":")
}

// stepsRan is the part/step of each step outcome, in order, with its verdict
// and attempts.
func stepsRan(out *Outcome) []string {
	var steps []string
	for _, s := range out.Steps {
		verdict := "ok"
		if !s.Passed {
			verdict = "FAIL"
		}
		steps = append(steps, fmt.Sprintf("%s/%s %s %d", s.Part, s.Step, verdict, s.Attempts))
	}
	return steps
}
