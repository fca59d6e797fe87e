package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/cra-dev/cra/agent/eval/evaltest"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
)

// lockedBuffer is a buffer a running command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// cra solve names its task on stderr before its first model call (after
// the preflight's ping of the models), so a run stopped before its summary
// can be resumed by the id it gave: here interrupted at its first call,
// then resumed, which says so. --json's stdout stays the outcome alone.
func TestSolveSaysItsTaskFirst(t *testing.T) {
	s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
	srv := fakellm.New(t)
	r := clitest.CalcRepo(t)
	home := craCLI.SolveHome(t, srv, r, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	var atFirstCall string // stderr when the first model call came
	var first sync.Once
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if evaltest.IsPing(req) { // the preflight's, before the run has an id
			return fakellm.Reply{Text: "ok"}
		}
		first.Do(func() { atFirstCall = stderr.String() })
		cancel()
		return fakellm.Reply{Status: 500}
	})
	var stdout bytes.Buffer
	code := Run(ctx, []string{"--home", home, "--json", "solve", "--repo", r.Dir, "Fix add"}, strings.NewReader(""), &stdout, &stderr)
	id, _, _ := strings.Cut(strings.TrimPrefix(atFirstCall, "cra solve: task "), " ")
	if want := "cra solve: task " + id + " (resume with: cra solve --resume " + id + ")\n"; id == "" || !strings.HasPrefix(atFirstCall, want) {
		t.Fatalf("stderr at the first model call %q, want %q first (exit %d, stderr %s)", atFirstCall, want, code, stderr.String())
	}
	// stdout is the outcome with the interruption (whose message says how
	// to resume), never the task line.
	if code != exitInterrupted || strings.Contains(stdout.String(), "cra solve: task") ||
		clitest.OneJSONObject(t, stdout.String())["exit_code"] != float64(exitInterrupted) {
		t.Errorf("exit %d, stdout %q: want an interrupted run, no task line on stdout", code, stdout.String())
	}
	s.Install(t, srv)
	res := cra(t, home, "", "--json", "solve", "--resume", id)
	if res.code != exitOK || !strings.HasPrefix(res.stderr, "cra solve: resuming task "+id+" (resume with: cra solve --resume "+id+")\n") {
		t.Fatalf("resume: exit %d, stderr %q", res.code, res.stderr)
	}
	var out struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.TaskID != id {
		t.Errorf("--json stdout %q: %v; want the outcome of %s alone", res.stdout, err, id)
	}
}
