package solve_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
)

// jsonBombs are model answers that are JSON too deep for any parser to
// take, from a hostile or broken model: under the answer size limit (256
// KiB for max_tokens 4096), parsed and refused, and over it, refused
// unread.
func jsonBombs() map[string]string {
	return map[string]string{
		"arrays 100k deep":           strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000),
		"objects 30k deep":           strings.Repeat(`{"a":`, 30_000) + "1" + strings.Repeat("}", 30_000),
		"objects 100k deep, 500 KiB": strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000),
	}
}

// bombAt wraps srv's replies so that the calls whose system prompt
// starts with stage get bomb for an answer.
func bombAt(t *testing.T, srv *fakellm.Server, stage, bomb string, next func(fakellm.Request) fakellm.Reply) {
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if !evaltest.IsPing(req) && strings.HasPrefix(req.Messages[0].Content, stage) {
			return fakellm.Reply{Text: bomb}
		}
		return next(req)
	})
}

// A model answering a JSON bomb gets an unusable answer's exit: 1 with a
// message naming the stage, never "0 of 0 inputs failed" (a second ask
// that showed the whole bomb again failed for its size, and an answer
// refused unread stopped solve without a status), and --json prints an
// object with the error, never nothing or null.
func TestJSONBombAnswerIsUnusable(t *testing.T) {
	t.Parallel()
	for name, bomb := range jsonBombs() {
		t.Run("plan/"+name, func(t *testing.T) {
			srv := planServer(t, false)
			next := srv.Default()
			home := cli.ModelHome(t, srv.OllamaURL())
			r := clitest.SmallRepo(t)
			cli.MustRun(t, home, "index", r.Dir)
			bombAt(t, srv.Server, "You plan a code change", bomb, next)
			checkBombExit(t, cli.Cra(t, home, "", "--json", "plan", "--repo", r.Dir, "Make helper add two"))
		})
		t.Run("solve/"+name, func(t *testing.T) {
			checkBombExit(t, bombedSolve(t, "You split a large task", bomb))
		})
		t.Run("solve implement/"+name, func(t *testing.T) {
			res := bombedSolve(t, "You implement a code change", bomb)
			var out struct {
				Status string `json:"status"`
				Steps  []struct {
					Passed   bool `json:"passed"`
					Attempts int  `json:"attempts"`
				} `json:"steps"`
				Error    string `json:"error"`
				ExitCode int    `json:"exit_code"`
			}
			if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
				t.Fatalf("stdout is no JSON object (%v): %.300q", err, res.Stdout)
			}
			// The step failed, its answers unusable; the run went on to its end.
			if res.Code != clitest.ExitFailures || out.Status != "failed" || len(out.Steps) != 1 || out.Steps[0].Passed || out.Steps[0].Attempts != 2 ||
				out.Error != "1 of 1 inputs failed" || out.ExitCode != clitest.ExitFailures {
				t.Errorf("exit %d, %+v\nstderr: %s", res.Code, out, res.Stderr)
			}
		})
	}
}

// bombedSolve runs cra solve --json with bomb for the answer to the calls
// whose system prompt starts with stage.
func bombedSolve(t *testing.T, stage, bomb string) clitest.Result {
	t.Helper()
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
	srv := s.Server(t)
	srv.AllowUnused()
	next := srv.Default()
	r := clitest.CalcRepo(t)
	home := cli.SolveHome(t, srv, r, "")
	bombAt(t, srv, stage, bomb, next)
	return cli.Cra(t, home, "", "--json", "solve", "--repo", r.Dir, "Fix add: it must return the sum")
}

func checkBombExit(t *testing.T, res clitest.Result) {
	t.Helper()
	if res.Code != clitest.ExitFailures {
		t.Errorf("exit %d, want %d\nstderr: %s", res.Code, clitest.ExitFailures, res.Stderr)
	}
	if strings.Contains(res.Stderr, "0 of 0") {
		t.Errorf("stderr counts no input: %s", res.Stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || out == nil {
		t.Fatalf("stdout is no JSON object (%v): %.300q", err, res.Stdout)
	}
	if msg, _ := out["error"].(string); !strings.Contains(msg, "could not be used") || out["exit_code"] != float64(clitest.ExitFailures) {
		t.Errorf("the JSON says error %q, exit_code %v", msg, out["exit_code"])
	}
}
