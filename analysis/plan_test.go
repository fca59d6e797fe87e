package analysis

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// commitIn finds a commit of repo on the given side of the validation
// fraction, so that a case does not depend on one hash's value.
func commitIn(t *testing.T, repo string, fraction float64, validation bool) string {
	t.Helper()
	for i := range 10000 {
		c := fmt.Sprintf("c%04d", i)
		if (kb.UnitHash(repo, c) < fraction) == validation {
			return c
		}
	}
	t.Fatalf("no commit of %s on that side of %g", repo, fraction)
	return ""
}

// TestPlanSplit: a plan holds out what the configuration holds out — eval
// tasks are in validation by that rule already, never every evaluated
// repository — and widens it only for an evaluated task the configured
// rule would put in train: the fraction for a --split validation eval,
// the repository for a holdout or all-held-out one.
func TestPlanSplit(t *testing.T) {
	inVal := commitIn(t, "/a", 0.1, true)
	inTrain := commitIn(t, "/a", 0.1, false)
	cases := map[string]struct {
		holdout   []string
		evaluated []kb.EvaluatedTask
		fraction  float64 // 0: the configured 0.1
		repos     []string
		note      bool
	}{
		"nothing evaluated: the configuration": {holdout: []string{"/h"}, repos: []string{"/h"}},
		"evaluated tasks in validation: no repository held out": {
			evaluated: []kb.EvaluatedTask{{Repo: "/a", Commit: inVal, Split: "all-held-out"}, {Repo: "/a", Commit: inVal, Split: "validation"}},
			repos:     []string{}},
		"a held-out repository's tasks: held out by the configuration already": {
			holdout:   []string{"/a"},
			evaluated: []kb.EvaluatedTask{{Repo: "/a", Commit: inTrain, Split: "holdout"}},
			repos:     []string{"/a"}},
		"--split holdout on a repository no longer configured: held out whole": {
			evaluated: []kb.EvaluatedTask{{Repo: "/a", Commit: inTrain, Split: "holdout"}},
			repos:     []string{"/a"}, note: true},
		"all-held-out on a repository no longer configured: held out whole": {
			holdout:   []string{"/z"},
			evaluated: []kb.EvaluatedTask{{Repo: "/a", Commit: inTrain, Split: "all-held-out"}},
			repos:     []string{"/a", "/z"}, note: true},
		"--split validation from a larger fraction: the fraction raised past the task": {
			evaluated: []kb.EvaluatedTask{{Repo: "/a", Commit: inTrain, Split: "validation"}},
			fraction:  -1, repos: []string{}, note: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := planSplit(kb.NewSplitRule(config.Curate{ValidationFraction: 0.1, HoldoutRepos: tc.holdout}, nil), tc.evaluated)
			if !reflect.DeepEqual(p.HoldoutRepos, tc.repos) || (p.Note != "") != tc.note {
				t.Errorf("holdout %q, note %q; want %q, a note: %v", p.HoldoutRepos, p.Note, tc.repos, tc.note)
			}
			switch {
			case tc.fraction == 0 && p.ValidationFraction != 0.1:
				t.Errorf("fraction %g, want the configured 0.1", p.ValidationFraction)
			case tc.fraction < 0 && !(p.ValidationFraction > kb.UnitHash("/a", inTrain) && p.ValidationFraction <= kb.UnitHash("/a", inTrain)+1e-4):
				t.Errorf("fraction %g: want just above the task's hash %g", p.ValidationFraction, kb.UnitHash("/a", inTrain))
			}
			for _, e := range tc.evaluated {
				if p.Rule.Split(e.Repo, e.Commit) != kb.SplitValidation {
					t.Errorf("evaluated task %+v trains under the plan's split", e)
				}
			}
		})
	}
}

// A merged branch's part that an eval ran is kept out of train by its
// group: the fraction is raised past the merge commit's hash, which the
// part's examples are split by, not past the part's own.
func TestPlanSplitRaisesPastTheGroup(t *testing.T) {
	ctx := context.Background()
	home := storetest.Home(t)
	// A part whose own hash is below its merge's, so a fraction raised
	// past the part's alone leaves the group in train.
	part, merge := "", ""
	for i := 0; part == ""; i++ {
		p, m := fmt.Sprintf("p%d", i), fmt.Sprintf("m%d", i)
		if kb.UnitHash("/r", p)+0.05 < kb.UnitHash("/r", m) && kb.UnitHash("/r", m) < 0.95 {
			part, merge = p, m
		}
	}
	err := kb.WithWriter(ctx, home, kb.Raw, kb.Options{}, func(w kb.Writer) error {
		for _, c := range [][2]string{{"fork", "[]"}, {part, "['fork']"}, {"main", "['fork']"}, {merge, "['main', '" + part + "']"}} {
			if _, err := w.Conn.ExecContext(ctx, `INSERT INTO bootstrap_commits (run_id, repo_path, commit, parents, committed_at, files,
				insertions, deletions, outcome) VALUES (1, '/r', ?, `+c[1]+`, now(), [], 0, 0, 'verified')`, c[0]); err != nil {
				return err
			}
		}
		_, err := w.Conn.ExecContext(ctx, `INSERT INTO synthetic_tasks (id, run_id, repo_path, commit, parent, author, committed_at,
			message, task, files_changed, insertions, deletions, created_at) VALUES ('t', 1, '/r', ?, 'fork', 'a', now(), 'm', 'm', 1, 1, 1, now())`, merge)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := kb.Open(ctx, home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	configured, err := kb.NewSplitRule(config.Curate{ValidationFraction: kb.UnitHash("/r", part) / 2}, nil).WithGroups(ctx, s.DB)
	if err != nil {
		t.Fatal(err)
	}
	p := planSplit(configured, []kb.EvaluatedTask{{Repo: "/r", Commit: part, Split: "validation"}})
	if p.Rule.Split("/r", part) != kb.SplitValidation || p.Rule.Split("/r", merge) != kb.SplitValidation ||
		p.ValidationFraction <= kb.UnitHash("/r", merge) || p.Note == "" {
		t.Errorf("plan split %+v: want the part and its merge in validation, the fraction past the merge's hash %g, a note",
			p, kb.UnitHash("/r", merge))
	}
}

// TestPlanIsSizedForTrain: hyperparameters.examples is what the chosen
// sources hold in train, not train and validation; steps follow it; and a
// source is chosen by what it holds in train.
func TestPlanIsSizedForTrain(t *testing.T) {
	e := &Evidence{Stages: []StageEvidence{{Stage: "scope"}}, WrongOutputs: map[string]int{}}
	d := Decision{Status: StatusPlan, Target: "scope"}
	split := PlanSplit{ValidationFraction: 0.1, HoldoutRepos: []string{"/h"}}
	data := map[string]kb.StageData{"scope": {Synthetic: 961, SyntheticTrain: 218, Logged: 80, LoggedPositive: 60, LoggedPositiveTrain: 40, LoggedTrain: 55}}
	p := BuildPlan(e, d, data, split, nil)
	if ds := p.DataSource; !reflect.DeepEqual(ds.Chosen, []string{"synthetic"}) || ds.Examples != 961 || ds.TrainExamples != 218 {
		t.Errorf("data source %+v: want synthetic only (logged has 40 < %d in train), 961 examples, 218 in train", ds, MinSourceExamples)
	}
	if h := p.Hyperparameters; h.Examples != 218 || h.Steps != 14*3 || h.Epochs != 3 {
		t.Errorf("hyperparameters %+v: want 218 examples, 3 epochs of 14 batches of 16", h)
	}
	if c := p.DataCriteria; !reflect.DeepEqual(c.HoldoutRepos, []string{"/h"}) || c.ValidationFraction != 0.1 {
		t.Errorf("criteria %+v: want the plan's split", c)
	}

	// Everything in validation: nothing to train on, and the note says so.
	data["scope"] = kb.StageData{Synthetic: 961}
	p = BuildPlan(e, d, data, split, nil)
	if ds := p.DataSource; ds.TrainExamples != 0 || p.Hyperparameters.Examples != 0 || p.Hyperparameters.Steps != 0 ||
		!strings.Contains(ds.Note, "every example of this stage in validation") {
		t.Errorf("data source %+v, hyperparameters %+v: want 0 train examples, 0 steps and a note", ds, p.Hyperparameters)
	}
}
