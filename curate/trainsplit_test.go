package curate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// trainSplitHome holds 20 tasks of /r0 and 4 of /r1.
func trainSplitHome(t *testing.T) string {
	f := newFixture(t)
	for i := range 24 {
		repo := "/r0"
		if i >= 20 {
			repo = "/r1"
		}
		f.addSimple(repo, fmt.Sprintf("c%02d", i), distinctText(i), fmt.Sprintf("mod%d.py", i),
			fmt.Sprintf("def run():\n    # variant %d %s\n    return 1\n", i, distinctText(i*13)))
	}
	f.close()
	return f.home
}

// TestCurateRefusesAnEmptyTrainSplit: a stage the selection names with no
// train example, or a dataset with none at all, is refused before any
// version is begun — the error says which stage, why (held-out
// repositories, the fraction, the plan's criteria) and what to change —
// and nothing is stored; --validation-only builds it on purpose; a stage
// under MinTrainShare in train is built with a warning.
func TestCurateRefusesAnEmptyTrainSplit(t *testing.T) {
	home := trainSplitHome(t)
	plan := `{"target_stage": "scope", "data_criteria": {"stages": ["scope"], "sources": ["synthetic"], "repos": [],
		"holdout_repos": ["/r0", "/r1"], "validation_fraction": 0.1}}`
	cases := map[string]struct {
		opts func(*Options)
		want []string // in the refusal; nil: built
		warn string   // in the warnings of a built dataset
	}{
		"a named stage, every repository held out": {
			opts: func(o *Options) { o.Stages, o.HoldoutRepos = []string{"scope"}, []string{"/r0", "/r1"} },
			want: []string{"no train example for scope (0 train, 24 validation: 24 from held-out repositories [/r0, /r1])",
				"hold fewer repositories out", "--validation-only", "No dataset written"}},
		"the plan's stage and hold-outs": {
			opts: func(o *Options) { o.TrainingPlan = []byte(plan) },
			want: []string{"no train example for scope", "The training plan's data_criteria chose stages [scope], repos [], holdout_repos [/r0, /r1]"}},
		"a fraction of 1 on a named stage": {
			opts: func(o *Options) { o.Stages, o.Curate.ValidationFraction = []string{"plan"}, 1 },
			want: []string{"no train example for plan (0 train, 24 validation: 24 drawn by validation_fraction 1)", "lower [curate] validation_fraction"}},
		"every stage by default, nothing in train": {
			opts: func(o *Options) { o.HoldoutRepos = []string{"/r0", "/r1"} },
			want: []string{"no train example for implement (24 validation", "plan (24 validation", "scope (24 validation"}},
		"--validation-only": {
			opts: func(o *Options) {
				o.Stages, o.HoldoutRepos, o.ValidationOnly = []string{"scope"}, []string{"/r0", "/r1"}, true
			}},
		"most of it held out: a warning": {
			opts: func(o *Options) { o.Stages, o.HoldoutRepos = []string{"scope"}, []string{"/r0"} },
			warn: "stage scope: 4 of 24 examples in train (17 %, under the 50 % curate-data warns at); in validation 20 from held-out repositories [/r0]"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dataset := strings.ReplaceAll(name, " ", "_")
			opts := testOptions(dataset)
			opts.Curate.ValidationFraction = 0
			tc.opts(&opts)
			sum, err := Curate(context.Background(), home, opts)
			stored := storetest.Rows(t, home, kb.Raw, `SELECT (SELECT count(*) FROM training_examples WHERE dataset = ?),
				(SELECT count(*) FROM training_examples_staging WHERE dataset = ?), (SELECT count(*) FROM dataset_versions WHERE name = ?)`,
				dataset, dataset, dataset)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if stored[0] == "0\t0\t0" {
					t.Errorf("built, but nothing stored")
				}
				if tc.warn == "" && len(sum.Warnings) != 0 || tc.warn != "" && (len(sum.Warnings) != 1 || sum.Warnings[0] != tc.warn) {
					t.Errorf("warnings %q; want %q", sum.Warnings, tc.warn)
				}
				return
			}
			if !usage.Is(err) {
				t.Fatalf("err %v: want a usage error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q lacks %q", err, w)
				}
			}
			if stored[0] != "0\t0\t0" {
				t.Errorf("a refused dataset stored examples, staged rows, versions: %s", stored[0])
			}
		})
	}
}

// TestPlanWidensTheSplit: a plan's held-out repositories join the ones
// configured (or given), and its validation fraction counts when larger:
// a plan can hold more out, never less.
func TestPlanWidensTheSplit(t *testing.T) {
	opts := testOptions("p")
	opts.HoldoutRepos = []string{"/r1"}
	opts.Curate.ValidationFraction = 0.1
	opts.TrainingPlan = []byte(`{"data_criteria": {"stages": ["scope"], "sources": ["synthetic"], "holdout_repos": ["/r0", "/r1"], "validation_fraction": 0.3}}`)
	if _, err := readPlan(&opts); err != nil {
		t.Fatal(err)
	}
	if strings.Join(opts.HoldoutRepos, ",") != "/r1,/r0" || opts.Curate.ValidationFraction != 0.3 {
		t.Errorf("holdout %v, fraction %g: want /r1 and /r0, 0.3", opts.HoldoutRepos, opts.Curate.ValidationFraction)
	}
	opts = testOptions("p")
	opts.Curate.ValidationFraction = 0.2
	opts.TrainingPlan = []byte(`{"data_criteria": {"stages": ["scope"], "sources": ["synthetic"], "holdout_repos": [], "validation_fraction": 0.1}}`)
	if _, err := readPlan(&opts); err != nil || opts.Curate.ValidationFraction != 0.2 || len(opts.HoldoutRepos) != 0 {
		t.Errorf("a smaller plan fraction: %g, holdout %v (%v); want the configured 0.2 and none", opts.Curate.ValidationFraction, opts.HoldoutRepos, err)
	}
	// No --holdout-repos: the configured list, held out since the plan was
	// written, stays, with the plan's joining it.
	opts = testOptions("p")
	opts.Curate.HoldoutRepos = []string{"/new"}
	opts.TrainingPlan = []byte(`{"data_criteria": {"stages": ["scope"], "sources": ["synthetic"], "holdout_repos": ["/r0"]}}`)
	if _, err := readPlan(&opts); err != nil || strings.Join(opts.HoldoutRepos, ",") != "/new,/r0" {
		t.Errorf("configured /new, plan /r0: holdout %v (%v); want both", opts.HoldoutRepos, err)
	}
	opts.TrainingPlan = []byte(`{"data_criteria": {"validation_fraction": 1.5}}`)
	if _, err := readPlan(&opts); !usage.Is(err) {
		t.Errorf("validation_fraction 1.5: %v, want a usage error", err)
	}
}
