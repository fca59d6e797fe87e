package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
)

// benchSteps is how many steps the benchmark's one part has.
const benchSteps = 5

// Orchestrator overhead per step, model latency and the test command
// aside: a run of one part of benchSteps steps with an instant in-process
// model and `true` as the test command, on a generated repository (or
// CRA_BENCH_REPO, e.g. a psf/requests clone; `make bench-solve`). Each
// step is two pipeline invocations (implement, adjustment) with their
// rows, the patch, the tests, the commit; the meta plan, the part plan
// and the worktree are spread over the steps. The baseline is the git
// work a step needs anyway (add, commit), timed in the same process.
func BenchmarkSolveStep(b *testing.B) {
	ctx := context.Background()
	repo := os.Getenv("CRA_BENCH_REPO")
	if repo == "" {
		repo = filepath.Join(b.TempDir(), "repo")
		gittest.Synthetic{Files: 150, Commits: 100, Funcs: 4, Realistic: true}.Build(b, repo)
	}
	home := storetest.Home(b)
	if _, err := ingest.IndexRepos(ctx, home, []string{repo}, ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	cfg.Models.Coding, cfg.Models.Reasoning = "stub", "stub"
	cfg.Testing.TestCommand = "true"
	opts := Options{Home: home, Repo: repo, Task: "Add the bench notes", Config: cfg,
		GraphOptions: retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
			Source: func(p string) bool { return lang.Supported(lang.LanguageOf(p)) && !walk.VendoredPath(p) }},
		NewClient: func(llm.ModelConfig) (llm.Client, error) { return stubModel{}, nil }}
	var steps int
	b.ResetTimer()
	for range b.N {
		out, err := Solve(ctx, opts)
		if err != nil || out.Status != StatusComplete {
			b.Fatalf("%v: %+v", err, out)
		}
		steps += len(out.Steps)
	}
	b.StopTimer()
	perStep := float64(b.Elapsed().Milliseconds()) / float64(steps)
	// Baseline: a step's own git work, add and commit, in a scratch clone.
	w, err := AddWorktree(ctx, home, repo, "HEAD", fmt.Sprintf("baseline-%d", time.Now().UnixNano()))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := range benchSteps {
		if err := os.WriteFile(filepath.Join(w.Dir, fmt.Sprintf("baseline_%d.txt", i)), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Commit(ctx, "baseline"); err != nil {
			b.Fatal(err)
		}
	}
	git := float64(time.Since(start).Milliseconds()) / benchSteps
	b.ReportMetric(perStep, "ms/step")
	b.ReportMetric(git, "git-ms/step")
	b.ReportMetric(perStep/max(git, 1), "x-git")
}

// stubModel answers every pass at once: one part of benchSteps steps,
// each creating a file; adjustments keep the steps left.
type stubModel struct{}

func (stubModel) Close() error { return nil }

func (stubModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	text, ok := oneNotesPart(req.System)
	switch {
	case ok:
	case strings.HasPrefix(req.System, "You plan one part"):
		var steps []string
		for i := 1; i <= benchSteps; i++ {
			steps = append(steps, fmt.Sprintf(`{"id": "s%d", "description": "note %d", "target_files": ["bench_note_%d.txt"], "target_symbols": [], "depends_on": []}`, i, i, i))
		}
		text = `{"part_id": "p1", "task_summary": "", "steps": [` + strings.Join(steps, ", ") + `], "rationale": ""}`
	case strings.HasPrefix(req.System, "You implement"):
		id := between(req.Prompt, "Step s", " to implement")
		text = fmt.Sprintf("<edit file=\"bench_note_%s.txt\">\n<search>\n</search>\n<replacement>\nnote %s\n</replacement>\n</edit>", id, id)
	case strings.HasPrefix(req.System, "You revise a plan"):
		var left []string
		for _, id := range prompt.RemainingSteps(req.Prompt) {
			left = append(left, fmt.Sprintf(`{"id": %q, "keep": true}`, id))
		}
		text = `{"revised_steps": [` + strings.Join(left, ", ") + `], "rationale": "", "changes_made": []}`
	}
	return llm.Response{Text: text}, nil
}

// oneNotesPart answers the passes before a part plan for a stub model:
// nothing found by retrieval, one part p1; ok is false for other passes.
func oneNotesPart(system string) (text string, ok bool) {
	switch {
	case strings.HasPrefix(system, "You read a coding task"):
		return `{"summary": "", "files": [], "symbols": [], "keywords": []}`, true
	case strings.HasPrefix(system, "You select the files"):
		return `{"relevant": []}`, true
	case strings.HasPrefix(system, "You decide how much"):
		return `{"symbols": {}}`, true
	case strings.HasPrefix(system, "You split a large task"):
		return `{"task_summary": "", "parts": [{"id": "p1", "description": "notes", "affected_files": [], "depends_on": []}], "rationale": ""}`, true
	}
	return "", false
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	out, _, _ := strings.Cut(rest, to)
	return out
}

// The sandbox's cost per test run: the same `true` test command run
// unconfined and in bubblewrap, each through RunShell (with its leftover
// sweeps), in the same process. ns/op of the two and their difference
// (box-ms/op on the bwrap line, in milliseconds) are the figures; the target is under
// 50 ms (`make bench-box`).
func BenchmarkBoxOverhead(b *testing.B) {
	if _, err := bwrapUsable(); err != nil {
		b.Skipf("bubblewrap cannot run here: %v", err)
	}
	dir := b.TempDir()
	boxes := map[string]Box{
		config.SandboxNone:  {Env: os.Environ()},
		config.SandboxBwrap: {Env: os.Environ(), bwrap: must(bwrapUsable())},
	}
	per := map[string]time.Duration{}
	for _, mode := range []string{config.SandboxNone, config.SandboxBwrap} {
		b.Run(mode, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if r := RunShell(context.Background(), boxes[mode], dir, KindTest, "true", time.Minute); !r.Passed {
					b.Fatalf("%s: %s", mode, r.Output)
				}
			}
			per[mode] = time.Since(start) / time.Duration(b.N)
			if mode == config.SandboxBwrap && per[config.SandboxNone] > 0 {
				b.ReportMetric(float64(per[mode]-per[config.SandboxNone])/1e6, "box-ms/op")
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
