package orchestrator

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

// testBox is the box cfg asks for, with this process's environment.
func testBox(t *testing.T, cfg config.Testing) Box {
	t.Helper()
	b, err := NewBox(cfg, os.Environ(), "")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bwrapBox is a bubblewrap box, or the test is skipped saying why.
func bwrapBox(t *testing.T) Box {
	t.Helper()
	if _, err := bwrapUsable(); err != nil {
		t.Skipf("bubblewrap cannot run here (%v): install the Debian package bubblewrap (CI does)", err)
	}
	return testBox(t, config.Testing{Sandbox: config.SandboxBwrap})
}

func TestNewBoxModes(t *testing.T) {
	none := testBox(t, config.Testing{Sandbox: config.SandboxNone})
	if none.bwrap != "" || !strings.Contains(none.Warning, `sandbox = "none"`) {
		t.Errorf("none: bwrap %q, warning %q", none.bwrap, none.Warning)
	}
	t.Setenv("PATH", t.TempDir()) // no bwrap on it
	auto := testBox(t, config.Testing{Sandbox: config.SandboxAuto})
	if auto.bwrap != "" || !strings.Contains(auto.Warning, "bwrap is not installed") || !strings.Contains(auto.Warning, "install bubblewrap") {
		t.Errorf("auto without bwrap: bwrap %q, warning %q", auto.bwrap, auto.Warning)
	}
	var cfgErr *config.Error
	if _, err := NewBox(config.Testing{Sandbox: config.SandboxBwrap}, nil, ""); !errors.As(err, &cfgErr) || cfgErr.Key != "testing.sandbox" {
		t.Errorf("bwrap without bwrap: %v, want a config error on testing.sandbox", err)
	}
}

// In bubblewrap a test writes its worktree and a private /tmp, nothing
// else, and has no network.
func TestBoxConfinesATest(t *testing.T) {
	t.Parallel()
	box := bwrapBox(t)
	if box.Warning != "" {
		t.Errorf("a confined box warns: %q", box.Warning)
	}
	wt, outside := t.TempDir(), t.TempDir()
	escaped := filepath.Join(outside, "escaped_by_test.txt")
	for _, tc := range []struct {
		name, command string
		pass          bool
	}{
		{"worktree", "echo ok > in_worktree.txt", true},
		{"private tmp", `echo ok > "$TMPDIR/t.txt" && echo ok > /tmp/t2.txt`, true},
		{"outside the worktree", "echo leaked > " + escaped, false},
		{"home", `echo leaked > "$HOME/.cra-box-test"`, false},
		{"network", `grep -v -E '^ *(lo:|Inter-|face)' /proc/net/dev | grep -q .`, false},
	} {
		r := RunShell(context.Background(), box, wt, KindTest, tc.command, time.Minute)
		if r.Passed != tc.pass {
			t.Errorf("%s: passed %v, want %v: %s", tc.name, r.Passed, tc.pass, r.Output)
		}
	}
	if _, err := os.Stat(escaped); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a test wrote %s outside its worktree (%v)", escaped, err)
	}
	if home, _ := os.UserHomeDir(); home != "" {
		if _, err := os.Stat(filepath.Join(home, ".cra-box-test")); err == nil {
			os.Remove(filepath.Join(home, ".cra-box-test"))
			t.Error("a test wrote into HOME")
		}
	}
	if _, err := os.Stat(filepath.Join(wt, "in_worktree.txt")); err != nil {
		t.Errorf("the worktree write did not land: %v", err)
	}
}

// No process a test starts outlives its run, in either mode: not one that
// left the process group with setsid, nor a double-forked daemon.
func TestNoTestProcessOutlivesItsRun(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{config.SandboxNone, config.SandboxBwrap} {
		t.Run(mode, func(t *testing.T) {
			box := testBox(t, config.Testing{Sandbox: mode})
			if mode == config.SandboxBwrap {
				box = bwrapBox(t)
			}
			wt := t.TempDir()
			r := RunShell(context.Background(), box, wt, KindTest, "setsid sleep 621 & (setsid sh -c 'sleep 622' &) ; sleep 0.2; echo started", time.Minute)
			if !strings.Contains(r.Output, "started") {
				t.Fatalf("the command did not run: %s", r.Output)
			}
			if left := waitNoneMarked(wt, 5*time.Second); len(left) > 0 {
				killAll(left)
				t.Fatalf("processes %v outlived the run", left)
			}
		})
	}
}

// A kill -9 of the cra running a test: in bubblewrap the test's whole tree
// dies with it; unconfined, what is left is killed by the next run in the
// worktree (a --resume) or the sweep, by its mark.
func TestKillOfCraLeavesNoTestProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv("CRA_BOX_HELPER") != "" {
		box := testBox(t, config.Testing{Sandbox: os.Getenv("CRA_BOX_HELPER")})
		RunShell(context.Background(), box, os.Getenv("CRA_BOX_DIR"), KindTest, "setsid sleep 623 & sleep 624", time.Minute)
		return
	}
	for _, mode := range []string{config.SandboxNone, config.SandboxBwrap} {
		t.Run(mode, func(t *testing.T) {
			if mode == config.SandboxBwrap {
				bwrapBox(t)
			}
			wt := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestKillOfCraLeavesNoTestProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CRA_BOX_HELPER="+mode, "CRA_BOX_DIR="+wt)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(30 * time.Second); len(Leftovers(wt)) < 2; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the helper's test never started")
				}
			}
			time.Sleep(100 * time.Millisecond) // both sleeps started
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			left := waitNoneMarked(wt, 3*time.Second)
			switch {
			case mode == config.SandboxBwrap && len(left) > 0:
				killAll(left)
				t.Fatalf("processes %v outlived a kill -9 of their cra", left)
			case mode == config.SandboxNone:
				if len(left) == 0 {
					t.Log("unconfined: nothing was left (the setsid child died too)")
				}
				if n := KillLeftovers(wt); n != len(left) {
					t.Errorf("KillLeftovers killed %d of %v", n, left)
				}
				if still := waitNoneMarked(wt, 3*time.Second); len(still) > 0 {
					killAll(still)
					t.Fatalf("still marked after KillLeftovers: %v", still)
				}
			}
		})
	}
}

// waitNoneMarked waits up to d for no process to carry dir's mark, and
// returns those that still do.
func waitNoneMarked(dir string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := Leftovers(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func killAll(pids []int) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// go test in the box builds into the runs' own cache in the home: the
// user's build cache is read-only there (here an empty one, on which go
// test cannot even start: "failed to initialize build cache") and stays
// as it was.
func TestBoxGoTestHasItsOwnCache(t *testing.T) {
	bwrapBox(t)
	// Not under /tmp, which the box replaces with its own.
	userCache, err := os.MkdirTemp(".", "testdata-usercache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(userCache) })
	if userCache, err = filepath.Abs(userCache); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", userCache)
	home := t.TempDir()
	box, err := NewBox(config.Testing{Sandbox: config.SandboxBwrap}, os.Environ(), home)
	if err != nil {
		t.Fatal(err)
	}
	wt := t.TempDir()
	// A package without imports or test files: go test still opens the
	// build cache (where a read-only one fails) and compiles the package
	// into it, without building the standard library from scratch for a
	// test binary (half a minute of CPU on a fresh cache).
	for name, text := range map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.22\n",
		"c.go":   "package c\n\n// C is compiled into the box's cache.\nfunc C() int { return 1 }\n",
	} {
		if err := os.WriteFile(filepath.Join(wt, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := RunShell(context.Background(), box, wt, KindTest, "go test ./...", 5*time.Minute); !r.Passed {
		t.Fatalf("go test in the box: %s", r.Output)
	}
	if ents, _ := os.ReadDir(userCache); len(ents) > 0 {
		t.Errorf("the user's build cache was written: %d entries", len(ents))
	}
	if ents, _ := os.ReadDir(filepath.Join(BoxCache(home), "go-build")); len(ents) == 0 {
		t.Error("the box's own build cache is empty")
	}
	if outputs, _ := filepath.Glob(filepath.Join(BoxCache(home), "go-build", "*", "*-d")); len(outputs) == 0 {
		t.Error("the box's own build cache holds no compiled output")
	}
}
