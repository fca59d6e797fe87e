package orchestrator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

// Command kinds: only the test command decides success.
const (
	KindTest      = "test"
	KindLint      = "lint"
	KindTypeCheck = "type_check"
)

// MaxOutputBytes bounds what a command's output keeps in memory and in the
// store (a runaway test printing gigabytes must not take the machine down):
// its first and last halves are kept, so the failures a runner prints at the
// end are still there; the cut is said where it was made.
const MaxOutputBytes = 16 << 20

// Result is one command's run.
type Result struct {
	Kind, Command string
	ExitCode      int // -1 when it did not exit by itself (timeout, signal)
	Passed        bool
	TimedOut      bool
	Output        string // stdout and stderr interleaved, in full up to MaxOutputBytes, else its head and tail
	Duration      time.Duration
	FailingTests  []string
}

// ErrNoTestCommand: cra solve cannot run without a test command.
var ErrNoTestCommand = errors.New("cra solve needs a test command: add [testing] test_command to config.toml or a per-repository one ([[testing.repo]])")

// RunShell runs command with sh -c in dir inside box, in its own process
// group: when timeout passes or ctx ends, the whole group (the command
// and every child it started) is killed, and after the command whatever
// it left behind (KillLeftovers). The output is kept whole up to
// MaxOutputBytes; past it, its head and tail (see capped). CI=true is set
// unless the box's environment has CI, so test runners do not wait for a
// terminal.
func RunShell(ctx context.Context, box Box, dir, kind, command string, timeout time.Duration) Result {
	res := Result{Kind: kind, Command: command, ExitCode: -1}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	KillLeftovers(dir) // of a killed cra's run in this worktree
	cmd := box.command(ctx, dir, command)
	out := &capped{limit: MaxOutputBytes}
	start := time.Now()
	err := runOutput(cmd, out, func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // children left behind by a command that exited
		KillLeftovers(dir)
	})
	res.Duration = time.Since(start)
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		fmt.Fprintf(out, "\n[cra: %s stopped after %s: %v; its process group was killed]\n", kind, res.Duration.Round(time.Millisecond), ctx.Err())
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		fmt.Fprintf(out, "\n[cra: %s could not run: %v]\n", kind, err)
	default:
		res.ExitCode = 0
	}
	res.Output = out.String()
	res.Passed = res.ExitCode == 0 && !res.TimedOut
	if !res.Passed {
		res.FailingTests = FailingTests(res.Output)
	}
	return res
}

// outputGrace is how long the output is read after the command and all
// it left were killed: a process that escaped the kill (its environment
// cleared, unconfined) may hold the pipe open.
const outputGrace = 5 * time.Second

// runOutput runs cmd with its stdout and stderr into out through a pipe of
// its own, calls cleanup as soon as the command exits (before the pipe's
// end, which a child left behind would hold open), then reads what is
// left of the output.
func runOutput(cmd *exec.Cmd, out io.Writer, cleanup func()) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = w, w
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, r)
	}()
	err = cmd.Start()
	w.Close()
	if err == nil {
		err = cmd.Wait()
		cleanup()
	}
	select {
	case <-copied:
	case <-time.After(outputGrace):
		r.Close()
		<-copied
	}
	r.Close()
	return err
}

// Report is a validation: the test command's result, which decides, and
// the lint and type-check results when those are configured.
type Report struct {
	Test            Result
	Lint, TypeCheck *Result
	Warning         string // why the commands ran unconfined (Box.Warning), said once in the run's problems
}

// Passed is the test command's verdict alone.
func (r Report) Passed() bool { return r.Test.Passed }

// Validate runs the repository's test command, then its lint and type
// check when configured, in dir, inside box. Without a test command it
// runs nothing and returns ErrNoTestCommand: no code path skips the tests.
func Validate(ctx context.Context, box Box, dir string, t config.Testing) (Report, error) {
	if strings.TrimSpace(t.TestCommand) == "" {
		return Report{}, ErrNoTestCommand
	}
	timeout := time.Duration(t.TimeoutSeconds) * time.Second
	r := Report{Test: RunShell(ctx, box, dir, KindTest, t.TestCommand, timeout), Warning: box.Warning}
	for _, c := range []struct {
		kind, command string
		dst           **Result
	}{{KindLint, t.LintCommand, &r.Lint}, {KindTypeCheck, t.TypeCheckCommand, &r.TypeCheck}} {
		if strings.TrimSpace(c.command) != "" && ctx.Err() == nil {
			res := RunShell(ctx, box, dir, c.kind, c.command, timeout)
			*c.dst = &res
		}
	}
	return r, ctx.Err()
}

// Tail is the end of output within maxBytes, cut at a line start, for a
// prompt; what was cut is said on the first line.
func Tail(output string, maxBytes int) string {
	if len(output) <= maxBytes {
		return output
	}
	cut := len(output) - maxBytes
	if i := strings.IndexByte(output[cut:], '\n'); i >= 0 && i < len(output)-cut-1 {
		cut += i + 1
	}
	return fmt.Sprintf("… (%d bytes cut)\n", cut) + output[cut:]
}

// capped keeps the first half of limit bytes and the last half, in memory
// bounded by limit whatever the command prints: a runaway test's end (the
// failing tests, the summary) matters as much as its start. What falls
// between is counted, and said where it was cut.
type capped struct {
	limit  int
	head   []byte
	tail   []byte // a ring once full: the oldest byte is at next
	next   int
	before byte  // the byte cut just before the tail's oldest one
	total  int64 // bytes written
}

func (c *capped) headCap() int { return c.limit / 2 }
func (c *capped) tailCap() int { return c.limit - c.limit/2 }

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.headCap() - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	switch tc := c.tailCap(); {
	case len(p) == 0:
	case len(p) >= tc:
		switch {
		case len(p) > tc:
			c.before = p[len(p)-tc-1]
		case len(c.tail) > 0:
			c.before = c.tail[(c.next+len(c.tail)-1)%len(c.tail)]
		case len(c.head) > 0:
			c.before = c.head[len(c.head)-1]
		}
		c.tail = append(c.tail[:0], p[len(p)-tc:]...)
		c.next = 0
	case len(c.tail) < tc:
		k := min(tc-len(c.tail), len(p))
		c.tail = append(c.tail, p[:k]...)
		c.writeRing(p[k:])
	default:
		c.writeRing(p)
	}
	return n, nil
}

// writeRing overwrites the oldest bytes of the full tail with p (shorter
// than the tail).
func (c *capped) writeRing(p []byte) {
	if len(p) == 0 {
		return
	}
	c.before = c.tail[(c.next+len(p)-1)%len(c.tail)]
	k := copy(c.tail[c.next:], p)
	copy(c.tail, p[k:])
	c.next = (c.next + len(p)) % len(c.tail)
}

// String is the output kept: whole when it fit, else the head and the tail
// cut at line ends, with a line between saying how many bytes were cut.
func (c *capped) String() string {
	var b strings.Builder
	b.Grow(len(c.head) + len(c.tail) + 100)
	head, tail := c.head, append(slices.Clone(c.tail[c.next:]), c.tail[:c.next]...)
	cut := c.total - int64(len(head)) - int64(len(tail))
	if cut == 0 {
		b.Write(head)
		b.Write(tail)
		return b.String()
	}
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		cut += int64(len(head) - i - 1)
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); c.before != '\n' && i >= 0 && i < len(tail)-1 {
		cut += int64(i + 1)
		tail = tail[i+1:]
	}
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[cra: %d bytes of output cut here]\n", cut)
	b.Write(tail)
	return b.String()
}
