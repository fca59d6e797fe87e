package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/kb"
)

// runChild runs cmd to its end and returns what it printed and its exit code.
func runChild(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	r := clitest.RunChild(t, cmd)
	return result{r.Code, r.Stdout, r.Stderr}
}

// While a real cra bootstrap writes (indexing into curated.duckdb, then
// mining into raw.duckdb in bursts), cra sql, cra status and cra
// train-plan (the adapter champions, the registry and the run logs) run
// again and again in processes of their own, three at a time: with the
// default --wait
// each waits for the writer's next idle moment and succeeds, and the
// bootstrap, whose bursts wait for the readers in turn, finishes.
func TestReadersWaitForABootstrapWriting(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a bootstrap with readers beside it")
	}
	home := newHome(t)
	readers := [][]string{
		{"--home", home, "sql", "--format", "csv", "select count(*) as tasks from raw.synthetic_tasks"},
		{"--home", home, "status"},
		{"--home", home, "train-plan", "--no-llm"}, // the champions, the registry and the logs, read
	}
	// 200 commits: the bootstrap runs long enough for dozens of reads,
	// several of them waiting, where the test needs each command once and
	// one wait (with 400 the readers' processes cost most of the test's
	// CPU; on a loaded machine a read can take seconds).
	reads, waited := besideABootstrap(t, home, 200, readers, func(args []string, res result) bool {
		switch args[2] {
		case "sql":
			return strings.HasPrefix(res.stdout, "tasks\n")
		case "train-plan":
			return strings.Contains(res.stdout, "cra eval")
		default:
			return strings.Contains(res.stdout, "raw.duckdb")
		}
	})
	if reads < len(readers) || waited == 0 {
		t.Errorf("%d reads while the bootstrap ran, %d of them waited: the test proved nothing", reads, waited)
	}
}

// besideABootstrap runs a real `cra bootstrap` of a generated repository
// of the given number of commits, with merged branches, into home and,
// until it ends, each of commands again and again in a child process of
// its own. A command that exits other than 0 or whose result ok refuses
// is an error of t. It returns how many commands started while the
// bootstrap ran (each overlapped it, wherever it ended), and how many of
// them said they were waiting; the bootstrap must succeed, mine tasks and
// make a merged branch a task.
func besideABootstrap(t *testing.T, home string, commits int, commands [][]string, ok func(args []string, res result) bool) (runs, waited int) {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	// Merged branches: the run ends in its merge phase, which holds the
	// raw store (reads the branches' targets, writes the merge tasks)
	// while the commands go on.
	gittest.Synthetic{Files: 30, Commits: commits, Funcs: 4, Realistic: true, MergedBranches: true}.Build(t, repo)
	boot := clitest.Child("--home", home, "bootstrap", "--jobs", "1", repo)
	var bootOut, bootErr bytes.Buffer
	boot.Stdout, boot.Stderr = &bootOut, &bootErr
	start := time.Now()
	if err := boot.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- boot.Wait() }()
	var (
		mu               sync.Mutex
		longest          time.Duration
		failed           []string
		bootstrapRunning = true
	)
	var wg sync.WaitGroup
	for _, args := range commands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// A command started while the bootstrap runs overlaps it,
				// however long it then takes on a loaded machine.
				mu.Lock()
				during := bootstrapRunning
				mu.Unlock()
				if !during {
					return
				}
				began := time.Now()
				res := runChild(t, clitest.Child(args...))
				took := time.Since(began)
				mu.Lock()
				runs++
				longest = max(longest, took)
				if strings.Contains(res.stderr, "waiting") {
					waited++
				}
				if res.code != exitOK || !ok(args, res) {
					failed = append(failed, fmt.Sprintf("cra %s after %v: exit %d: %s%s", strings.Join(args[2:], " "), took.Round(time.Millisecond), res.code, res.stdout, res.stderr))
				}
				mu.Unlock()
			}
		}()
	}
	bootErrExit := <-done
	took := time.Since(start)
	mu.Lock()
	bootstrapRunning = false
	mu.Unlock()
	wg.Wait()
	t.Logf("bootstrap took %v; %d commands started while it ran, %d of them waited for a writer, the longest took %v; %d failed",
		took.Round(time.Millisecond), runs, waited, longest.Round(time.Millisecond), len(failed))
	if bootErrExit != nil {
		t.Fatalf("bootstrap beside the commands: %v\n%s%s", bootErrExit, bootOut.String(), bootErr.String())
	}
	for _, f := range failed {
		t.Error(f)
	}
	if got := sqlRows(t, home, "select count(*) > 0 as mined from raw.synthetic_tasks"); got != "mined\ntrue\n" {
		t.Errorf("the bootstrap mined nothing: %q", got)
	}
	if got := sqlRows(t, home, "select count(*) > 0 as merge_tasks from raw.bootstrap_merges where outcome = 'task'"); got != "merge_tasks\ntrue\n" {
		t.Errorf("the bootstrap made no merged branch a task: its merge phase wrote nothing: %q", got)
	}
	return runs, waited
}

// A reader facing a store a writer holds: with --wait 0 it fails at once
// naming the holder (exit 2); with a short wait it says once that it waits
// and for whom, then fails the same way; with a wait long enough it runs
// once the writer lets go. cra sql --write waits the same way.
func TestReadersWaitForAHeldStore(t *testing.T) {
	t.Parallel()
	home := newHome(t)
	hold := func(kind kb.Kind) *kb.Store {
		s, err := kb.Open(context.Background(), home, kind, kb.Options{Write: true, Command: "cra test-writer"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	holder := fmt.Sprintf("pid %d, cra test-writer", os.Getpid())
	for _, kind := range kb.Kinds {
		t.Run(string(kind), func(t *testing.T) {
			s := hold(kind)
			defer s.Close()
			for _, args := range [][]string{
				{"sql", "--wait", "0", "select 1"},
				{"status", "--wait", "0"},
				{"sql", "--write", "--wait", "0", "select 1"},
			} {
				began := time.Now()
				res := runChild(t, clitest.Child(append([]string{"--home", home}, args...)...))
				took := time.Since(began)
				if res.code != exitUsage || !strings.Contains(res.stderr, holder) || !strings.Contains(res.stderr, kind.File()) ||
					strings.Contains(res.stderr, "waiting") || took > 5*time.Second {
					t.Errorf("%v against a held %s: exit %d after %v, stderr %q; want exit 2 at once naming %q",
						args, kind.File(), res.code, took.Round(time.Millisecond), res.stderr, holder)
				}
			}
			began := time.Now()
			res := runChild(t, clitest.Child("--home", home, "status", "--wait", "700ms"))
			took := time.Since(began)
			if res.code != exitUsage || took < 700*time.Millisecond || strings.Count(res.stderr, "waiting") != 1 ||
				strings.Count(res.stderr, holder) != 2 {
				t.Errorf("status --wait 700ms against a held %s: exit %d after %v, stderr %q; want exit 2 after the wait, having said once whom it waits for",
					kind.File(), res.code, took.Round(time.Millisecond), res.stderr)
			}
		})
	}
	for _, args := range [][]string{
		{"sql", "select count(*) as n from raw.task_runs"},
		{"status"},
		{"sql", "--write", `INSERT INTO raw.task_runs (task_id, repo_path, mode, execute_model, context_window, reserved_tokens, stages, timestamp)
			VALUES ('w', '/r', 'plan', 'm', 32768, 8192, [], now())`},
	} {
		s := hold(kb.Raw)
		time.AfterFunc(800*time.Millisecond, func() { s.Close() })
		began := time.Now()
		res := runChild(t, clitest.Child(append([]string{"--home", home}, args...)...))
		took := time.Since(began)
		if res.code != exitOK || took < 800*time.Millisecond || strings.Count(res.stderr, "waiting") != 1 || !strings.Contains(res.stderr, holder) {
			t.Errorf("%v with the default wait: exit %d after %v, stderr %q; want exit 0 once the writer let go, having said whom it waited for",
				args, res.code, took.Round(time.Millisecond), res.stderr)
		}
	}
	if got := sqlRows(t, home, "select count(*) as n from raw.task_runs where task_id = 'w'"); got != "n\n1\n" {
		t.Errorf("cra sql --write after its wait: %q", got)
	}
	if res := cra(t, home, "", "sql", "--wait", "-1s", "select 1"); res.code != exitUsage {
		t.Errorf("--wait -1s: exit %d, want 2", res.code)
	}
}

// cra sql holds the stores only while its SQL runs: a reader of its
// output that does not keep up (a pager, a full pipe) keeps no writer
// waiting.
func TestSQLLetsGoOfTheStoresBeforeItsOutput(t *testing.T) {
	t.Parallel()
	home := newHome(t)
	cmd := clitest.Child("--home", home, "sql", "--format", "csv", "select range as n from range(200000)")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 2)
	if _, err := io.ReadFull(stdout, first); err != nil || string(first) != "n\n" {
		t.Fatalf("the output began with %q (%v)", first, err)
	}
	time.Sleep(300 * time.Millisecond) // the rest fills the pipe: the process blocks writing
	s, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true, Command: "cra test-writer"})
	if err != nil {
		t.Errorf("a writer while cra sql waits for its output to be read: %v", err)
	} else {
		s.Close()
	}
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil || strings.Count(string(rest), "\n") != 200000 {
		t.Errorf("cra sql: %v, %d lines after the header; want 200000", err, strings.Count(string(rest), "\n"))
	}
}
