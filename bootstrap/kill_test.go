package bootstrap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
)

// TestMain lets a test run bootstrap in a child process it can kill -9.
func TestMain(m *testing.M) {
	if home := os.Getenv("CRA_TEST_BOOTSTRAP_HOME"); home != "" {
		opts := testOptions()
		opts.Wait, _ = time.ParseDuration(os.Getenv("CRA_TEST_BOOTSTRAP_WAIT"))
		sum, err := Run(context.Background(), home, []string{os.Getenv("CRA_TEST_BOOTSTRAP_REPO")}, opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(sum) //nolint:errcheck // read by the parent test
		// This process's own high-water mark (its rusage after exec may
		// carry the parent's).
		fmt.Fprintf(os.Stderr, "vmhwm=%d\n", storetest.PeakRSS())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A kill -9 at any moment leaves the raw store consistent, and a re-run ends
// with exactly the rows of an uninterrupted run: no duplicates, nothing lost.
func TestKilledBootstrapResumesToTheSameRows(t *testing.T) {
	if testing.Short() {
		t.Skip("mines a 1,500-commit repository several times")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 60, Commits: 1500, Funcs: 6, Realistic: true}.Build(t, repo)
	want := newHome(t)
	start := time.Now()
	sum := mine(t, want, testOptions(), repo)
	took := time.Since(start)
	if sum.Verified < 100 {
		t.Fatalf("only %d commits verified (%v): the test needs a run long enough to kill", sum.Verified, sum.Total)
	}
	wantRows := dump(t, want)

	killed := 0
	for _, frac := range []float64{0.3, 0.6, 0.9} {
		after := time.Duration(frac * float64(took))
		t.Run(fmt.Sprintf("at%.0f%%", frac*100), func(t *testing.T) {
			home := newHome(t)
			if storetest.KillAfter(t, []string{"CRA_TEST_BOOTSTRAP_HOME=" + home, "CRA_TEST_BOOTSTRAP_REPO=" + repo}, after) {
				killed++
				t.Logf("killed after %v: %d commits were stored", after, len(rawRows(t, home, "SELECT commit FROM bootstrap_commits")))
			}
			mine(t, home, testOptions(), repo)
			sameRows(t, dump(t, home), wantRows)
		})
	}
	if killed == 0 {
		t.Error("no child was killed mid-run: the test proved nothing")
	}
}
