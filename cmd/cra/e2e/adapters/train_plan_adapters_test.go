package adapters_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/analysis"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// After the gate passed sc@1 and it was promoted, train-plan lists the
// champion and the latest gate, leaves the gate's evals out unless they
// are named, and, named, pools for scope only the tasks sc@1 answered:
// the baseline's 4 tasks (scope by the base model, wrong on every one)
// are set aside, not pooled with the candidate's 4 (right on every one).
func TestTrainPlanKnowsAdapters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cra eval twice")
	}
	t.Parallel()
	srv := gateServer(t)
	repo := evaltest.CalcHistory(t)
	home := gateHome(t, srv, repo.Dir, t.TempDir())
	gateOracle(t, srv, home)
	cli.MustRun(t, home, "adapters", "eval", "sc")
	cli.MustRun(t, home, "adapters", "promote", "sc")

	trainPlan := func(args ...string) analysis.Result {
		t.Helper()
		r := cli.Cra(t, home, "", append([]string{"--json", "train-plan", "--no-llm"}, args...)...)
		var res analysis.Result
		if err := json.Unmarshal([]byte(r.Stdout), &res); r.Code != clitest.ExitOK || err != nil {
			t.Fatalf("train-plan %v: exit %d, %v\n%s\n%s", args, r.Code, err, r.Stdout, r.Stderr)
		}
		return res
	}
	if res := trainPlan(); res.Evidence != nil || !strings.Contains(res.Decision.Reason, "2 gate evals of `cra adapters eval` left out") {
		t.Errorf("the gate's evals were read without being named: %+v", res)
	}

	names := strings.Fields(strings.TrimPrefix(cli.SQLRows(t, home, "select name from raw.eval_runs order by id"), "name\n"))
	if len(names) != 2 || !strings.HasPrefix(names[0], kb.GateEvalPrefix+"sc-v1-base-") {
		t.Fatalf("eval runs %v: want the gate's two", names)
	}
	e := trainPlan("--eval", names[0], "--eval", names[1]).Evidence
	if e == nil || e.Adapters == nil {
		t.Fatalf("no adapters in the evidence: %+v", e)
	}
	a := e.Adapters
	if !containsRoute(a.Routes, analysis.StageRoute{Stage: schema.StageScope, Champion: "sc@1"}) ||
		!containsRoute(a.Routes, analysis.StageRoute{Stage: schema.StageImplement, Champion: kb.AnsweredBase}) {
		t.Errorf("routes %+v: want scope on sc@1, implement on the base model", a.Routes)
	}
	if len(a.Gates) != 1 || g0(a).Adapter != "sc@1" || !g0(a).Passed || g0(a).BaselineEval != names[0] || g0(a).CandidateEval != names[1] || g0(a).Date == "" {
		t.Errorf("gates %+v: want sc@1's, passed, with its two evals", a.Gates)
	}
	if want := []analysis.SetAside{{Stage: schema.StageScope, AnsweredBy: kb.AnsweredBase, Tasks: 4}}; !reflect.DeepEqual(a.SetAside, want) || a.EndToEndSetAside != 4 {
		t.Errorf("set aside %+v, %d end to end; want %+v, 4", a.SetAside, a.EndToEndSetAside, want)
	}
	if s := e.Stage(schema.StageScope); e.Observations != 4 || s == nil || s.Correct == nil || s.Correct.K != 4 || s.Correct.N != 4 {
		t.Errorf("%d observations, scope %+v: want the candidate's 4 tasks alone, scope right on all", e.Observations, s)
	}
}

func containsRoute(routes []analysis.StageRoute, r analysis.StageRoute) bool {
	for _, x := range routes {
		if x == r {
			return true
		}
	}
	return false
}

func g0(a *analysis.AdapterEvidence) analysis.GateVerdict { return a.Gates[0] }
