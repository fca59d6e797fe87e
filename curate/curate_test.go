package curate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/datasets"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/secrets"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// fixture writes synthetic tasks into a raw store with plain SQL, the way
// bootstrap leaves them.
type fixture struct {
	t    *testing.T
	home string
	raw  *kb.Store
}

func newFixture(t *testing.T) *fixture {
	home := storetest.Home(t)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, home: home, raw: raw}
}

func (f *fixture) close() { f.raw.Close() }

// add stores one task with targets for every stage.
func (f *fixture) add(repo, commit, text string, scope schema.ScopeTarget, prec schema.PrecisionTarget, plan schema.PlanArtifact, im schema.ImplementTarget) {
	f.t.Helper()
	id := fmt.Sprintf("%s-%s", repo, commit)
	if _, err := f.raw.DB.Exec(`INSERT INTO synthetic_tasks (id, run_id, repo_path, commit, parent, author, committed_at,
		message, task, files_changed, insertions, deletions, created_at)
		VALUES (?, 1, ?, ?, 'p', 'A <a@b>', now(), ?, ?, 1, 1, 1, now())`, id, repo, commit, text, text); err != nil {
		f.t.Fatal(err)
	}
	for stage, v := range map[string]any{schema.StageScope: scope, schema.StagePrecision: prec, schema.StagePlan: plan, schema.StageImplement: im} {
		js, _ := json.Marshal(v)
		if _, err := f.raw.DB.Exec(`INSERT INTO synthetic_targets (id, task_id, repo_path, commit, stage, target, created_at)
			VALUES (?, ?, ?, ?, ?, ?, now())`, id+"-"+stage, id, repo, commit, stage, string(js)); err != nil {
			f.t.Fatal(err)
		}
	}
}

// addSimple stores a task whose ground truth says what the text says.
func (f *fixture) addSimple(repo, commit, text, file, content string) {
	f.add(repo, commit, text,
		schema.ScopeTarget{Candidates: []schema.ScopeCandidate{
			{Path: file, Tier: 1, Rank: 1, Reason: "named in the message", Relevant: true, Symbols: []string{"run"}},
			{Path: "other.py", Tier: 2, Rank: 1, Reason: "imports " + file},
		}, Touched: []string{file}, Reached: true},
		schema.PrecisionTarget{Symbols: []schema.PrecisionSymbol{
			{File: file, Name: "run", QualifiedName: "run", Kind: "function", Signature: "def run():", Tier: schema.TierPrimary},
			{File: file, Name: "helper", QualifiedName: "helper", Kind: "function", Signature: "def helper():", Tier: schema.TierExcluded},
		}},
		schema.PlanArtifact{TaskSummary: text, AffectedFiles: []schema.PlanFile{{Path: file, Role: "modify", Changes: []schema.PlanChange{
			{Symbol: "run", Action: "modify", Description: "modify function run", DependsOn: []string{}, DependedBy: []string{}}}}},
			ExecutionOrder: []string{file}},
		schema.ImplementTarget{Files: []schema.ImplementFile{{Path: file, Content: content}},
			Edits: []schema.Edit{{File: file, Search: "return 1\n", Replace: "return 2\n"}}},
	)
}

func testOptions(name string) Options {
	cfg := config.Default()
	b, _ := llm.NewBudget(cfg)
	return Options{Name: name, Curate: cfg.Curate, Budget: b, Jobs: 2}
}

func run(t *testing.T, home string, opts Options) *Summary {
	t.Helper()
	sum, err := Curate(context.Background(), home, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// examples are the rows of version v of dataset, without the version.
func examples(t *testing.T, home, dataset string, v int) []string {
	return storetest.Rows(t, home, kb.Raw, `SELECT id, stage, split, repo_path, commit, target_id, to_json(messages)::VARCHAR,
		prompt_tokens, completion_tokens FROM training_examples WHERE dataset = ? AND version = ? ORDER BY id`, dataset, v)
}

// distinct tasks: different words throughout, so no filter merges them.
func distinctText(i int) string {
	words := []string{"parser", "cache", "router", "logger", "config", "client", "server", "queue", "index", "token", "schema", "buffer"}
	return fmt.Sprintf("Make the %s handle %s inputs when the %s is %s (case %d)", words[i%12], words[(i*5+1)%12], words[(i*7+3)%12], words[(i*11+5)%12], i)
}

func TestCurateSplitsByCommitAndIsDeterministic(t *testing.T) {
	f := newFixture(t)
	for i := range 60 {
		f.addSimple(fmt.Sprintf("/repo%d", i%3), fmt.Sprintf("c%02d", i), distinctText(i),
			fmt.Sprintf("mod%d.py", i), fmt.Sprintf("def run():\n    # variant %d %s\n    return 1\n", i, distinctText(i*13)))
	}
	f.close()
	opts := testOptions("ds")
	opts.Curate.ValidationFraction = 0.3
	opts.HoldoutRepos = []string{"/repo2"}
	sum := run(t, f.home, opts)
	if sum.Examples[schema.StageScope][kb.SplitTrain]+sum.Examples[schema.StageScope][kb.SplitValidation] != 60 {
		t.Fatalf("summary %+v: want 60 scope examples", sum)
	}
	splits := map[string]map[string]bool{} // repo/commit → splits
	for _, r := range storetest.Rows(t, f.home, kb.Raw, `SELECT repo_path, commit, split FROM training_examples WHERE dataset = 'ds'`) {
		p := strings.Split(r, "\t")
		k := p[0] + "/" + p[1]
		if splits[k] == nil {
			splits[k] = map[string]bool{}
		}
		splits[k][p[2]] = true
		if p[0] == "/repo2" && p[2] != kb.SplitValidation {
			t.Errorf("%s is in %s: a holdout repository goes to validation whole", k, p[2])
		}
	}
	train := 0
	for k, s := range splits {
		if len(s) != 1 {
			t.Errorf("commit %s has examples in %v: one commit, one split", k, s)
		}
		if s[kb.SplitTrain] {
			train++
		}
	}
	if train == 0 || train == len(splits) {
		t.Errorf("%d of %d commits in train: want both splits used", train, len(splits))
	}

	// A re-run with the same inputs adds version 2 with the same rows (ids
	// and splits) and leaves version 1 as it was.
	first := examples(t, f.home, "ds", 1)
	if sum := run(t, f.home, opts); sum.Version != 2 {
		t.Errorf("the re-run built version %d, want 2", sum.Version)
	}
	if again := examples(t, f.home, "ds", 2); !reflect.DeepEqual(again, first) {
		t.Errorf("a re-run with the same inputs gave other rows: %d rows, then %d", len(first), len(again))
	}
	if v1 := examples(t, f.home, "ds", 1); !reflect.DeepEqual(v1, first) {
		t.Errorf("the re-run changed version 1: %d rows, then %d", len(first), len(v1))
	}
	if n := storetest.Rows(t, f.home, kb.Raw, `SELECT version, count(*) FROM training_datasets WHERE name = 'ds' GROUP BY 1 ORDER BY 1`); !reflect.DeepEqual(n, []string{"1\t6", "2\t6"}) {
		t.Errorf("training_datasets rows per version after two runs: %v, want one per stage each", n)
	}
	if n := storetest.Rows(t, f.home, kb.Raw, `SELECT task_id FROM training_plans WHERE task_id LIKE 'curate:ds%' ORDER BY 1`); !reflect.DeepEqual(n, []string{"curate:ds@1", "curate:ds@2"}) {
		t.Errorf("training_plans rows after two runs: %v, want one per version", n)
	}
}

func TestCurateNearDuplicates(t *testing.T) {
	f := newFixture(t)
	var words []string
	for i := range 100 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	base := strings.Join(words, " ")
	near := strings.Replace(base, "w50", "changed", 1) // Jaccard of 5-grams about 0.9
	var other []string
	for i := range 33 {
		other = append(other, fmt.Sprintf("x%d", i))
	}
	half := strings.Join(append(words[:67:67], other...), " ") // about 0.5
	body := "def run():\n    return 1\n"
	f.addSimple("/r", "a1", base, "p.py", body)
	f.addSimple("/r", "a2", near, "p.py", body)
	f.addSimple("/r", "b1", "Teach the router to retry idempotent requests after a timeout", "r.py", body)
	f.addSimple("/r", "c1", half, "p.py", body)
	f.close()
	opts := testOptions("nd")
	opts.Stages = []string{schema.StageScope}
	sum := run(t, f.home, opts)
	if sum.Dropped[DropNearDup] != 1 {
		t.Errorf("dropped %v: want exactly one near duplicate", sum.Dropped)
	}
	got := storetest.Rows(t, f.home, kb.Raw, `SELECT commit FROM training_examples WHERE dataset = 'nd' ORDER BY commit`)
	if len(got) != 3 || got[1] != "b1" || got[2] != "c1" {
		t.Errorf("kept %v: want one of a1/a2, then b1 and c1 (half similar stays)", got)
	}
	// The threshold matters: at 0.3 (with bands that catch such pairs) the
	// half-similar task is a duplicate too.
	opts.Name, opts.Curate.NearDupThreshold, opts.Curate.MinHashBands, opts.Curate.MinHashRows = "nd3", 0.3, 64, 2
	if sum := run(t, f.home, opts); sum.Dropped[DropNearDup] != 2 {
		t.Errorf("threshold 0.3: dropped %v, want 2 near duplicates", sum.Dropped)
	}
}

func TestCurateSecrets(t *testing.T) {
	const key = "AKIAIOSFODNN7EXAMPLE"
	for _, mode := range []string{"redact", "drop"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t)
			f.addSimple("/r", "s1", "Read the storage credentials from the settings module", "settings.py",
				"AWS_KEY = \""+key+"\"\ndef run():\n    return 1\n")
			f.addSimple("/r", "s2", "Make the client retry on connection resets", "client.py", "def run():\n    return 1\n")
			f.close()
			opts := testOptions("sec")
			opts.Curate.Secrets = mode
			opts.Stages = []string{schema.StageImplement}
			sum := run(t, f.home, opts)
			rows := storetest.Rows(t, f.home, kb.Raw, `SELECT commit, to_json(messages)::VARCHAR FROM training_examples`)
			for _, r := range rows {
				if strings.Contains(r, key) {
					t.Fatalf("the key reached a stored example: %.200s", r)
				}
			}
			switch mode {
			case "redact":
				if len(rows) != 2 || sum.Redacted != 1 || !strings.Contains(strings.Join(rows, ""), secrets.Redaction) {
					t.Errorf("redact: %d rows, %d redacted", len(rows), sum.Redacted)
				}
				// Nor does it reach an exported file, in either format.
				raw, err := kb.Open(context.Background(), f.home, kb.Raw, kb.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer raw.Close()
				for _, format := range []string{datasets.FormatParquet, datasets.FormatJSONL} {
					out := filepath.Join(t.TempDir(), format)
					if _, err := datasets.Export(context.Background(), raw.DB, kb.DatasetRef{Name: "sec"}, datasets.ExportOptions{Format: format, Out: out}); err != nil {
						t.Fatal(err)
					}
					m, err := datasets.ReadManifest(out)
					if err != nil {
						t.Fatal(err)
					}
					for _, fe := range m.Files { // read back: Parquet pages are compressed
						if err := datasets.ReadFile(context.Background(), filepath.Join(out, fe.Path), format, func(e kb.TrainingExample) error {
							for _, msg := range e.Messages {
								if strings.Contains(msg.Content, key) {
									t.Errorf("%s: %s holds the key", format, fe.Path)
								}
							}
							return nil
						}); err != nil {
							t.Fatal(err)
						}
					}
				}
			case "drop":
				if len(rows) != 1 || sum.Dropped[DropSecret] != 1 {
					t.Errorf("drop: %d rows, dropped %v", len(rows), sum.Dropped)
				}
			}
		})
	}
}

func TestCurateBudget(t *testing.T) {
	f := newFixture(t)
	var cands []schema.ScopeCandidate
	cands = append(cands, schema.ScopeCandidate{Path: "main.py", Tier: 1, Rank: 1, Reason: "named", Relevant: true})
	for i := range 40 {
		cands = append(cands, schema.ScopeCandidate{Path: fmt.Sprintf("pkg/module_with_a_long_name_%02d.py", i), Tier: 3, Rank: i + 1,
			Reason: "changed with main.py in 3 earlier commits", Symbols: []string{"alpha", "beta", "gamma", "delta"}})
	}
	big := strings.Repeat("x = 1\n", 2000)
	f.add("/r", "b1", "Fix the main loop when the queue is empty", schema.ScopeTarget{Candidates: cands, Touched: []string{"main.py"}, Reached: true},
		schema.PrecisionTarget{}, schema.PlanArtifact{}, schema.ImplementTarget{Files: []schema.ImplementFile{{Path: "main.py", Content: big + "return 1\n"}},
			Edits: []schema.Edit{{File: "main.py", Search: "return 1\n", Replace: "return 2\n"}}})
	f.close()
	opts := testOptions("bud")
	opts.Stages = []string{schema.StageScope, schema.StageImplement}
	opts.Budget = llm.Budget{ContextWindow: 1000, SafetyMargin: 0.1}
	sum := run(t, f.home, opts)
	if sum.Trimmed != 1 || sum.Dropped[DropOverBudget] != 1 {
		t.Fatalf("summary %+v: want the scope example trimmed and the implement example over budget", sum)
	}
	rows := storetest.Rows(t, f.home, kb.Raw, `SELECT prompt_tokens + completion_tokens, to_json(messages)::VARCHAR FROM training_examples`)
	if len(rows) != 1 || !strings.Contains(rows[0], "main.py") || strings.Contains(rows[0], "module_with_a_long_name_39") {
		t.Errorf("trimmed example %.300s: want main.py kept and the last candidates gone", rows)
	}
	var tokens int
	fmt.Sscan(rows[0], &tokens)
	if tokens > 1000 {
		t.Errorf("trimmed example takes %d tokens, over the window of 1000", tokens)
	}
}

// Every stored completion parses back, with the stage's parser, to the
// ground truth it was rendered from.
func TestCurateCompletionsParseBack(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		f.addSimple("/r", fmt.Sprintf("c%d", i), distinctText(i), fmt.Sprintf("m%d.py", i), "def run():\n    return 1\n")
	}
	f.close()
	run(t, f.home, testOptions("pb"))
	rows := storetest.Rows(t, f.home, kb.Raw, `SELECT e.stage, s.target::VARCHAR, messages[3].content
		FROM training_examples e JOIN synthetic_targets s ON s.id = e.target_id ORDER BY e.id`)
	if len(rows) != 20 {
		t.Fatalf("%d examples, want 20", len(rows))
	}
	for _, r := range rows {
		stage, rest, _ := strings.Cut(r, "\t")
		target, completion, _ := strings.Cut(rest, "\t")
		if err := matchesTruth(stage, target, completion); err != nil {
			t.Errorf("%s: %v\ncompletion:\n%s", stage, err, completion)
		}
	}
}

func matchesTruth(stage, target, completion string) error {
	switch stage {
	case schema.StageScope:
		var s schema.ScopeTarget
		json.Unmarshal([]byte(target), &s) //nolint:errcheck // compared below
		got, err := prompt.ParseScope(completion)
		want := []string{}
		for _, c := range s.Candidates {
			if c.Relevant {
				want = append(want, c.Path)
			}
		}
		if err != nil || !reflect.DeepEqual(got.Relevant, want) {
			return fmt.Errorf("parsed %v (%v), want %v", got.Relevant, err, want)
		}
	case schema.StagePrecision:
		var p schema.PrecisionTarget
		json.Unmarshal([]byte(target), &p) //nolint:errcheck
		got, err := prompt.ParsePrecision(completion)
		want := map[string]string{}
		for _, s := range p.Symbols {
			if s.Tier != schema.TierExcluded {
				want[s.File+":"+s.QualifiedName] = s.Tier
			}
		}
		if err != nil || !reflect.DeepEqual(got.Symbols, want) {
			return fmt.Errorf("parsed %v (%v), want %v", got.Symbols, err, want)
		}
	case schema.StagePlan:
		var p schema.PlanArtifact
		json.Unmarshal([]byte(target), &p) //nolint:errcheck
		got, err := prompt.ParsePlan(completion)
		if err != nil || prompt.RenderPlan(got) != prompt.RenderPlan(p) {
			return fmt.Errorf("parsed %+v (%v)", got, err)
		}
	case schema.StageImplement:
		var im schema.ImplementTarget
		json.Unmarshal([]byte(target), &im) //nolint:errcheck
		got, err := prompt.ParseEdits(completion)
		want := im.Edits
		if err != nil || !reflect.DeepEqual(got, want) {
			return fmt.Errorf("parsed %q (%v), want %q", got, err, want)
		}
	}
	return nil
}

func TestCuratePerRepoCapAndTrainingPlan(t *testing.T) {
	f := newFixture(t)
	for i := range 12 {
		repo := "/big"
		if i >= 9 {
			repo = "/small"
		}
		f.addSimple(repo, fmt.Sprintf("c%02d", i), distinctText(i), fmt.Sprintf("m%d.py", i), fmt.Sprintf("def run():\n    return %d\n", i))
	}
	f.close()
	opts := testOptions("cap")
	opts.Stages = []string{schema.StagePlan}
	opts.Curate.PerRepoCap = 4
	opts.TrainingPlan = []byte(`{"target_stage": "plan", "base_model": "reasoning"}`)
	sum := run(t, f.home, opts)
	if sum.Dropped[DropPerRepoCap] != 5 {
		t.Errorf("dropped %v: want 5 of /big's 9 over the cap of 4", sum.Dropped)
	}
	got := storetest.Rows(t, f.home, kb.Raw, `SELECT repo_path, count(*) FROM training_examples WHERE dataset = 'cap' GROUP BY 1 ORDER BY 1`)
	if !reflect.DeepEqual(got, []string{"/big\t4", "/small\t3"}) {
		t.Errorf("examples per repository %v: want /big capped at 4 and /small whole", got)
	}
	plan := storetest.Rows(t, f.home, kb.Raw, `SELECT raw_plan FROM training_plans WHERE task_id = 'curate:cap@1'`)
	if len(plan) != 1 || !strings.Contains(plan[0], `"target_stage": "plan"`) {
		t.Errorf("training plan recorded as %v: want the file's text", plan)
	}
}

// normalHash hashes what normalise leaves: whitespace runs are one space,
// the parts stay apart.
func TestNormalHash(t *testing.T) {
	same := [][2][]string{
		{{"a  b\n c", "d"}, {"a b c", "d"}},
		{{"  a b ", ""}, {"a b", ""}},
	}
	for _, tt := range same {
		if normalHash(tt[0]...) != normalHash(tt[1]...) {
			t.Errorf("%q and %q hash apart", tt[0], tt[1])
		}
	}
	differ := [][2][]string{
		{{"a", "b"}, {"a b", ""}},
		{{"ab"}, {"a b"}},
		{{"a", "b"}, {"b", "a"}},
	}
	for _, tt := range differ {
		if normalHash(tt[0]...) == normalHash(tt[1]...) {
			t.Errorf("%q and %q hash alike", tt[0], tt[1])
		}
	}
}
