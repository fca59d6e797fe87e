package curate

import (
	"context"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// distilledFixture adds to f a student's failed scope call and cra
// distill's verified teacher answer to its prompt, and an unverified one.
func distilledFixture(t *testing.T, f *fixture) {
	t.Helper()
	for _, q := range []string{
		`INSERT INTO retrieval_llm_calls (id, task_id, call_type, stage_name, model, system_prompt, prompt, response, latency_ms, timestamp)
			VALUES (900, 'solve-x:meta_plan', 'scope', 'scope', 'student', 'You select the files', 'Task:\nfix the parser', '{"relevant": ["b.py"]}', 5, now())`,
		`INSERT INTO distill_outcomes (name, item_id, source, stage, student_call_id, request_key, call_task_id, run_id, repo_path, split,
			verified, checked, reason, messages, created_at) VALUES
			('distilled', 'call:900', 'failed-runs', 'scope', 900, 'k1', 'distill-1:teacher', 1, '/repos/a', 'train', true, 'parse', 'parsed',
			 [{'role': 'system', 'content': 'You select the files'}, {'role': 'user', 'content': 'Task:\nfix the parser'},
			  {'role': 'assistant', 'content': '{"relevant": ["a.py"]}'}], now()),
			('distilled', 'call:901', 'failed-runs', 'scope', 901, 'k2', 'distill-1:teacher2', 1, '/repos/a', 'train', false, 'parse', 'no json',
			 NULL, now())`,
	} {
		if _, err := f.raw.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// Distilled data: a verified teacher answer is an SFT row, and with the
// student's failed call a teacher-vs-student pair on the student's prompt;
// an unverified one is neither.
func TestCurateDistilledAnswersAndTeacherStudentPairs(t *testing.T) {
	f := newFixture(t)
	distilledFixture(t, f)
	f.close()
	opts := testOptions("teach")
	opts.Sources, opts.Kinds = []string{SourceDistilled}, []string{kb.KindSFT, kb.KindPreference}
	sum := run(t, f.home, opts)
	if sum.Signals[SignalDistilled] != 1 || sum.Signals[SignalTeacherStudent] != 1 {
		t.Errorf("signals %v", sum.Signals)
	}
	got := storetest.Rows(t, f.home, kb.Raw, `SELECT kind, signal, source, label, len(messages), messages[2].content,
		coalesce(json_extract_string(chosen[1].content, '$.relevant[0]'), '-'), coalesce(json_extract_string(rejected[1].content, '$.relevant[0]'), '-'),
		coalesce(json_extract_string(messages[3].content, '$.relevant[0]'), '-'), coalesce(evidence->>'student_call_id', '-')
		FROM training_examples WHERE dataset = 'teach' ORDER BY kind`)
	want := []string{
		"preference\tteacher_student\tdistilled\tpair\t2\tTask:\\nfix the parser\ta.py\tb.py\t-\t900",
		"sft\tdistilled\tdistilled\tpositive\t3\tTask:\\nfix the parser\t-\t-\ta.py\t-",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A train example of a task an eval scored is refused with what to do,
// by any source, and both ways across a merged branch: an evaluated
// part's merge task and other parts, and an evaluated merge task's parts,
// are as held out as the evaluated task. In validation, dropped, or of an
// unrelated commit, it passes.
func TestCheckHeldOutRefusesAnEvalTaskInTrain(t *testing.T) {
	f := newFixture(t)
	// Two merged branches of /repos/a: m1 (a1, a2), whose part a1 an eval
	// scored, and m2 (b1, b2), whose merge task an eval scored.
	for _, c := range []struct{ commit, parents string }{
		{"fork", "[]"}, {"a1", "['fork']"}, {"a2", "['a1']"}, {"m1", "['fork', 'a2']"},
		{"b1", "['m1']"}, {"b2", "['b1']"}, {"m2", "['m1', 'b2']"}, {"c1", "['m2']"},
	} {
		if _, err := f.raw.DB.Exec(`INSERT INTO bootstrap_commits (run_id, repo_path, commit, parents, committed_at, files,
			insertions, deletions, outcome) VALUES (1, '/repos/a', ?, `+c.parents+`, now(), [], 0, 0, 'verified')`, c.commit); err != nil {
			t.Fatal(err)
		}
		if c.commit != "fork" {
			f.addSimple("/repos/a", c.commit, "fix the parser "+c.commit, "a.py", "return 1\n")
		}
	}
	if _, err := f.raw.DB.Exec(`UPDATE synthetic_tasks SET parent = 'fork' WHERE commit = 'm1';
		UPDATE synthetic_tasks SET parent = 'm1' WHERE commit = 'm2';
		INSERT INTO eval_runs (name, oracle, split, repos, stages, seed, models, started_at, status)
		VALUES ('nightly', [], 'all-held-out', [], ['scope'], 1, '{}', now(), 'complete');
		INSERT INTO eval_tasks (eval_run_id, task_id, repo_path, status, finished_at) VALUES
			(1, '/repos/a-a1', '/repos/a', 'scored', now()), (1, '/repos/a-m2', '/repos/a', 'scored', now())`); err != nil {
		t.Fatal(err)
	}
	conn, err := f.raw.DB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	defer conn.Close()
	rule, err := kb.NewSplitRule(config.Curate{}, nil).WithGroups(context.Background(), conn)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(commit, task, split, source, drop string) record {
		return record{task: task, repo: "/repos/a", commit: commit, stage: "scope", kind: kb.KindSFT, split: split, source: source, drop: drop}
	}
	for _, tt := range []struct {
		name   string
		rec    record
		refuse string // what the error names; "" for none
	}{
		{"a logged run of the evaluated task", rec("", "/repos/a-a1", kb.SplitTrain, SourceLogged, ""), "eval nightly"},
		{"the evaluated commit, synthetic", rec("a1", "/repos/a-a1", kb.SplitTrain, "", ""), "/repos/a@a1 (eval nightly)"},
		{"the evaluated commit, distilled", rec("a1", "", kb.SplitTrain, SourceDistilled, ""), "/repos/a@a1 (eval nightly)"},
		{"another part of the evaluated part's branch", rec("a2", "/repos/a-a2", kb.SplitTrain, "", ""), "/repos/a@a2 (merged branch of m1, a1 scored by eval nightly)"},
		{"the merge task of the evaluated part", rec("m1", "/repos/a-m1", kb.SplitTrain, "", ""), "/repos/a@m1 (merged branch of m1, a1 scored"},
		{"a part of the evaluated merge task", rec("b1", "/repos/a-b1", kb.SplitTrain, SourceDistilled, ""), "/repos/a@b1 (merged branch of m2, m2 scored"},
		{"the evaluated part, in validation", rec("a1", "/repos/a-a1", kb.SplitValidation, "", ""), ""},
		{"a part of the evaluated merge, in validation", rec("b2", "/repos/a-b2", kb.SplitValidation, "", ""), ""},
		{"the evaluated part, dropped", rec("a1", "/repos/a-a1", kb.SplitTrain, "", DropNearDup), ""},
		{"an unrelated commit", rec("c1", "/repos/a-c1", kb.SplitTrain, "", ""), ""},
		{"a logged run of no task", rec("", "", kb.SplitTrain, SourceLogged, ""), ""},
	} {
		err := checkHeldOut(context.Background(), conn, rule, []record{tt.rec})
		switch {
		case tt.refuse == "" && err != nil:
			t.Errorf("%s: %v, want no refusal", tt.name, err)
		case tt.refuse != "" && (!usage.Is(err) || !strings.Contains(err.Error(), tt.refuse)):
			t.Errorf("%s: %v, want a refusal naming %q", tt.name, err, tt.refuse)
		}
	}
}

// Balance keeps the positive fraction asked for per stage, cutting the
// surplus side by a fixed hash order.
func TestBalance(t *testing.T) {
	for _, tt := range []struct {
		pos, neg int
		fraction float64
		wantPos  int
		wantNeg  int
	}{
		{10, 2, 0.5, 2, 2},
		{2, 10, 0.5, 2, 2},
		{6, 2, 0.75, 6, 2},
		{9, 1, 0.8, 4, 1},
		{3, 3, 0, 3, 3},
		{5, 0, 0.5, 5, 0},
		{4, 3, 1, 4, 0},
	} {
		var recs []record
		for i := range tt.pos {
			recs = append(recs, record{id: exampleKey("b", "p"+itoa(int64(i))), stage: "implement", kind: kb.KindKTO, label: kb.LabelPositive})
		}
		for i := range tt.neg {
			recs = append(recs, record{id: exampleKey("b", "n"+itoa(int64(i))), stage: "implement", kind: kb.KindKTO, label: kb.LabelNegative})
		}
		recs = append(recs, record{id: exampleKey("b", "s"), stage: "implement", kind: kb.KindSFT, label: kb.LabelPositive})
		balance(recs, tt.fraction)
		pos, neg := 0, 0
		for _, r := range recs {
			switch {
			case r.drop != "":
			case r.kind == kb.KindSFT:
			case r.label == kb.LabelPositive:
				pos++
			default:
				neg++
			}
		}
		if pos != tt.wantPos || neg != tt.wantNeg || recs[len(recs)-1].drop != "" {
			t.Errorf("%d+/%d- at %g: kept %d+/%d-", tt.pos, tt.neg, tt.fraction, pos, neg)
		}
	}
}
