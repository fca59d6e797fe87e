package distill

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// BenchmarkDistillCachedReplay is a distill run whose 10,000 requests are
// all in the cache: select and render the prompts, look the answers up,
// verify them, store the outcomes and the dataset version. Target: under
// 10 s.
func BenchmarkDistillCachedReplay(b *testing.B) {
	const tasks = 2500 // 4 stages each: 10,000 requests
	home := storetest.Home(b)
	storetest.SyntheticTasks(b, home, tasks)
	cfg := config.Default()
	budget, _ := llm.NewBudget(cfg)
	opts := Options{Teacher: llm.ModelConfig{Provider: llm.ProviderRemoteAPI, BaseURL: "http://127.0.0.1:1/v1",
		Model: "teacher-1", APIKeyEnv: "CRA_BENCH_UNUSED_KEY", MaxTokens: 2048}, Prices: testPrices,
		Verify: cfg.Teacher.Verify, Curate: cfg.Curate, Budget: budget}
	requests := fillCache(b, home, opts)
	if requests != 4*tasks {
		b.Fatalf("%d requests cached, want %d", requests, 4*tasks)
	}
	b.ResetTimer()
	for i := range b.N {
		opts.Name = fmt.Sprintf("replay%d", i) // a new distillation: every item replayed
		sum, err := Run(context.Background(), home, opts)
		if err != nil {
			b.Fatal(err)
		}
		if sum.Totals.FromCache != requests || sum.Totals.Calls != 0 || sum.Totals.Verified != requests {
			b.Fatalf("totals %+v: want %d answers from the cache, all verified", sum.Totals, requests)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(requests)/(b.Elapsed().Seconds()/float64(b.N)), "requests/s")
}

// fillCache stores, for every item of the selection, the ground truth's
// answer as the teacher's, and returns how many requests it cached.
func fillCache(b *testing.B, home string, opts Options) int {
	opts, _ = opts.normalize()
	items := allItems(b, home, opts)
	n := 0
	err := kb.WithWriter(context.Background(), home, kb.Raw, kb.Options{}, func(w kb.Writer) error {
		var entries []kb.DistillCacheEntry
		for _, j := range jobsOf(items, opts.Teacher) {
			ex, why := curate.RenderForStudent(j.items[0].task, j.stage, opts.Budget)
			if why != "" {
				return fmt.Errorf("render %s: %s", j.stage, why)
			}
			entries = append(entries, kb.DistillCacheEntry{Key: j.key, Model: opts.Teacher.Model, Response: ex.Answer,
				CallTaskID: j.req.TaskID, RunID: 1, At: time.Now()})
		}
		n = len(entries)
		return w.Tx(context.Background(), func() error { return kb.AppendDistillCache(context.Background(), w, entries) })
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkVerifyImplement verifies 10,000 implement answers (two files of
// 200 lines each, three edits per file; every other answer wrong) against
// their ground truth. Target: under 30 s.
func BenchmarkVerifyImplement(b *testing.B) {
	const answers = 10000
	th := config.Default().Teacher.Verify
	tasks := make([]*curate.Task, answers)
	texts := make([]string, answers)
	for i := range tasks {
		var files []schema.ImplementFile
		var edits []schema.Edit
		for f := range 2 {
			path := fmt.Sprintf("pkg/mod%d_%d.py", i, f)
			var lines []string
			for l := range 200 {
				lines = append(lines, fmt.Sprintf("    value_%d = compute(%d, %d)  # line of task %d", l, i, f, i))
			}
			files = append(files, schema.ImplementFile{Path: path, Content: strings.Join(lines, "\n") + "\n"})
			for _, l := range []int{10, 100, 190} {
				old := lines[l] + "\n"
				edits = append(edits, schema.Edit{File: path, Search: old, Replace: strings.Replace(old, "compute", "recompute", 1)})
			}
		}
		js, _ := json.Marshal(schema.ImplementTarget{Files: files, Edits: edits})
		tasks[i] = &curate.Task{ID: fmt.Sprint(i), Targets: map[string]json.RawMessage{schema.StageImplement: js}}
		if i%2 == 1 {
			edits[len(edits)-1].Replace = "    broken\n"
		}
		texts[i] = prompt.RenderEdits(edits)
	}
	b.ResetTimer()
	for range b.N {
		ok := 0
		for i := range tasks {
			if verify(schema.StageImplement, tasks[i], texts[i], th).ok {
				ok++
			}
		}
		if ok != answers/2 {
			b.Fatalf("%d verified, want %d", ok, answers/2)
		}
	}
	b.ReportMetric(float64(answers)/(b.Elapsed().Seconds()/float64(b.N)), "answers/s")
}
