package clitest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// childArgsEnv holds a child's arguments, a JSON list.
const childArgsEnv = "CRA_TEST_CLI_ARGS"

// ChildArgs are the arguments this test binary was started with as cra
// (ChildEnv), and whether it was.
func ChildArgs() ([]string, bool) {
	js := os.Getenv(childArgsEnv)
	if js == "" {
		return nil, false
	}
	var args []string
	if err := json.Unmarshal([]byte(js), &args); err != nil {
		panic(fmt.Sprintf("%s: %v", childArgsEnv, err)) // only ChildEnv sets it
	}
	return args, true
}

// ChildEnv is the environment entry that makes this test binary cra with
// args (the program name left out): the TestMain of every package that
// tests the CLI runs the command instead of the tests when it is set.
func ChildEnv(args ...string) string {
	js, err := json.Marshal(args)
	if err != nil {
		panic(err) // strings always encode
	}
	return childArgsEnv + "=" + string(js)
}

// Child is cra with args as a process of its own, not started: this test
// binary, run with ChildEnv(args...).
func Child(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ChildEnv(args...))
	return cmd
}

// StartChild starts Child(args...); the test's cleanup kills it if the
// test did not wait for it.
func StartChild(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := Child(args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck // the test failed before it could
			cmd.Wait()         //nolint:errcheck
		}
	})
	return cmd
}

// Processes runs each argument list as its own cra process (Child), all
// at once, and returns their results in order.
func Processes(t testing.TB, runs ...[]string) []Result {
	t.Helper()
	out := make([]Result, len(runs))
	var wg sync.WaitGroup
	for i, args := range runs {
		wg.Go(func() { out[i] = RunChild(t, Child(args...)) })
	}
	wg.Wait()
	return out
}
