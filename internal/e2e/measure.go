package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// measureEnv names the file a measuring wrapper writes its command's peak
// RSS to.
const measureEnv = "CRA_E2E_MEASURE_OUT"

// MeasureMain makes this executable a measuring wrapper when Measure
// started it as one: it runs its arguments as a command (stdio, signals
// passed through), writes the command's peak RSS and CPU time to the file
// the environment names and exits with the command's exit code. Call it first
// in main, or in TestMain.
//
// Why a wrapper: Go starts a child with vfork, and Linux hands the child
// its parent's peak RSS at exec, so the rusage of a child of a large
// process (a test binary holding a fake model) reports the parent's peak.
// A small wrapper's child starts from the wrapper's own few MB.
func MeasureMain() {
	out := os.Getenv(measureEnv)
	if out == "" {
		return
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "e2e: measuring wrapper started without a command")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = withoutEnv(os.Environ(), measureEnv)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(127)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s) //nolint:errcheck // it may have exited
		}
	}()
	cmd.Wait() //nolint:errcheck // the exit status is read below
	st := cmd.ProcessState
	ru := st.SysUsage().(*syscall.Rusage)
	if err := os.WriteFile(out, []byte(fmt.Sprintf("%d %d\n", ru.Maxrss, (st.UserTime()+st.SystemTime()).Microseconds())), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
	}
	os.Exit(exitCode(st))
}

// exitCode is a finished process's exit code, 128+N when signal N ended
// it (as shells report it).
func exitCode(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// Measured is what one child process did.
type Measured struct {
	Code    int // exit code; 128+N when killed by signal N
	Wall    time.Duration
	CPU     time.Duration // user and system
	PeakRSS int64         // bytes: the child's VmHWM, from its rusage
	Stdout  string
	Stderr  string
}

// Measure runs argv through the measuring wrapper wrapper (an executable
// that calls MeasureMain: this program itself, os.Args[0]) with env added
// to the environment.
func Measure(ctx context.Context, wrapper string, env []string, argv ...string) (Measured, error) {
	rss, err := os.CreateTemp("", "cra-e2e-rss-")
	if err != nil {
		return Measured{}, err
	}
	rss.Close()
	defer os.Remove(rss.Name())
	cmd := exec.CommandContext(ctx, wrapper, argv...)
	cmd.Env = append(append(os.Environ(), env...), measureEnv+"="+rss.Name())
	// SIGINT first: cra leaves its stores consistent on it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	m := Measured{Wall: time.Since(start), Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
	case err != nil:
		return m, fmt.Errorf("run %s: %w", filepath.Base(argv[0]), err)
	}
	m.Code = exitCode(cmd.ProcessState)
	b, err := os.ReadFile(rss.Name())
	if err != nil {
		return m, err
	}
	var kb, us int64
	if _, err := fmt.Sscan(string(b), &kb, &us); err != nil {
		return m, fmt.Errorf("%s: the wrapper wrote no peak RSS (%q): does it call e2e.MeasureMain?", wrapper, b)
	}
	m.PeakRSS, m.CPU = kb<<10, time.Duration(us)*time.Microsecond
	return m, nil
}
