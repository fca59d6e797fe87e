package distill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A run over bootstrap's real tasks: the prompts the teacher gets are the
// ones curate-data renders for the student, right answers are verified
// and become the dataset, wrong ones are kept as outcomes with their
// reason and reach no training example.
func TestDistillVerifiesAndKeepsOnlyVerified(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, half)
	opts := distillOptions(ts.Server)
	sum := distill(t, home, opts)
	t.Logf("summary %+v", sum.Totals)
	if sum.Totals.Calls == 0 || sum.Totals.Verified == 0 || sum.Totals.Rejected == 0 {
		t.Fatalf("totals %+v: want calls, some verified and some rejected", sum.Totals)
	}
	// Every prompt sent is one curate-data renders for the student.
	curated := map[string]bool{}
	curateData(t, home, "student")
	for _, r := range rawRows(t, home, `SELECT messages[1].content || chr(0) || messages[2].content FROM training_examples WHERE dataset = 'student'`) {
		curated[r] = true
	}
	for _, r := range ts.Requests() {
		if prompt := r.Messages[0].Content + "\x00" + r.Messages[1].Content; !curated[prompt] {
			t.Errorf("the teacher got a prompt curate-data does not render: %.200q", prompt)
		}
	}
	// Only verified answers, and all of them, are examples; each is the
	// ground truth's answer (the fake's right answers).
	ex := rawRows(t, home, `SELECT target_id FROM training_examples WHERE dataset = 'distilled' AND source = 'distilled' ORDER BY 1`)
	ver := rawRows(t, home, `SELECT item_id FROM distill_outcomes WHERE verified ORDER BY 1`)
	if len(ex) != sum.Totals.Verified || strings.Join(ex, ",") != strings.Join(ver, ",") {
		t.Errorf("examples %v, verified outcomes %v (summary says %d)", ex, ver, sum.Totals.Verified)
	}
	if n := rawValue[int](t, home, `SELECT count(*) FROM training_examples e JOIN distill_outcomes o ON o.item_id = e.target_id
		WHERE e.dataset = 'distilled' AND NOT o.verified`); n != 0 {
		t.Errorf("%d unverified answers reached training_examples", n)
	}
	if n := rawValue[int](t, home, `SELECT count(*) FROM distill_outcomes WHERE NOT verified AND (messages IS NOT NULL OR reason = '')`); n != 0 {
		t.Errorf("%d rejected outcomes carry an example or no reason", n)
	}
	for _, r := range rawRows(t, home, `SELECT messages[1].content || chr(0) || messages[2].content, messages[3].content FROM training_examples WHERE dataset = 'distilled'`) {
		prompt, answer, _ := strings.Cut(r, "\t")
		if ts.truth[prompt] != answer {
			t.Errorf("an example's answer is not the ground truth's:\n%s\nwant\n%s", answer, ts.truth[prompt])
		}
	}
	if sum.Dataset != "distilled@1" {
		t.Errorf("dataset %q, want distilled@1", sum.Dataset)
	}
}

// The cache: a second run, and a run of another distillation with the
// same prompts, send nothing; the server charged every request once.
func TestDistillCachePaysOnce(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, half)
	smallWindows(t, 2)
	opts := distillOptions(ts.Server)
	first := distill(t, home, opts)
	calls := ts.Calls()
	again := distill(t, home, opts)
	if ts.Calls() != calls || again.Totals.Calls != 0 || again.Skipped["verified_before"]+again.Skipped["judged_before"] != first.Totals.Items {
		t.Errorf("a re-run called %d times (summary %+v, skipped %v); want nothing", ts.Calls()-calls, again.Totals, again.Skipped)
	}
	if again.Dataset != "" {
		t.Errorf("a re-run with nothing new registered %s", again.Dataset)
	}
	opts.Name = "other"
	other := distill(t, home, opts)
	if ts.Calls() != calls || other.Totals.FromCache != first.Totals.FromTeacher || other.Totals.Verified != first.Totals.Verified {
		t.Errorf("another name: %d calls, totals %+v; want every answer from the cache, judged the same", ts.Calls()-calls, other.Totals)
	}
	if other.Totals.CostUSD != 0 {
		t.Errorf("cached answers cost $%g", other.Totals.CostUSD)
	}
	for k, n := range ts.Charges() {
		if n != 1 {
			t.Errorf("request %.12s charged %d times", k, n)
		}
	}
	// Every call is a logged row; the outcomes name it.
	if n := rawValue[int](t, home, `SELECT count(*) FROM retrieval_llm_calls WHERE call_type = 'distill' AND response IS NOT NULL`); n != calls {
		t.Errorf("%d logged teacher calls, want %d", n, calls)
	}
	if n := rawValue[int](t, home, `SELECT count(*) FROM distill_outcomes o LEFT JOIN retrieval_llm_calls c
		ON c.task_id = o.call_task_id AND c.call_type = 'distill' WHERE c.task_id IS NULL`); n != 0 {
		t.Errorf("%d outcomes name no logged call", n)
	}
}

// The dry run's estimate against what the paid fake then charges: within
// the stated margin; the run's own accounting equals the charge.
func TestDistillEstimateMatchesTheCharge(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	for _, batch := range []bool{false, true} {
		t.Run(map[bool]string{false: "live", true: "batch"}[batch], func(t *testing.T) {
			home := minedPythonHome(t)
			ts := newTeacher(t, home, always)
			opts := distillOptions(ts.Server)
			opts.Batch = batch
			opts.DryRun = true
			dry := distill(t, home, opts)
			if ts.Calls() != 0 || ts.Uploads() != 0 {
				t.Fatalf("the dry run called the server")
			}
			if n := rawValue[int](t, home, `SELECT (SELECT count(*) FROM distill_runs) + (SELECT count(*) FROM distill_spend)`); n != 0 {
				t.Errorf("the dry run wrote %d rows", n)
			}
			est := dry.Totals.Estimate
			if est == nil || est.Calls != dry.Totals.Items || est.Calls == 0 {
				t.Fatalf("estimate %+v for %d items", est, dry.Totals.Items)
			}
			opts.DryRun = false
			sum := distill(t, home, opts)
			charged := ts.Spent()
			if charged == 0 {
				t.Fatal("the fake charged nothing")
			}
			if d := est.CostUSD - charged; d > dry.Margin*est.CostUSD || -d > dry.Margin*est.CostUSD {
				t.Errorf("estimate %s, charged %s: off by more than the stated ±%.0f%%", money(est.CostUSD), money(charged), dry.Margin*100)
			}
			if est.MaxCostUSD < charged {
				t.Errorf("the most it could cost, %s, is under the charge %s", money(est.MaxCostUSD), money(charged))
			}
			if !approx(sum.Totals.CostUSD, charged) || !approx(sum.SpentUSD, charged) {
				t.Errorf("the run counts %s (spent %s), the server charged %s", money(sum.Totals.CostUSD), money(sum.SpentUSD), money(charged))
			}
			if got := rawValue[float64](t, home, `SELECT sum(cost_usd) FROM distill_cache`); !approx(got, charged) {
				t.Errorf("the cache holds costs %s, the server charged %s", money(got), money(charged))
			}
		})
	}
}

// --budget-usd with 8 calls in flight and 429s among them: spending never
// passes the cap, the run stops cleanly, the same budget does nothing
// more, a larger one goes on, and no request is ever paid twice.
func TestDistillBudgetIsAHardCap(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, always)
	ts.RateLimitEvery(3, "0")
	// Answers slower than a transaction on a busy machine, so calls overlap.
	ts.slow(150 * time.Millisecond)
	opts := distillOptions(ts.Server)
	opts.Jobs = 8
	// max_tokens just above the longest answer: reservations near what
	// calls cost, so that several fit in flight at once.
	opts.Teacher.MaxTokens = 0
	for _, a := range ts.truth {
		opts.Teacher.MaxTokens = max(opts.Teacher.MaxTokens, chars4.Estimate(a)+8)
	}
	opts.DryRun = true
	est := distill(t, home, opts).Totals.Estimate
	opts.DryRun = false
	budget := est.CostUSD * 0.6
	opts.BudgetUSD = &budget
	sum := distill(t, home, opts)
	if ts.Spent() > budget || sum.SpentUSD > budget {
		t.Fatalf("charged %s, counted %s: over the budget %s", money(ts.Spent()), money(sum.SpentUSD), money(budget))
	}
	if sum.Stopped != StopBudget || sum.Totals.Left == 0 || sum.Totals.Calls == 0 {
		t.Fatalf("summary %+v stopped %q: want some calls, then a stop on the budget with items left", sum.Totals, sum.Stopped)
	}
	if ts.MaxInFlight() < 2 {
		t.Errorf("at most %d calls were in flight: the test did not run them concurrently", ts.MaxInFlight())
	}
	calls := ts.Calls()
	same := distill(t, home, opts)
	if ts.Calls() != calls || same.Stopped != StopBudget {
		t.Errorf("the same budget again: %d more requests, stopped %q; want none and a budget stop (first run %+v, this one %+v)",
			ts.Calls()-calls, same.Stopped, sum.Totals, same.Totals)
	}
	more := est.MaxCostUSD
	opts.BudgetUSD = &more
	rest := distill(t, home, opts)
	if rest.Stopped != "" || rest.Totals.Left != 0 || ts.Spent() > more {
		t.Errorf("a larger budget: stopped %q, totals %+v, charged %s of %s", rest.Stopped, rest.Totals, money(ts.Spent()), money(more))
	}
	for k, n := range ts.Charges() {
		if n != 1 {
			t.Errorf("request %.12s charged %d times", k, n)
		}
	}
	if got := rawValue[float64](t, home, `SELECT sum(coalesce(settled_usd, reserved_usd)) FROM distill_spend`); !approx(got, ts.Spent()) {
		t.Errorf("stored spending %s, charged %s", money(got), money(ts.Spent()))
	}
}

// A teacher reporting more completion tokens than max_tokens allowed is a
// provider fault: the run stops at the first such answer and ends with
// the error (exit 1), no call starts after it, the calls already in
// flight settle at what they report, every call is logged, no such answer
// is cached, judged or made an example, and spending passes the cap by at
// most what the calls in flight (at most --jobs live; a batch's every
// request) cost beyond their reservations.
func TestDistillStopsOnAnOverReportingTeacher(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	for _, tt := range []struct {
		name     string
		batch    bool
		reported int // completion tokens reported; distillOptions' max_tokens is 2048
		budget   float64
	}{
		// About 3x each reservation, well within the cap: without the
		// fault, calls would go on until the cap.
		{"live, 4x max_tokens", false, 4 * 2048, 1},
		// $1 each: the calls in flight take spending past the cap.
		{"live, 100000 tokens", false, 100000, 0.5},
		{"batch, 100000 tokens", true, 100000, 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := minedPythonHome(t)
			ts := newTeacher(t, home, always)
			ts.slow(50 * time.Millisecond) // calls overlap
			ts.overReports(tt.reported)
			opts := distillOptions(ts.Server)
			opts.Batch, opts.BudgetUSD = tt.batch, &tt.budget
			sum, err := Run(context.Background(), home, opts)
			var fault *ProviderFaultError
			if !errors.As(err, &fault) || fault.Reported != int64(tt.reported) || fault.Allowed != int64(opts.Teacher.MaxTokens) ||
				fault.Model != "teacher-1" || !strings.Contains(err.Error(), fmt.Sprintf("teacher-1 (remote_api at %s) reported %d completion tokens for a request that allowed %d",
				opts.Teacher.BaseURL, tt.reported, opts.Teacher.MaxTokens)) {
				t.Fatalf("err %v: want a provider fault naming teacher-1, %d tokens reported, %d allowed", err, tt.reported, opts.Teacher.MaxTokens)
			}
			if sum == nil || sum.Stopped != StopProviderFault {
				t.Fatalf("summary %+v: want stopped %q", sum, StopProviderFault)
			}
			if got := rawRows(t, home, `SELECT status || ' ' || stopped FROM distill_runs`); strings.Join(got, ",") != "failed provider_fault" {
				t.Errorf("distill_runs %v", got)
			}
			requests := rawValue[int](t, home, `SELECT count(*) FROM distill_spend`)
			if !tt.batch && (ts.Calls() > opts.Jobs || ts.Calls() == 0) {
				t.Errorf("%d calls sent: none starts after the first fault, so at most --jobs %d", ts.Calls(), opts.Jobs)
			}
			if n := rawValue[int](t, home, `SELECT count(*) FROM retrieval_llm_calls WHERE call_type = 'distill' AND response IS NOT NULL`); n != requests || n == 0 {
				t.Errorf("%d calls logged with their answer, %d requests reserved: want each logged", n, requests)
			}
			if n := rawValue[int](t, home, `SELECT (SELECT count(*) FROM distill_cache) + (SELECT count(*) FROM distill_outcomes) +
				(SELECT count(*) FROM training_examples)`); n != 0 {
				t.Errorf("%d cache rows, outcomes or examples from answers past max_tokens", n)
			}
			spent := rawValue[float64](t, home, `SELECT sum(coalesce(settled_usd, reserved_usd)) FROM distill_spend`)
			if !approx(spent, ts.Spent()) || !approx(sum.SpentUSD, spent) {
				t.Errorf("stored spending %s, summary %s, the teacher charged %s", money(spent), money(sum.SpentUSD), money(ts.Spent()))
			}
			// The bound: the cap, plus what the requests in flight cost
			// beyond their reservations.
			inFlight := opts.Jobs
			if tt.batch {
				inFlight = requests
			}
			excess := rawValue[float64](t, home, `SELECT max(settled_usd - reserved_usd) FROM distill_spend`)
			bound := tt.budget + float64(inFlight)*excess
			t.Logf("%d requests, spent %s against a cap of %s; bound %s (%d in flight, %s over a reservation at most)",
				requests, money(spent), money(tt.budget), money(bound), inFlight, money(excess))
			if spent > bound {
				t.Errorf("spent %s: over the cap %s plus %d calls in flight at %s over their reservation", money(spent), money(tt.budget), inFlight, money(excess))
			}
		})
	}
}

// A provider's prompt cache: the cached prompt tokens it reports are
// settled at the cached price, to the cent of what it charged.
func TestDistillSettlesCachedPromptTokens(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, always)
	b := billing(testPrices)
	b.CacheSystem = true
	ts.SetBilling(b)
	opts := distillOptions(ts.Server)
	opts.Jobs = 1
	sum := distill(t, home, opts)
	if sum.Totals.CachedTokens == 0 {
		t.Fatal("no cached prompt tokens reported: the test proves nothing")
	}
	if !approx(sum.Totals.CostUSD, ts.Spent()) || !approx(sum.SpentUSD, ts.Spent()) {
		t.Errorf("settled %s (spent %s), charged %s", money(sum.Totals.CostUSD), money(sum.SpentUSD), money(ts.Spent()))
	}
	if got := rawValue[int](t, home, `SELECT sum(cached_tokens) FROM distill_cache`); int64(got) != sum.Totals.CachedTokens {
		t.Errorf("the cache holds %d cached tokens, the summary %d", got, sum.Totals.CachedTokens)
	}
}

// An OpenAI reasoning model as the teacher gets max_completion_tokens and
// no temperature, live and in a batch; other models the temperature 0.
func TestDistillShapesRequestsForReasoningModels(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, always)
	for _, tc := range []struct {
		model string
		batch bool
	}{{"o4-mini", false}, {"gpt-5-mini", true}, {"deepseek-chat", false}} {
		opts := distillOptions(ts.Server)
		opts.Teacher.Model, opts.Batch, opts.Stages, opts.Name = tc.model, tc.batch, []string{"scope"}, tc.model
		distill(t, home, opts)
		seen := 0
		for _, r := range ts.Requests() {
			if r.Model != tc.model {
				continue
			}
			seen++
			var body map[string]any
			_ = json.Unmarshal(r.Body, &body)
			_, temp := body["temperature"]
			_, mct := body["max_completion_tokens"]
			_, mt := body["max_tokens"]
			if reasoning := tc.model != "deepseek-chat"; temp == reasoning || mct != reasoning || mt == reasoning {
				t.Errorf("%s: body %s", tc.model, r.Body)
			}
		}
		if seen == 0 {
			t.Errorf("%s: no request", tc.model)
		}
	}
}

// A request whose send brought no answer — its attempt timed out, against
// a teacher that bills it all the same (the worst case) — is not sent
// again within the run: the call fails, its reservation stays as spent,
// and the next run asks it again. The teacher bills each request at most
// once a run, and the ledger is never below the bill, so --budget-usd
// caps what the provider charged.
func TestDistillDoesNotResendARequestThatGotNoAnswer(t *testing.T) {
	t.Setenv(teacherKeyEnv, teacherKey)
	home := minedPythonHome(t)
	ts := newTeacher(t, home, always)
	b := billing(testPrices)
	b.ChargeCutOff = true
	ts.SetBilling(b)
	opts := distillOptions(ts.Server)
	opts.Teacher.Timeout = 300 * time.Millisecond
	opts.Stages = []string{"scope"}
	ts.HoldAfter(2) // two answered, every later request held until its attempt times out
	first, err := Run(context.Background(), home, opts)
	if err != nil {
		t.Fatal(err)
	}
	timedOut := ts.CutOff()
	for k, n := range ts.Charges() {
		if n > 1 {
			t.Errorf("request %.12s billed %d times in one run: sent again after an attempt with no answer", k, n)
		}
	}
	if first.Totals.Failed != timedOut || timedOut == 0 {
		t.Errorf("%d calls failed, %d attempts timed out: want each timed-out request failed, once", first.Totals.Failed, timedOut)
	}
	if first.SpentUSD < ts.Spent()-1e-9 {
		t.Errorf("the ledger says $%.9f spent, the teacher billed $%.9f", first.SpentUSD, ts.Spent())
	}
	ts.Release()
	again := distill(t, home, opts)
	if again.Totals.Calls != first.Totals.Failed || again.Totals.Failed != 0 {
		t.Errorf("the next run: %+v; want the %d failed requests asked again and answered", again.Totals, first.Totals.Failed)
	}
	for k, n := range ts.Charges() {
		if n > 2 {
			t.Errorf("request %.12s billed %d times over two runs", k, n)
		}
	}
	if again.SpentUSD < ts.Spent()-1e-9 {
		t.Errorf("the ledger says $%.9f spent, the teacher billed $%.9f", again.SpentUSD, ts.Spent())
	}
}
