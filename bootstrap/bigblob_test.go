package bootstrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
)

// childPeakRSS runs index and bootstrap (bootstrap indexes a repository it does
// not know first) on repo in a child process and returns its peak RSS in MB.
func childPeakRSS(t *testing.T, repo string) float64 {
	t.Helper()
	home := newHome(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CRA_TEST_BOOTSTRAP_HOME="+home, "CRA_TEST_BOOTSTRAP_REPO="+repo)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%.2000s", err, out)
	}
	return float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
}

// A repository holding one 300 MB binary costs about what it costs without
// it: the blob's size comes from its object header and its content is never
// inflated, loose or packed.
func TestMemoryDoesNotFollowTheLargestBlob(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 300 MB blob")
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	gittest.Synthetic{Files: 40, Commits: 200, Funcs: 4, Realistic: true}.Build(t, base)
	without := childPeakRSS(t, base)

	big := filepath.Join(dir, "big")
	if out, err := exec.Command("git", "clone", "-q", base, big).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v: %s", err, out)
	}
	r := gittest.Open(t, big)
	blob := make([]byte, 300<<20) // NUL bytes: binary to git
	copy(blob, "weights v1\n")
	r.WriteBytes("models/weights.bin", blob)
	r.Commit("Add the model weights used by the ranking module")
	blob = nil

	for _, packed := range []bool{false, true} {
		name := "loose"
		if packed {
			name = "packed"
			r.Git("gc", "-q")
		}
		t.Run(name, func(t *testing.T) {
			with := childPeakRSS(t, big)
			t.Logf("peak RSS: %.0f MB without the blob, %.0f MB with it (%s)", without, with, name)
			if with-without > 100 {
				t.Errorf("peak RSS %.0f MB with a 300 MB blob, %.0f MB without: the blob was read", with, without)
			}
		})
	}
}
