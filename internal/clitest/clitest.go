// Package clitest runs cra's command line in tests, one way for every
// package that tests it: in the test's own process (cmd/cra's tests call
// its Run) or as the built binary in a child process (the end-to-end
// tests of cmd/cra/e2e and the packages under it, which cannot import
// package main).
package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cra-dev/cra/internal/e2e"
	"github.com/cra-dev/cra/internal/storetest"
)

// Runner runs cra with args (the program name left out) and returns its
// exit code: cmd/cra's Run, or Exec of a binary.
type Runner func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Result is how one cra command ended.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// CLI runs cra commands in tests.
type CLI struct {
	run  Runner
	init *storetest.Template
}

// New is a CLI running commands with run.
func New(run Runner) *CLI {
	c := &CLI{run: run}
	c.init = storetest.NewTemplate(func(dir string) error {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"--home", dir, "init"}, strings.NewReader(""), &out, &errb); code != 0 {
			return fmt.Errorf("cra init: exit %d: %s", code, errb.String())
		}
		return nil
	})
	return c
}

// Cra runs the command args with --home set to home and stdin as its input.
func (c *CLI) Cra(t testing.TB, home, stdin string, args ...string) Result {
	t.Helper()
	var out, errb bytes.Buffer
	code := c.run(context.Background(), append([]string{"--home", home}, args...), strings.NewReader(stdin), &out, &errb)
	return Result{code, out.String(), errb.String()}
}

// MustRun runs the command args in home and fails the test unless it
// exits 0; it returns the command's standard output.
func (c *CLI) MustRun(t testing.TB, home string, args ...string) string {
	t.Helper()
	r := c.Cra(t, home, "", args...)
	if r.Code != 0 {
		t.Fatalf("cra %s: exit %d\nstderr: %s", strings.Join(args, " "), r.Code, r.Stderr)
	}
	return r.Stdout
}

// SQLRows is what cra sql prints for queries, as CSV.
func (c *CLI) SQLRows(t testing.TB, home string, queries ...string) string {
	t.Helper()
	return c.MustRun(t, home, "sql", "--format", "csv", strings.Join(queries, ";\n"))
}

// NewHome is a new home as `cra init` leaves it: a copy of one made once
// per CLI, since most tests start from one and each init costs a third of
// a second of CPU.
func (c *CLI) NewHome(t testing.TB) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	c.init.Copy(t, home)
	return home
}

// Exec is a Runner starting bin in a child process.
func Exec(bin string) Runner {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
		code, err := exitCode(cmd.Run())
		if err != nil {
			fmt.Fprintf(stderr, "clitest: %s: %v\n", bin, err)
			return -1
		}
		return code
	}
}

// RunChild runs cmd to its end and returns how it ended.
func RunChild(t testing.TB, cmd *exec.Cmd) Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code, err := exitCode(cmd.Run())
	if err != nil {
		t.Errorf("%v: %v", cmd.Args, err)
	}
	return Result{code, stdout.String(), stderr.String()}
}

// exitCode is the exit status behind err, a command's run; err is returned
// when the command did not run or end by itself.
func exitCode(err error) (int, error) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		return ee.ProcessState.Sys().(syscall.WaitStatus).ExitStatus(), nil
	default:
		return 0, err
	}
}

// Binary is the cra binary the tests of this process run: $CRA_E2E_BIN
// (make test builds it), or one BuildBinary built.
func Binary(t testing.TB) string {
	t.Helper()
	if b := os.Getenv("CRA_E2E_BIN"); b != "" {
		return b
	}
	bin, err := BuildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// BuildBinary builds cra from this module's cmd/cra once per process, in
// a temporary directory (without -race: its figures are a user's), and
// returns its path. RemoveBinary removes it.
func BuildBinary() (string, error) {
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "cra-test-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "cra")
		if out, err := exec.Command("go", "build", "-o", built.bin, "github.com/cra-dev/cra/cmd/cra").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build cra: %v\n%s", err, out)
		}
	})
	return built.bin, built.err
}

// built is the cra BuildBinary built, shared by the tests of one process.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// RemoveBinary removes the binary BuildBinary built, if it built one: a
// TestMain calls it after the tests.
func RemoveBinary() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// MoreParallel lets 3 × GOMAXPROCS parallel tests run at once instead of
// GOMAXPROCS, unless -parallel says otherwise: a TestMain of tests that
// spend most of their time waiting on child processes (git, the fixtures'
// test commands, cra processes started to be killed) calls it, since as
// many as there are cores would leave the cores half idle.
func MoreParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(3*runtime.GOMAXPROCS(0))) //nolint:errcheck // a flag testing defines
	}
}

// WritePEFT writes a PEFT adapter directory (e2e.WritePEFT) under dir.
func WritePEFT(t testing.TB, dir, base string, rank int, fill byte) string {
	t.Helper()
	dir, err := e2e.WritePEFT(dir, base, rank, fill)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// LineDiff lists the lines of want missing from got ("- ") and those of
// got not in want ("+ "), counting repeats: the difference of two sets of
// rows whatever their order.
func LineDiff(want, got string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			m[l]++
		}
		return m
	}
	w, g := count(want), count(got)
	var b strings.Builder
	for l, n := range w {
		if g[l] < n {
			fmt.Fprintf(&b, "- %.300s\n", l)
		}
	}
	for l, n := range g {
		if w[l] < n {
			fmt.Fprintf(&b, "+ %.300s\n", l)
		}
	}
	return b.String()
}

// OneJSONObject is s, a command's standard output, as the one JSON object
// it must be; the test fails if it is not that.
func OneJSONObject(t testing.TB, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	var v map[string]any
	if err := dec.Decode(&v); err != nil || v == nil {
		t.Fatalf("stdout is no JSON object (%v): %.500q", err, s)
	}
	if err := dec.Decode(new(any)); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON document: %.500q", s)
	}
	return v
}
