package eval_test

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/bootstrap"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// benchTasks is how many held-out tasks one eval of the benchmark runs
// (CRA_BENCH_TASKS overrides it): the fewer, the farther apart their
// commits, and the more history and files the knowledge base takes in
// between two tasks.
func benchTasks() int {
	if n, err := strconv.Atoi(os.Getenv("CRA_BENCH_TASKS")); err == nil && n > 0 {
		return n
	}
	return 10
}

// The eval's own time per task, model latency and test commands aside:
// an in-process model that answers every stage from ground truth at once,
// no test command (runs judged by reproduction), on a generated
// repository or CRA_BENCH_REPO (e.g. a psf/requests clone; `make
// bench-eval`), mined first. A task is: the knowledge base moved to its
// parent, a cra solve run with every row, the scores. The baseline is the
// git work a task needs anyway (a worktree at the parent, added and
// removed), timed in the same process. CRA_BENCH_JOBS sets --jobs.
func BenchmarkEvalTask(b *testing.B) {
	ctx := context.Background()
	repo := os.Getenv("CRA_BENCH_REPO")
	if repo == "" {
		repo = filepath.Join(b.TempDir(), "repo")
		gittest.Synthetic{Files: 150, Commits: 300, Funcs: 4, Realistic: true}.Build(b, repo)
	}
	home := storetest.Home(b)
	cfg := config.Default()
	cfg.Curate.ValidationFraction = 0.5
	if _, err := bootstrap.Run(ctx, home, []string{repo}, bootstrap.Options{Jobs: 2, Filter: cfg.Bootstrap}); err != nil {
		b.Fatal(err)
	}
	sel := eval.Selection{Split: eval.SplitValidation, Rule: kb.NewSplitRule(cfg.Curate, nil), Sample: benchTasks(), Seed: 1}
	s, err := kb.Open(ctx, home, kb.Raw, kb.Options{})
	if err != nil {
		b.Fatal(err)
	}
	tasks, err := eval.Select(ctx, s.DB, sel)
	s.Close()
	if err != nil || len(tasks) == 0 {
		b.Fatalf("%d tasks: %v", len(tasks), err)
	}
	cfg.Models.Coding, cfg.Models.Reasoning = "stub", "stub"
	answer := evaltest.Answer(tasks)
	jobs := 1
	if n, err := strconv.Atoi(os.Getenv("CRA_BENCH_JOBS")); err == nil && n > 0 {
		jobs = n
	}
	opts := eval.Options{Home: home, Config: cfg, Selection: sel, Jobs: jobs, GraphOptions: graphOptions(),
		NewClient: func(llm.ModelConfig) (llm.Client, error) { return truthModel{answer}, nil }}
	var n, errs int
	b.ResetTimer()
	for i := range b.N {
		opts.Name = fmt.Sprintf("bench-%d", i)
		rep, err := eval.Run(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		n, errs = n+rep.Tasks, errs+rep.Errors
	}
	b.StopTimer()
	if errs > 0 {
		b.Fatalf("%d tasks could not run: %q", errs, storetest.Rows(b, home, kb.Raw, "SELECT error FROM eval_tasks WHERE status = 'error'"))
	}
	perTask := float64(b.Elapsed().Milliseconds()) / float64(n)
	start := time.Now()
	for _, t := range tasks {
		dir := filepath.Join(b.TempDir(), "wt")
		if out, err := git(repo, "worktree", "add", "--detach", dir, t.Parent); err != nil {
			b.Fatal(out)
		}
		if out, err := git(repo, "worktree", "remove", "--force", dir); err != nil {
			b.Fatal(out)
		}
	}
	git := float64(time.Since(start).Milliseconds()) / float64(len(tasks))
	b.ReportMetric(perTask, "ms/task")
	b.ReportMetric(git, "git-ms/task")
	b.ReportMetric(perTask/max(git, 1), "x-git")
}

// truthModel answers in process, at once, what evaltest's model would.
type truthModel struct {
	answer func(fakellm.Request) (string, string, string, bool)
}

func (truthModel) Close() error { return nil }

func (m truthModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	_, right, _, ok := m.answer(fakellm.Request{Messages: []fakellm.Message{{Role: "system", Content: req.System}, {Role: "user", Content: req.Prompt}}})
	if !ok {
		return llm.Response{}, fmt.Errorf("the truth model cannot answer %.40q", req.System)
	}
	return llm.Response{Text: right}, nil
}

func git(dir string, args ...string) (string, error) {
	out, err := osexec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
