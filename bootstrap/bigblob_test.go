package bootstrap

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%.2000s", err, stderr.String())
	}
	// The child's own VmHWM: its rusage after exec can carry the parent's
	// high-water mark (a test binary that has run other tests).
	m := regexp.MustCompile(`vmhwm=(\d+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("the child reported no peak RSS: %.2000s", stderr.String())
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return float64(n) / (1 << 20)
}

// A repository holding one 200 MB binary costs about what it costs without
// it: the blob's size comes from its object header and its content is never
// inflated, loose or packed.
func TestMemoryDoesNotFollowTheLargestBlob(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes a 200 MB blob")
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	gittest.Synthetic{Files: 40, Commits: 80, Funcs: 4, Realistic: true}.Build(t, base)
	without := childPeakRSS(t, base)

	big := filepath.Join(dir, "big")
	if out, err := exec.Command("git", "clone", "-q", base, big).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v: %s", err, out)
	}
	r := gittest.Open(t, big)
	blob := make([]byte, 200<<20) // NUL bytes: binary to git; read whole, it would add twice the 100 MB allowed
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
				t.Errorf("peak RSS %.0f MB with a 200 MB blob, %.0f MB without: the blob was read", with, without)
			}
		})
	}
}
