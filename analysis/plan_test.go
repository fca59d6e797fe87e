package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/config"
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
