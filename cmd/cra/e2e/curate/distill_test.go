package curate_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
)

const (
	distillKeyEnv = "CRA_TEST_DISTILL_KEY"
	distillKey    = "sk-cli-distill-8d2f6a1c9e-SECRET"
)

// teacherAnswers is a fake teacher: a valid answer of each stage's format
// (right for the tasks that changed app/store.py alone).
func teacherAnswers(req fakellm.Request) fakellm.Reply {
	system := req.Messages[0].Content
	switch {
	case strings.HasPrefix(system, "You select the files"):
		return fakellm.Reply{Text: `{"relevant": ["app/store.py"]}`}
	case strings.HasPrefix(system, "You decide how much"):
		return fakellm.Reply{Text: `{"symbols": {}}`}
	case strings.HasPrefix(system, "You plan a code change"):
		return fakellm.Reply{Text: `{"task_summary": "", "affected_files": [{"path": "app/store.py", "role": "modify", "changes": []}], "execution_order": ["app/store.py"], "rationale": ""}`}
	}
	return fakellm.Reply{Text: "<edit file=\"app/store.py\">\n<search>\nclass Store:\n</search>\n<replacement>\nclass Store:  # edited\n</replacement>\n</edit>"}
}

// distillHome is a home whose teacher is srv (prices set), with the
// synthetic tasks of a small Python history mined.
func distillHome(t *testing.T, srv *fakellm.Server, extra string) string {
	t.Helper()
	return distillHomeOf(t, srv, extra, gittest.PythonHistory(t))
}

// distillHomeOf is distillHome with repo's history mined.
func distillHomeOf(t *testing.T, srv *fakellm.Server, extra string, repo *gittest.Repo) string {
	t.Helper()
	home := cli.NewHome(t)
	path := filepath.Join(home, "config.toml")
	cfg, _ := os.ReadFile(path)
	text := strings.Replace(string(cfg), "[teacher]\n", "[teacher]\nbase_url = \""+srv.OpenAIURL()+"\"\nmodel = \"teacher-1\"\n"+
		"api_key_env = \""+distillKeyEnv+"\"\nmax_tokens = 512\nbatch_poll_seconds = 1\nmax_retries = 8\n"+extra, 1)
	text = strings.Replace(text, "[teacher.prices]\n", "[teacher.prices]\ninput_per_million = 3.0\noutput_per_million = 15.0\n", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.SetBilling(fakellm.Billing{InputPerMillion: 3, OutputPerMillion: 15, BatchDiscount: 0.5,
		Tokens: func(s string) int { return (len(s) + 3) / 4 }})
	cli.MustRun(t, home, "bootstrap", repo.Dir)
	return home
}

func kill9(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() //nolint:errcheck // killed on purpose
}

func chargedOnce(t *testing.T, srv *fakellm.Server) {
	t.Helper()
	for k, n := range srv.Charges() {
		if n != 1 {
			t.Errorf("request %.12s paid %d times", k, n)
		}
	}
}

// A real `cra distill` process killed -9 with calls in flight, then run
// again: no answered request is sent twice (the server counts), the
// answers stored before the kill are not lost, and the requests cut off
// by the kill — never answered — count at their reservation.
func TestDistillKilledResumesWithoutPayingTwice(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers)
	home := distillHome(t, srv, "")
	const answered, jobs = 6, 2
	srv.HoldAfter(answered)
	child := clitest.StartChild(t, "--home", home, "distill", "--jobs", "2")
	srv.WaitUntil(t, "the child's calls held", func() bool { return srv.Answered() == answered && srv.Held() == jobs }, time.Minute)
	kill9(t, child)
	// The server learns of the dead client when its connections close:
	// release nothing before, or it would answer (and charge) a request
	// nobody reads.
	srv.WaitUntil(t, "the held calls to see their client gone", func() bool { return srv.Held() == 0 }, time.Minute)
	srv.Release()
	before := srv.Charges()

	out := cli.MustRun(t, home, "--json", "distill")
	var sum struct {
		Totals  struct{ Calls, Verified, Rejected, Left int }
		Skipped map[string]int
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	chargedOnce(t, srv)
	twice := 0
	for k, n := range srv.Received() {
		if n > 1 {
			twice++
			if before[k] != 0 {
				t.Errorf("request %.12s was answered before the kill and sent again", k)
			}
		}
	}
	if twice > jobs {
		t.Errorf("%d requests sent twice; only the %d cut off by the kill may be", twice, jobs)
	}
	if sum.Skipped["judged_before"]+sum.Skipped["verified_before"] != answered || sum.Totals.Left != 0 {
		t.Errorf("the re-run: %+v, skipped %v; want the %d answers stored before the kill kept", sum.Totals, sum.Skipped, answered)
	}
	logged := cli.SQLRows(t, home, "select count(*) from raw.retrieval_llm_calls where call_type = 'distill' and response is not null")
	if want := "count_star()\n" + strconv.Itoa(len(srv.Charges())) + "\n"; logged != want {
		t.Errorf("logged answers %q, want one per paid request (%d)", logged, len(srv.Charges()))
	}
	if got := cli.SQLRows(t, home, "select status, count(*) from raw.distill_runs group by all order by all"); got != "status,count_star()\ninterrupted,1\nok,1\n" {
		t.Errorf("runs: %q", got)
	}
	if got := cli.SQLRows(t, home, "select count(*) from raw.distill_spend where settled_usd is null"); got != "count_star()\n"+strconv.Itoa(jobs)+"\n" {
		t.Errorf("unsettled reservations %q: want the %d requests cut off", got, jobs)
	}
}

// `cra distill --batch` killed -9 while its batch runs, then run again:
// the batch is picked up by its id — one upload, one batch, every request
// paid once — and its verified answers become the dataset.
func TestDistillBatchKilledBetweenUploadAndDownload(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers)
	home := distillHome(t, srv, "")
	srv.HoldBatches(true)
	child := clitest.StartChild(t, "--home", home, "distill", "--batch")
	srv.WaitUntil(t, "the child to poll its batch", func() bool {
		for _, r := range srv.Requests() {
			if r.Method == "GET" && strings.HasPrefix(r.Path, "/v1/batches/batch_") {
				return true
			}
		}
		return false
	}, time.Minute)
	kill9(t, child)
	srv.HoldBatches(false)
	out := cli.MustRun(t, home, "distill", "--batch")
	if srv.Uploads() != 1 || srv.BatchesCreated() != 1 || srv.BatchRequests() == 0 {
		t.Errorf("uploads %d, batches %d, batch requests %d: want the one batch resumed", srv.Uploads(), srv.BatchesCreated(), srv.BatchRequests())
	}
	chargedOnce(t, srv)
	if !strings.Contains(out, "dataset distilled@1") {
		t.Errorf("no dataset registered:\n%s", out)
	}
	if got := cli.SQLRows(t, home, "select count(*) > 0 from raw.training_examples where dataset = 'distilled' and source = 'distilled'"); got != "(count_star() > 0)\ntrue\n" {
		t.Errorf("examples: %q", got)
	}
}

// --dry-run prints what it would send and cost and sends nothing; a run
// prints its summary; a budget too small for one call stops cleanly.
func TestDistillCommandOutput(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers)
	home := distillHome(t, srv, "")
	dry := cli.MustRun(t, home, "distill", "--dry-run", "--stage", "scope,plan")
	for _, want := range []string{"dry run of distilled with teacher teacher-1", "STAGE", "scope", "plan", "total", "estimated cost $", "(±10%), at most $"} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, dry)
		}
	}
	if srv.Calls() != 0 {
		t.Fatalf("the dry run sent %d requests", srv.Calls())
	}
	res := cli.Cra(t, home, "", "distill", "--budget-usd", "0.000001")
	if res.Code != clitest.ExitOK || !strings.Contains(res.Stdout, "stopped: the next call could cost more than the budget left") || srv.Calls() != 0 {
		t.Errorf("a budget too small: exit %d, %d calls:\n%s%s", res.Code, srv.Calls(), res.Stdout, res.Stderr)
	}
	out := cli.MustRun(t, home, "distill", "--stage", "scope", "--max-calls", "2")
	if srv.Calls() != 2 || !strings.Contains(out, "stopped: --max-calls reached") {
		t.Errorf("--max-calls 2: %d calls:\n%s", srv.Calls(), out)
	}
	var sum struct {
		Stages map[string]struct {
			Calls, Verified, Rejected int
			Rate                      float64 `json:"verification_rate"`
		}
		SpentUSD float64 `json:"spent_usd"`
	}
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "distill", "--stage", "scope")), &sum); err != nil {
		t.Fatal(err)
	}
	if s := sum.Stages["scope"]; s.Calls == 0 || s.Verified+s.Rejected != s.Calls || sum.SpentUSD <= 0 {
		t.Errorf("--json summary %+v", sum)
	}
	if st := cli.MustRun(t, home, "status"); !strings.Contains(st, "distilled: ") || !strings.Contains(st, " verified, $") {
		t.Errorf("cra status does not show the last distill run:\n%s", st)
	}
	for _, args := range [][]string{{"distill", "--stage", "review"}, {"distill", "--from", "failed-runs"},
		{"distill", "--repos", "/nowhere"}, {"distill", "--training-plan", filepath.Join(home, "none.json")}} {
		if res := cli.Cra(t, home, "", args...); res.Code != clitest.ExitUsage {
			t.Errorf("%v: exit %d, %s", args, res.Code, res.Stderr)
		}
	}
	plan := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(plan, []byte(`{"target_stage": "precision"}`), 0o644) //nolint:errcheck
	if out := cli.MustRun(t, home, "distill", "--dry-run", "--training-plan", plan); !strings.Contains(out, "precision") || strings.Contains(out, "\nscope") {
		t.Errorf("--training-plan naming precision:\n%s", out)
	}
}

// A teacher reporting 100,000 completion tokens against max_tokens 512
// (issue 25, finding 8): the run stops at the first such answer with exit
// 1, naming the teacher and the tokens reported and allowed; no call
// starts after it; the calls are logged but no answer of theirs is kept;
// and what the store counts as spent passes --budget-usd by at most
// --jobs calls beyond their reservations.
func TestDistillStopsOnAnOverReportingTeacher(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		rep := teacherAnswers(req)
		rep.CompletionTokens, rep.PastMaxTokens = 100000, true
		rep.Delay = 50 * time.Millisecond // calls overlap
		return rep
	})
	home := distillHome(t, srv, "")
	const jobs, budget = 2, 0.5
	res := cli.Cra(t, home, "", "distill", "--budget-usd", strconv.FormatFloat(budget, 'f', -1, 64), "--jobs", strconv.Itoa(jobs))
	want := "cra: teacher teacher-1 (remote_api at " + srv.OpenAIURL() + ") reported 100000 completion tokens for a request that allowed 512 (max_tokens): a provider fault"
	if res.Code != clitest.ExitFailures || !strings.Contains(res.Stderr, want) ||
		!strings.Contains(res.Stdout, "stopped: the teacher reported more completion tokens than max_tokens allows") {
		t.Fatalf("exit %d; want 1 and %q\nstdout: %s\nstderr: %s", res.Code, want, res.Stdout, res.Stderr)
	}
	if srv.Calls() == 0 || srv.Calls() > jobs {
		t.Errorf("%d calls sent; want no call started after the first fault: at most --jobs %d", srv.Calls(), jobs)
	}
	value := func(query string) float64 {
		t.Helper()
		rows := strings.Split(strings.TrimSpace(cli.SQLRows(t, home, query)), "\n")
		v, err := strconv.ParseFloat(rows[len(rows)-1], 64)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return v
	}
	if n := value("select count(*) from raw.retrieval_llm_calls where call_type = 'distill' and response is not null"); int(n) != srv.Calls() {
		t.Errorf("%g calls logged with their answer, %d sent", n, srv.Calls())
	}
	if n := value("select (select count(*) from raw.distill_cache) + (select count(*) from raw.training_examples)"); n != 0 {
		t.Errorf("%g cache rows or examples from answers past max_tokens", n)
	}
	spent := value("select sum(coalesce(settled_usd, reserved_usd)) from raw.distill_spend")
	excess := value("select max(settled_usd - reserved_usd) from raw.distill_spend")
	t.Logf("spent $%.4f against a cap of $%.2f; the bound: $%.4f (%d calls in flight at $%.4f over a reservation at most)",
		spent, budget, budget+jobs*excess, jobs, excess)
	if spent > budget+jobs*excess || spent < srv.Spent()-1e-9 {
		t.Errorf("spent $%.4f (the teacher charged $%.4f): want at least the charge, at most $%.2f + %d × $%.4f",
			spent, srv.Spent(), budget, jobs, excess)
	}
}

// The API key reaches the server (the Authorization header) and nothing
// else: not a row of either store (live and batch runs, a server that
// echoes the key in an error and in answers), not a log line at debug
// level, not the summary, not an export of the dataset, not a file of the
// home.
func TestDistillKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Reply{Status: 400, Error: "Incorrect API key provided: " + distillKey})
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		rep := teacherAnswers(req)
		if strings.HasPrefix(rep.Text, `{"relevant"`) {
			rep.Text = `{"relevant": ["app/store.py", "` + distillKey + `"]}`
			rep.Thinking = "the key is " + distillKey
		}
		return rep
	})
	home := distillHome(t, srv, "")
	var output strings.Builder
	for _, args := range [][]string{
		{"--log-level", "debug", "distill", "--stage", "scope,plan"},
		{"--log-level", "debug", "--json", "distill", "--stage", "scope,plan"},
		{"--log-level", "debug", "distill", "--batch", "--name", "batched"},
	} {
		res := cli.Cra(t, home, "", args...)
		output.WriteString(res.Stdout + res.Stderr)
	}
	if !strings.Contains(srv.Requests()[0].Authorization, distillKey) {
		t.Fatal("the key never reached the server: the test proves nothing")
	}
	if n := cli.SQLRows(t, home, "select count(*) from raw.retrieval_llm_calls where response like '%[REDACTED]%' or error like '%[REDACTED]%'"); n == "count_star()\n0\n" {
		t.Fatal("no answer or error carried the key: the test proves nothing")
	}
	for _, ref := range []string{"distilled", "batched"} {
		for _, format := range []string{"parquet", "jsonl"} {
			output.WriteString(cli.MustRun(t, home, "datasets", "export", ref, "--format", format))
		}
	}
	// Every row of every table, in one cra sql.
	tables := strings.Split(strings.TrimSpace(cli.SQLRows(t, home,
		"select 'from ' || database_name || '.' || table_name from duckdb_tables() where database_name in ('raw', 'curated')")), "\n")[1:]
	output.WriteString(cli.MustRun(t, home, "sql", "--format", "jsonl", strings.Join(tables, ";\n")))
	if strings.Contains(output.String(), distillKey) {
		t.Error("the key is in a row, a log line, a summary or an export listing")
	}
	filepath.WalkDir(home, func(path string, d os.DirEntry, err error) error { //nolint:errcheck
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), distillKey) {
				t.Errorf("the key is in %s", path)
			}
		}
		return nil
	})
}

// Credentials a mined commit holds never leave the machine: every prompt
// is redacted per [curate] secrets before it is sent (live and batch), so
// neither the teacher nor a row of the call log, the cache or the dataset
// sees them; with secrets = "drop" the tasks holding one are not asked
// about at all, and the summary says why.
func TestDistillRedactsSecretsBeforeSending(t *testing.T) {
	t.Parallel()
	const awsKey, ghToken = "AKIAIOSFODNN7EXAMPLE", "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	repo := gittest.PythonHistory(t)
	repo.Write("app/store.py", "ACCESS_KEY_ID = \""+awsKey+"\"\nGITHUB_TOKEN = \""+ghToken+"\"\n\n\n"+
		"class Store:\n    def get(self, key, default=None):\n        return key or default\n\n    def put(self, key, value):\n        return (key, value)\n")
	repo.Commit("Keep the credentials of the store next to it")
	repo.Write("app/store.py", "ACCESS_KEY_ID = \""+awsKey+"\"\nGITHUB_TOKEN = \""+ghToken+"\"\n\n\n"+
		"class Store:\n    def get(self, key, default=None):\n        return key or default\n\n    def put(self, key, value):\n        return [key, value]\n")
	repo.Commit("Make Store.put return a list of the key and value")
	leaks := func(s string) bool { return strings.Contains(s, awsKey) || strings.Contains(s, ghToken) }

	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers)
	home := distillHomeOf(t, srv, "", repo)
	cli.MustRun(t, home, "distill", "--stage", "scope,plan,implement")
	cli.MustRun(t, home, "distill", "--batch", "--name", "batched", "--stage", "scope,plan,implement")
	redacted := false
	for _, req := range srv.Requests() {
		body := string(req.Body)
		for _, m := range req.Messages {
			body += m.Content
		}
		if leaks(body) {
			t.Fatalf("the teacher received a credential (%s %s)", req.Method, req.Path)
		}
		redacted = redacted || strings.Contains(body, "[REDACTED]")
	}
	if !redacted {
		t.Fatal("no request carried a redacted credential: the test proves nothing")
	}
	for _, table := range []string{"raw.retrieval_llm_calls", "raw.distill_cache", "raw.distill_outcomes", "training_examples"} {
		if leaks(cli.MustRun(t, home, "sql", "--format", "jsonl", "from "+table)) {
			t.Errorf("%s holds a credential", table)
		}
	}

	drop := fakellm.New(t)
	drop.SetDefault(teacherAnswers)
	home = distillHomeOf(t, drop, "", repo)
	cfg := filepath.Join(home, "config.toml")
	text, _ := os.ReadFile(cfg)
	if !strings.Contains(string(text), "\n# secrets = \"redact\"\n") {
		t.Fatalf("config.toml has no secrets = \"redact\" to change:\n%s", text)
	}
	os.WriteFile(cfg, []byte(strings.Replace(string(text), "\n# secrets = \"redact\"\n", "\nsecrets = \"drop\"\n", 1)), 0o644) //nolint:errcheck
	var sum struct{ Skipped map[string]int }
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "distill", "--stage", "scope,plan,implement")), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Skipped["secret"] == 0 {
		t.Errorf("secrets = drop: nothing skipped for a credential: %v", sum.Skipped)
	}
	for _, req := range drop.Requests() {
		if strings.Contains(string(req.Body), "[REDACTED]") || leaks(string(req.Body)) {
			t.Fatal("secrets = drop: a request with a credential was sent")
		}
	}
}

// A real `cra distill` killed -9 three times with --jobs requests in
// flight (429s among them), against a teacher that bills even a request
// whose client died (the worst case of a real API), then run to its
// budget: the bound the README states holds. A kill makes the next run
// send again at most --jobs requests, those it cut off; no request that
// brought an answer is sent again; a 429 is answered again, never billed
// twice; every cut-off request stays in raw.distill_spend at its
// reservation, so cra's ledger is never below the provider's bill and
// --budget-usd caps that bill.
func TestDistillKilledThreeTimesRepeatsAtMostJobsPerKill(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers)
	home := distillHome(t, srv, "")
	srv.SetBilling(fakellm.Billing{InputPerMillion: 3, OutputPerMillion: 15, Tokens: func(s string) int { return (len(s) + 3) / 4 },
		ChargeCutOff: true})
	var dry struct {
		Totals struct {
			Estimate struct {
				Calls      int
				MaxCostUSD float64 `json:"max_cost_usd"`
			}
		}
	}
	if err := json.Unmarshal([]byte(cli.MustRun(t, home, "--json", "distill", "--dry-run")), &dry); err != nil {
		t.Fatal(err)
	}
	const jobs, kills, answered = 3, 3, 4
	srv.RateLimitEvery(5, "0")
	usd := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	args := []string{"--home", home, "distill", "--jobs", strconv.Itoa(jobs), "--budget-usd", usd(2 * dry.Totals.Estimate.MaxCostUSD)}
	for k := 1; k <= kills; k++ {
		srv.HoldAfter(srv.Answered() + answered)
		child := clitest.StartChild(t, args...)
		target := srv.Answered() + answered
		srv.WaitUntil(t, "the child's calls held", func() bool { return srv.Answered() >= target && srv.Held() == jobs }, time.Minute)
		kill9(t, child)
		srv.WaitUntil(t, "the held calls to see their client gone", func() bool { return srv.Held() == 0 }, time.Minute)
		srv.Release()
	}
	// The last run goes on until a budget stops it: what the kills left
	// spent, plus what two requests could cost (a call costs far less than
	// it reserves: about ten fit).
	spent, _ := strconv.ParseFloat(strings.Fields(cli.SQLRows(t, home, "select sum(coalesce(settled_usd, reserved_usd)) as spent from raw.distill_spend"))[1], 64)
	budget := usd(spent + 2*dry.Totals.Estimate.MaxCostUSD/float64(dry.Totals.Estimate.Calls))
	args[len(args)-1] = budget
	out := cli.MustRun(t, home, append([]string{"--json"}, args[2:]...)...)
	var sum struct {
		Totals   struct{ Calls, Verified, Rejected, Failed, Left int }
		SpentUSD float64 `json:"spent_usd"`
		Stopped  string
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	repeats, cutOff := 0, srv.CutOff()
	for _, n := range srv.Charges() {
		repeats += n - 1
	}
	received := 0
	for _, n := range srv.Received() {
		received += n
	}
	limited := srv.Calls() / 5
	t.Logf("%d requests (%d distinct), %d answered 429, %d cut off by %d kills, %d billed again; billed $%.6f, ledger $%.6f, budget $%s (%s)",
		received, len(srv.Received()), limited, cutOff, kills, repeats, srv.Spent(), sum.SpentUSD, budget, sum.Stopped)
	if cutOff == 0 || cutOff > kills*jobs {
		t.Errorf("%d requests cut off by %d kills: want some, at most --jobs (%d) per kill", cutOff, kills, jobs)
	}
	if repeats > cutOff {
		t.Errorf("%d requests billed again, more than the %d cut off by the kills", repeats, cutOff)
	}
	if received != len(srv.Received())+repeats+limited {
		t.Errorf("%d requests received for %d keys: want one each, plus the %d cut off and the %d answered 429",
			received, len(srv.Received()), repeats, limited)
	}
	if got := cli.SQLRows(t, home, "select count(*) from raw.distill_spend where settled_usd is null"); got != "count_star()\n"+strconv.Itoa(cutOff)+"\n" {
		t.Errorf("unsettled reservations %q: want the %d requests cut off, counted at their reservation", got, cutOff)
	}
	if sum.SpentUSD < srv.Spent()-1e-9 {
		t.Errorf("the ledger says $%.9f spent, the provider billed $%.9f", sum.SpentUSD, srv.Spent())
	}
	if b, _ := strconv.ParseFloat(budget, 64); srv.Spent() > b || sum.Stopped != "budget" {
		t.Errorf("the provider billed $%.9f with --budget-usd %s, the run stopped %q: want a run stopped by its budget, the bill within it",
			srv.Spent(), budget, sum.Stopped)
	}
}
