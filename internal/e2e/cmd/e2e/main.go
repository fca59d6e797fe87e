// Command e2e is `make e2e`: the README's recipe on real clones, each step
// a child process of a built cra, with the fake model (cmd/fakellm, oracle
// mode) as a standalone process. It runs the whole recipe --runs times,
// each on a fresh home, and prints one row per step: exit code, and the
// median over runs of seconds, peak RSS and rows written.
//
//	go run ./internal/e2e/cmd/e2e --cra bin/cra --fakellm bin/fakellm [--runs 3] REPO...
//
// A failed step is reported with its exit code and stderr; the steps that
// stand on it are not run, the others are.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/cra-dev/cra/internal/e2e"
)

type options struct {
	cra, fakellm  string
	runs          int
	evalSample    int
	distillBudget float64
	distillSample int
	gateSample    int
	askSample     int
	keep          bool
	repos         []string
	tests         map[string]string
}

func main() {
	e2e.MeasureMain()
	var o options
	flag.StringVar(&o.cra, "cra", "bin/cra", "the cra binary")
	flag.StringVar(&o.fakellm, "fakellm", "bin/fakellm", "the fake model server (internal/e2e/cmd/fakellm)")
	flag.IntVar(&o.runs, "runs", 1, "run the whole recipe `N` times on fresh homes and print medians")
	flag.IntVar(&o.evalSample, "eval-sample", 20, "cra eval --sample `N` (0: every held-out task)")
	flag.Float64Var(&o.distillBudget, "distill-budget", 1, "the budgeted distill's --budget-usd")
	flag.IntVar(&o.distillSample, "distill-sample", 0, "both distills' --sample `N` (0: every task)")
	flag.IntVar(&o.askSample, "ask-sample", 10, "cra ask --eval --sample `N`: N questions of each kind (0: every one)")
	flag.IntVar(&o.gateSample, "gate-sample", 5, "cra adapters eval --sample `N`: the gate's two evals each run N tasks")
	flag.BoolVar(&o.keep, "keep", false, "keep each run's home (and print where)")
	o.tests = map[string]string{}
	flag.Func("test-command", "`PATH=COMMAND`: a repository's test command (repeat per repository), so eval judges it by its tests", func(v string) error {
		repo, command, ok := strings.Cut(v, "=")
		if !ok || repo == "" || command == "" {
			return fmt.Errorf("want PATH=COMMAND, got %q", v)
		}
		abs, err := filepath.Abs(repo)
		o.tests[abs] = command
		return err
	})
	flag.Parse()
	o.repos = flag.Args()
	if len(o.repos) == 0 || o.runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: e2e [--cra bin/cra] [--fakellm bin/fakellm] [--runs N] REPO...")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	for i, p := range []*string{&o.cra, &o.fakellm} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("%s: build it first (make e2e does)", []string{"--cra", "--fakellm"}[i])
		}
		*p = abs
	}
	for i, r := range o.repos {
		abs, err := filepath.Abs(r)
		if err != nil {
			return err
		}
		o.repos[i] = abs
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	version, _ := exec.Command(o.cra, "version").Output()
	fmt.Printf("cra e2e: %s\n%s, %d cores, %s\n\n", strings.Join(o.repos, " "), strings.TrimSpace(string(version)),
		runtime.NumCPU(), time.Now().Format(time.RFC3339))
	var runs [][]e2e.Result
	failed := false
	for i := range o.runs {
		fmt.Fprintf(os.Stderr, "e2e: run %d of %d\n", i+1, o.runs)
		res, err := runOnce(ctx, o, self)
		if err != nil {
			return err
		}
		for _, r := range res {
			switch {
			case r.OK:
			case r.Code == e2e.NotRun:
				failed = true
			default:
				failed = true
				fmt.Fprintf(os.Stderr, "e2e: run %d: %s exit %d:\n%s\n", i+1, r.Step, r.Code, tail(r.Stderr, 12))
			}
		}
		runs = append(runs, res)
		if ctx.Err() != nil {
			break
		}
	}
	if err := e2e.PrintTable(os.Stdout, runs); err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("some steps failed (their stderr is above)")
	}
	return nil
}

// runOnce runs the recipe on a fresh home, the fake model started before
// the first step that calls it and stopped at the end.
func runOnce(ctx context.Context, o options, self string) ([]e2e.Result, error) {
	home, err := os.MkdirTemp("", "cra-e2e-home-")
	if err != nil {
		return nil, err
	}
	if o.keep {
		fmt.Fprintf(os.Stderr, "e2e: home kept: %s\n", home)
	} else {
		defer os.RemoveAll(home)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	var model *exec.Cmd
	defer func() {
		if model != nil {
			model.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may be gone
			model.Wait()                          //nolint:errcheck // its stdout says how it ended
		}
	}()
	r := e2e.Runner{Cra: o.cra, Home: home, Wrapper: self, Env: e2e.Env(), Progress: os.Stderr,
		StartModel: func(ctx context.Context) error {
			var err error
			model, err = startModel(ctx, o.fakellm, home, addr)
			return err
		}}
	return r.Run(ctx, e2e.Recipe(home, e2e.Options{Repos: o.repos, ModelURL: "http://" + addr,
		EvalSample: o.evalSample, DistillBudget: o.distillBudget, DistillSample: o.distillSample, TestCommands: o.tests, GateSample: o.gateSample, AskSample: o.askSample}))
}

// freeAddr is a loopback address no one listens on now: cra init needs the
// model's URL before bootstrap, the model starts after it.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startModel starts the fake model server on addr and waits until it
// listens; its later output goes to stderr.
func startModel(ctx context.Context, bin, home, addr string) (*exec.Cmd, error) {
	cmd := exec.Command(bin, "--home", home, "--addr", addr)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := bufio.NewScanner(out)
	up := make(chan error, 1)
	go func() {
		if lines.Scan() {
			fmt.Fprintln(os.Stderr, lines.Text())
			up <- nil
		} else {
			up <- fmt.Errorf("fakellm exited before it listened")
		}
		for lines.Scan() {
			fmt.Fprintln(os.Stderr, lines.Text())
		}
	}()
	select {
	case err := <-up:
		if err != nil {
			cmd.Wait() //nolint:errcheck // err says it
			return nil, err
		}
		return cmd, nil
	case <-ctx.Done():
		cmd.Process.Kill() //nolint:errcheck
		cmd.Wait()         //nolint:errcheck
		return nil, ctx.Err()
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}
