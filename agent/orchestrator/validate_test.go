package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

func TestRunCapturesExitAndOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runUnboxed(context.Background(), dir, KindTest, "echo out; echo err >&2; pwd; exit 3", 10*time.Second)
	if r.ExitCode != 3 || r.Passed || r.TimedOut || !strings.Contains(r.Output, "out\n") || !strings.Contains(r.Output, "err\n") ||
		!strings.Contains(r.Output, filepath.Base(dir)) {
		t.Errorf("%+v", r)
	}
	if r := runUnboxed(context.Background(), dir, KindTest, "true", 10*time.Second); !r.Passed || r.ExitCode != 0 {
		t.Errorf("true: %+v", r)
	}
	// Large outputs are kept whole.
	r = runUnboxed(context.Background(), dir, KindTest, "head -c 3000000 /dev/zero | tr '\\0' a", 30*time.Second)
	if !r.Passed || len(r.Output) != 3_000_000 {
		t.Errorf("3 MB of output: kept %d bytes, %+v", len(r.Output), r.ExitCode)
	}
}

// A hanging command is killed at the timeout with every child it started.
func TestRunKillsTheProcessGroupAtTheTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Now()
	r := runUnboxed(context.Background(), dir, KindTest, "sleep 100 & echo $! > child.pid; sleep 100", time.Second)
	if !r.TimedOut || r.Passed || time.Since(start) > 20*time.Second || !strings.Contains(r.Output, "process group was killed") {
		t.Fatalf("after %s: %+v", time.Since(start), r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d is still alive", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A real go test run: its failing test is named.
func TestValidateRealGoTest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":       "module example.com/v\n\ngo 1.22\n",
		"v.go":         "package v\n\nfunc Two() int { return 3 }\n",
		"v_test.go":    "package v\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(\"not two\")\n\t}\n}\n\nfunc TestOK(t *testing.T) {}\n",
		"lint.sh":      "echo 'lint: 1 warning'; exit 1\n",
		"typecheck.sh": "exit 0\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Testing{TestCommand: "GOFLAGS=-mod=mod go test ./...", LintCommand: "sh lint.sh", TypeCheckCommand: "sh typecheck.sh", TimeoutSeconds: 120}
	rep, err := Validate(context.Background(), testBox(t, cfg), dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed() || !slices.Equal(rep.Test.FailingTests, []string{"TestTwo"}) {
		t.Errorf("test: %+v", rep.Test)
	}
	if rep.Lint == nil || rep.Lint.Passed || rep.TypeCheck == nil || !rep.TypeCheck.Passed {
		t.Errorf("lint %+v, type check %+v", rep.Lint, rep.TypeCheck)
	}
	// Lint and type check inform; the tests decide.
	if err := os.WriteFile(filepath.Join(dir, "v.go"), []byte("package v\n\nfunc Two() int { return 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err = Validate(context.Background(), testBox(t, cfg), dir, cfg); err != nil || !rep.Passed() || rep.Lint.Passed {
		t.Errorf("fixed: passed %v, lint %+v, %v", rep.Passed(), rep.Lint, err)
	}
	if _, err := Validate(context.Background(), Box{}, dir, config.Testing{LintCommand: "true", TimeoutSeconds: 10}); !errors.Is(err, ErrNoTestCommand) {
		t.Errorf("no test command: %v", err)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	out := "first line\nsecond line\nthird line\n"
	if got := Tail(out, 100); got != out {
		t.Errorf("short output: %q", got)
	}
	if got := Tail(out, 15); got != "… (23 bytes cut)\nthird line\n" {
		t.Errorf("tail: %q", got)
	}
}

// The test command gets no API key from cra's environment, whatever the
// variable is called, and still finds its tools (PATH, HOME).
func TestValidateKeepsKeysFromTheTests(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-should-not-leak")
	t.Setenv("CRA_TEACHER_API_KEY", "sk-teacher-should-not-leak")
	t.Setenv("DATABASE_URL", "pg://only-when-listed")
	cmd := `echo "[$OPENAI_API_KEY][$CRA_TEACHER_API_KEY][$DATABASE_URL]"; test -n "$PATH" && test -n "$HOME"`
	cfg := config.Testing{TestCommand: cmd, TimeoutSeconds: 10}
	rep, err := Validate(context.Background(), testBox(t, cfg), t.TempDir(), cfg)
	if err != nil || !rep.Passed() || !strings.Contains(rep.Test.Output, "[][][]") {
		t.Errorf("%v %q: want no key and no unlisted variable, PATH and HOME set", err, rep.Test.Output)
	}
	cfg.EnvPassthrough = []string{"DATABASE_URL"}
	rep, _ = Validate(context.Background(), testBox(t, cfg), t.TempDir(), cfg)
	if !strings.Contains(rep.Test.Output, "[][][pg://only-when-listed]") {
		t.Errorf("env_passthrough DATABASE_URL: %q", rep.Test.Output)
	}
}

// A test command printing far more than MaxOutputBytes keeps its end: the
// failing test printed last is still named, and the output stays bounded.
func TestRunKeepsTheEndOfAHugeOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{"FAIL: test_add (tests.test_calc.TestCalc.test_add)", "tests.test_calc.TestCalc.test_add"},
		{"--- FAIL: TestAdd (0.00s)", "TestAdd"},
	} {
		cmd := "echo start; yes x | head -c 500000000; echo '" + tc.line + "'; exit 1"
		r := runUnboxed(context.Background(), t.TempDir(), KindTest, cmd, time.Minute)
		if r.Passed || r.ExitCode != 1 {
			t.Fatalf("%s: exit %d", tc.want, r.ExitCode)
		}
		if !strings.HasPrefix(r.Output, "start\nx\n") || !strings.HasSuffix(r.Output, "x\n"+tc.line+"\n") {
			t.Errorf("%s: output does not keep its start and end: %q … %q", tc.want, r.Output[:20], r.Output[len(r.Output)-80:])
		}
		if len(r.Output) > MaxOutputBytes+100 || !strings.Contains(r.Output, "bytes of output cut here]\n") {
			t.Errorf("%s: kept %d bytes (limit %d), cut said: %v", tc.want, len(r.Output), MaxOutputBytes, strings.Contains(r.Output, "cut here"))
		}
		if !slices.Equal(r.FailingTests, []string{tc.want}) {
			t.Errorf("failing tests %q, want %q", r.FailingTests, tc.want)
		}
	}
}

// capped keeps the head and the tail whatever the write sizes, cut at line
// ends, and says how many bytes it cut.
func TestCappedKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			b.WriteString(strconv.Itoa(i%10) + "\n")
		}
		return b.String()
	}
	in := lines(0, 100) // 200 bytes of "0\n1\n..."
	cases := []struct {
		name  string
		limit int
		input string
		want  string
	}{
		{"fits", 200, in, in},
		{"fits exactly", 201, in, in},
		{"one byte over", 199, in, in[:98] + "[cra: 2 bytes of output cut here]\n" + in[100:]},
		{"far over", 20, in, in[:10] + "[cra: 180 bytes of output cut here]\n" + in[190:]},
		{"cut mid-line", 21, in, in[:10] + "[cra: 180 bytes of output cut here]\n" + in[190:]},
		{"no newlines", 10, "abcdefghijklmnopqrstuvwxyz", "abcde\n[cra: 16 bytes of output cut here]\nvwxyz"},
	}
	for _, tc := range cases {
		for _, chunk := range []int{1, 3, 7, 64, 1000} {
			c := &capped{limit: tc.limit}
			for s := tc.input; s != ""; {
				k := min(chunk, len(s))
				if n, err := c.Write([]byte(s[:k])); n != k || err != nil {
					t.Fatalf("write: %d, %v", n, err)
				}
				s = s[k:]
			}
			if got := c.String(); got != tc.want {
				t.Errorf("%s, writes of %d: got\n%q\nwant\n%q", tc.name, chunk, got, tc.want)
			}
			if len(c.head)+len(c.tail) > tc.limit {
				t.Errorf("%s, writes of %d: holds %d bytes, limit %d", tc.name, chunk, len(c.head)+len(c.tail), tc.limit)
			}
		}
	}
}

// runUnboxed runs command with sh -c in dir, unconfined, with this
// process's whole environment: the runner alone, without a sandbox.
func runUnboxed(ctx context.Context, dir, kind, command string, timeout time.Duration) Result {
	return RunShell(ctx, Box{Env: os.Environ()}, dir, kind, command, timeout)
}
