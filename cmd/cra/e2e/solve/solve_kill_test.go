package solve_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/storetest"
)

// resumableServer answers by what each prompt holds, never by call count,
// so a run killed and resumed meets the answers a clean run meets: s1
// passes at once; s2 fails its first attempt and passes its retry; the
// adjustment after s1 keeps s2.
func resumableServer(t *testing.T) *fakellm.Server {
	twoSteps := `{"part_id": "p1", "task_summary": "", "steps": [{"id": "s1", "description": "Make add return the sum", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}, {"id": "s2", "description": "Document double", "target_files": ["calc.py"], "target_symbols": [], "depends_on": []}], "rationale": ""}`
	keep := `{"revised_steps": [{"id": "s2", "keep": true}], "rationale": "on to s2", "changes_made": []}`
	doc := "<edit file=\"calc.py\">\n<search>\ndef double(x):\n</search>\n<replacement>\ndef double(x):\n    \"\"\"Twice x.\"\"\"\n</replacement>\n</edit>"
	breakAgain := "<edit file=\"calc.py\">\n<search>\n    return a + b\n</search>\n<replacement>\n    return a * b\n</replacement>\n</edit>"
	srv := fakellm.New(t)
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if evaltest.IsPing(req) {
			return fakellm.Reply{Text: "ok"}
		}
		system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
		switch {
		case strings.HasPrefix(system, "You read a coding task"):
			return fakellm.Reply{Text: `{"summary": "", "files": ["calc.py"], "symbols": ["add"], "keywords": []}`}
		case strings.HasPrefix(system, "You select the files"):
			return fakellm.Reply{Text: `{"relevant": ["calc.py"]}`}
		case strings.HasPrefix(system, "You decide how much"):
			return fakellm.Reply{Text: `{"symbols": {"calc.py:add": "primary"}}`}
		case strings.HasPrefix(system, "You split a large task"):
			return fakellm.Reply{Text: clitest.OnePart}
		case strings.HasPrefix(system, "You plan one part"):
			return fakellm.Reply{Text: twoSteps}
		case strings.HasPrefix(system, "You implement a code change"):
			switch {
			case strings.Contains(user, "Step s1 "):
				return fakellm.Reply{Text: clitest.FixAdd}
			case strings.Contains(user, "<previous_attempt_failed>"):
				return fakellm.Reply{Text: doc}
			}
			return fakellm.Reply{Text: breakAgain}
		case strings.HasPrefix(system, "You revise a plan"):
			if strings.Contains(user, "Completed steps:\n- s1: Make add return the sum\n- s2") {
				return fakellm.Reply{Text: `{"revised_steps": [], "rationale": "done", "changes_made": []}`}
			}
			return fakellm.Reply{Text: keep}
		}
		t.Errorf("unexpected system prompt %.60q", system)
		return fakellm.Reply{Status: 500}
	})
	return srv
}

// A cra solve process killed -9 at several points, then resumed with
// --resume, ends with the rows of a run never interrupted: no pass,
// attempt, call or decision twice, none missing.
func TestSolveKilledResumesToTheSameRows(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs cra solve several times")
	}
	srv := resumableServer(t)
	r := clitest.CalcRepo(t)
	// Index every home before any run adds branches to the repository.
	slow := "sleep 0.4; " + clitest.TestCalc
	homes := []string{cli.SolveHome(t, srv, r, "")}
	cfgPath := filepath.Join(homes[0], "config.toml")
	cfg, _ := os.ReadFile(cfgPath)
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), clitest.TestCalc, slow, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		homes = append(homes, clitest.CopyHome(t, homes[0]))
	}
	start := time.Now()
	if res := cli.Cra(t, homes[0], "", "solve", "--repo", r.Dir, "Fix add and document double"); res.Code != clitest.ExitOK {
		t.Fatalf("clean run: exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
	}
	took := time.Since(start)
	want := cli.SolveRows(t, homes[0])
	killed := 0
	for i, frac := range []float64{0.3, 0.55, 0.8} {
		home := homes[i+1]
		t.Run(fmt.Sprintf("at%.0f%%", frac*100), func(t *testing.T) {
			args := []string{"--home", home, "solve", "--repo", r.Dir, "Fix add and document double"}
			// The clock starts when the run has begun (its session is
			// written), not when the child starts: a loaded machine can
			// take longer to start a child than the clean run took, and a
			// child killed before it began has nothing to compare.
			began := func() bool { return sessionOf(home) != "" }
			if !storetest.KillWhen(t, []string{clitest.ChildEnv(args...)}, began, time.Duration(frac*float64(took))) {
				return // finished first (a loaded machine): nothing to resume; the other points count
			}
			killed++
			runID := sessionOf(home)
			if runID == "" { // killed after its last write: it was done
				if got := cli.SolveRows(t, home); got != want {
					t.Errorf("a run killed after it ended differs from a clean run's:\n%s", clitest.LineDiff(want, got))
				}
				return
			}
			t.Logf("killed after %d passes", strings.Count(cli.SQLRows(t, home, "select task_id from raw.task_runs where success is not null"), ":"))
			if res := cli.Cra(t, home, "", "solve", "--resume", runID); res.Code != clitest.ExitOK {
				t.Fatalf("resume: exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
			}
			if got := cli.SolveRows(t, home); got != want {
				t.Errorf("rows after the resume differ from a clean run's:\n%s", clitest.LineDiff(want, got))
			}
			if entries, _ := os.ReadDir(filepath.Join(home, "sessions")); len(entries) != 0 {
				t.Errorf("sessions left after the resume: %v", entries)
			}
		})
	}
	if killed == 0 {
		t.Error("no child was killed mid-run: the test proved nothing")
	}
}

// sessionOf is the task id of the run's session in home, "" when there is
// none.
func sessionOf(home string) string {
	entries, _ := os.ReadDir(filepath.Join(home, "sessions"))
	for _, e := range entries {
		// A session file, not the .json.tmp of a write the kill cut.
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !strings.Contains(name, ":") {
			return name
		}
	}
	return ""
}

// A cra solve killed -9 while its tests run leaves no test process: in
// bubblewrap the tree dies with it; unconfined, the processes that
// outlived it (one in the command's group, one that left it with setsid)
// are killed when --resume starts, and the resumed run finishes.
func TestKilledSolveLeavesNoTestProcess(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []string{"auto", "none"} {
		t.Run(sandbox, func(t *testing.T) {
			if sandbox == "auto" {
				needBubblewrap(t)
			}
			s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
			srv := s.Server(t)
			r := clitest.CalcRepo(t)
			once := filepath.Join(t.TempDir(), "slept")
			home := cli.SolveHome(t, srv, r, "sandbox = \""+sandbox+"\"\n")
			clitest.SetConfig(t, home, clitest.TestCalc, "test -e "+once+" || { touch "+once+"; setsid sleep 901 & sleep 902; }; "+clitest.TestCalc)
			var wt string
			running := func() bool { // both sleeps of the test run started
				ents, _ := os.ReadDir(filepath.Join(home, "worktrees"))
				for _, e := range ents {
					if dir := filepath.Join(home, "worktrees", e.Name()); len(orchestrator.Leftovers(dir)) >= 3 {
						wt = dir
						return true
					}
				}
				return false
			}
			args := []string{"--home", home, "solve", "--repo", r.Dir, "Fix add"}
			if !storetest.KillWhen(t, []string{clitest.ChildEnv(args...)}, running, 100*time.Millisecond) {
				t.Fatal("cra solve was not killed while its tests ran")
			}
			left := waitLeftovers(wt, 3*time.Second)
			if sandbox == "auto" {
				if len(left) > 0 {
					orchestrator.KillLeftovers(wt)
					t.Fatalf("test processes %v outlived a kill -9 of cra solve", left)
				}
				return
			}
			if len(left) < 2 {
				t.Fatalf("unconfined, the sleeps should outlive the kill (their sh dies with cra): %v", left)
			}
			res := cli.Cra(t, home, "", "solve", "--resume", filepath.Base(wt))
			if res.Code != clitest.ExitOK {
				t.Fatalf("resume: exit %d: %s\n%s", res.Code, res.Stderr, res.Stdout)
			}
			if left := waitLeftovers(wt, 3*time.Second); len(left) > 0 {
				orchestrator.KillLeftovers(wt)
				t.Fatalf("test processes %v of the killed run outlived the --resume", left)
			}
		})
	}
}

// waitLeftovers waits up to d for dir's test processes to be gone, and
// returns those left.
func waitLeftovers(dir string, d time.Duration) []int {
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if left := orchestrator.Leftovers(dir); len(left) == 0 || time.Now().After(deadline) {
			return left
		}
	}
}
