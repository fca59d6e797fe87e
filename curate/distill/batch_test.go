package distill

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// interruptWhen runs a distillation and cancels it once ready says so,
// as a restart would end it; it returns the run's error.
func interruptWhen(t *testing.T, home string, opts Options, ready func() bool) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, home, opts)
		done <- err
	}()
	deadline := time.After(20 * time.Second)
	for !ready() {
		select {
		case err := <-done:
			t.Fatalf("the run ended before the interruption: %v", err)
		case <-deadline:
			t.Fatal("the run never got to the point of interruption")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	return <-done
}

func polled(ts *teacherServer) bool {
	for _, r := range ts.Requests() {
		if r.Method == "GET" && strings.HasPrefix(r.Path, "/v1/batches/") {
			return true
		}
	}
	return false
}

// The batch flow end to end with a restart between upload and download:
// the restarted run creates nothing, picks the batch up by its id,
// downloads, verifies and registers the dataset; every request charged
// once, at the batch price, and every reservation settled.
func TestDistillBatchResumesAfterARestart(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, half)
	ts.HoldBatches(true)
	smallWindows(t, 4) // a batch per window
	opts := distillOptions(ts.Server)
	opts.Batch = true
	if err := interruptWhen(t, home, opts, func() bool { return polled(ts) }); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if got := rawRows(t, home, `SELECT status, batch_id IS NOT NULL FROM distill_batches`); len(got) != 2 {
		t.Fatalf("batches recorded: %v; want one per window of 4 of the 6 tasks", got)
	}
	if n := rawValue[int](t, home, `SELECT count(*) FROM distill_outcomes`); n != 0 {
		t.Fatalf("%d outcomes before the batch ended", n)
	}
	ts.HoldBatches(false)
	sum := distill(t, home, opts)
	if ts.Uploads() != 2 || ts.BatchesCreated() != 2 {
		t.Errorf("uploads %d, batches %d after the restart; want 2 and 2", ts.Uploads(), ts.BatchesCreated())
	}
	if sum.Totals.Verified+sum.Totals.Rejected != ts.BatchRequests() || sum.Totals.Verified == 0 || sum.Dataset != "distilled@1" {
		t.Errorf("after the restart: %+v, dataset %q; %d requests answered", sum.Totals, sum.Dataset, ts.BatchRequests())
	}
	for k, n := range ts.Charges() {
		if n != 1 {
			t.Errorf("request %.12s charged %d times", k, n)
		}
	}
	if got := rawValue[float64](t, home, `SELECT sum(settled_usd) FROM distill_spend`); !approx(got, ts.Spent()) || ts.Spent() == 0 {
		t.Errorf("settled %s, charged %s", money(got), money(ts.Spent()))
	}
	if n := rawValue[int](t, home, `SELECT count(*) FROM distill_spend WHERE settled_usd IS NULL`); n != 0 {
		t.Errorf("%d reservations never settled", n)
	}
	if n := rawValue[int](t, home, `SELECT count(*) FROM retrieval_llm_calls WHERE call_type = 'distill' AND response IS NOT NULL`); n != ts.BatchRequests() {
		t.Errorf("%d logged calls for %d batch requests", n, ts.BatchRequests())
	}
	if again := distill(t, home, opts); again.Totals.Calls != 0 || ts.Uploads() != 2 {
		t.Errorf("a third run: %+v, %d uploads", again.Totals, ts.Uploads())
	}
}

// A run killed after the API created its batch but before it recorded
// the batch's id: the next run finds the batch by its input file and
// creates none.
func TestDistillBatchCreatedButNotRecordedIsFound(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, always)
	ts.SetBatchCreateDelay(time.Minute)
	opts := distillOptions(ts.Server)
	opts.Batch = true
	if err := interruptWhen(t, home, opts, func() bool { return ts.BatchesCreated() == 1 }); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if got := rawRows(t, home, `SELECT status, batch_id IS NULL FROM distill_batches`); len(got) != 1 || got[0] != "uploaded\ttrue" {
		t.Fatalf("batch rows %v: want one uploaded, without a batch id", got)
	}
	ts.SetBatchCreateDelay(0)
	sum := distill(t, home, opts)
	if ts.BatchesCreated() != 1 || ts.Uploads() != 1 {
		t.Errorf("batches %d, uploads %d: want the one created before the kill, found again", ts.BatchesCreated(), ts.Uploads())
	}
	if sum.Totals.Verified != sum.Totals.Items {
		t.Errorf("totals %+v", sum.Totals)
	}
}

// A live run interrupted (SIGINT) with calls in flight: it says so, keeps
// what was answered — outcomes, a dataset version of the verified ones —
// and the next run sends only what was not answered.
func TestDistillInterruptedLiveRunKeepsItsAnswers(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, always)
	ts.HoldAfter(5)
	opts := distillOptions(ts.Server)
	opts.Jobs = 2
	if err := interruptWhen(t, home, opts, func() bool { return ts.Held() == 2 }); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	ts.Release()
	if got := rawRows(t, home, `SELECT status FROM distill_runs`); len(got) != 1 || got[0] != "interrupted" {
		t.Errorf("run rows %v", got)
	}
	if got := rawValue[int](t, home, `SELECT count(*) FROM distill_outcomes`); got != 5 {
		t.Errorf("%d outcomes kept, want the 5 answered", got)
	}
	if got := rawValue[int](t, home, `SELECT examples FROM dataset_versions WHERE name = 'distilled'`); got != 5 {
		t.Errorf("the interrupted run registered %d examples, want its 5 verified answers", got)
	}
	sum := distill(t, home, opts)
	if sum.Totals.Calls != sum.Totals.Items || sum.Skipped["verified_before"] != 5 {
		t.Errorf("the next run: %+v, skipped %v", sum.Totals, sum.Skipped)
	}
	for k, n := range ts.Charges() {
		if n != 1 {
			t.Errorf("request %.12s charged %d times", k, n)
		}
	}
}
