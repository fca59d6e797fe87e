package distill

import (
	"context"
	"testing"

	"github.com/cra-dev/cra/internal/fakellm"
)

// A distillation whose answers come partly from the cache (another name
// asked two stages before), partly from the teacher, with a request the
// teacher refuses (live) and --max-calls leaving items: every stage's
// figures add up — Items = Verified + Rejected + Failed + Left and
// Verified + Rejected = FromCache + FromTeacher — live and through the
// Batch API.
func TestDistillSummaryAddsUp(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	for _, batch := range []bool{false, true} {
		t.Run(map[bool]string{false: "live", true: "batch"}[batch], func(t *testing.T) {
			home := minedPythonHome(t)
			ts := newTeacher(t, home, half)
			opts := distillOptions(ts.Server)
			opts.Batch = batch
			opts.Name, opts.Stages = "first", []string{"scope", "precision"}
			distill(t, home, opts)

			opts.Name, opts.Stages, opts.DryRun = "second", nil, true
			toAsk := distill(t, home, opts).Totals.Estimate.Calls
			if toAsk < 4 {
				t.Fatalf("%d requests to ask: too few for the test", toAsk)
			}
			opts.DryRun, opts.MaxCalls = false, toAsk-2
			if !batch {
				ts.Enqueue(fakellm.Reply{Status: 400, Error: "refused"})
			}
			sum, err := Run(context.Background(), home, opts)
			if err != nil {
				t.Fatal(err)
			}
			all := map[string]*StageSummary{"total": &sum.Totals}
			for st, s := range sum.Stages {
				all[st] = s
			}
			for st, s := range all {
				if s.Items != s.Verified+s.Rejected+s.Failed+s.Left {
					t.Errorf("%s: items %d != verified %d + rejected %d + failed %d + left %d", st, s.Items, s.Verified, s.Rejected, s.Failed, s.Left)
				}
				if s.Verified+s.Rejected != s.FromCache+s.FromTeacher {
					t.Errorf("%s: verified %d + rejected %d != from cache %d + from teacher %d", st, s.Verified, s.Rejected, s.FromCache, s.FromTeacher)
				}
			}
			tot := sum.Totals
			if tot.FromCache == 0 || tot.FromTeacher == 0 || tot.Left == 0 || tot.Calls != opts.MaxCalls || (tot.Failed == 0) != batch {
				t.Errorf("totals %+v: want answers from the cache and from the teacher, %d calls, items left, and (live) one failed",
					tot, opts.MaxCalls)
			}
		})
	}
}
