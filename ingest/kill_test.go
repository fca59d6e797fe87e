package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
)

// TestMain lets a test run the indexer in a child process it can kill -9.
func TestMain(m *testing.M) {
	if home := os.Getenv("CRA_TEST_INDEX_HOME"); home != "" {
		_, err := IndexRepos(context.Background(), home, []string{os.Getenv("CRA_TEST_INDEX_REPO")}, Options{Jobs: 2})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A kill -9 at any moment leaves the store consistent, and a re-run ends
// with exactly the rows of an uninterrupted index.
func TestKilledIndexResumesToTheSameRows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and indexes a 600-file repository several times")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 600, Commits: 1500, Funcs: 8}.Build(t, repo)
	want := newHome(t)
	start := time.Now()
	one(t, want, repo, Options{Jobs: 2})
	took := time.Since(start)
	wantDump := dump(t, want)

	killed := 0
	for _, frac := range []float64{0.2, 0.5, 0.8} {
		after := time.Duration(frac * float64(took))
		t.Run(fmt.Sprintf("at%.0f%%", frac*100), func(t *testing.T) {
			home := newHome(t)
			if storetest.KillAfter(t, []string{"CRA_TEST_INDEX_HOME=" + home, "CRA_TEST_INDEX_REPO=" + repo}, after) {
				killed++
			}
			one(t, home, repo, Options{})
			sameDump(t, dump(t, home), wantDump)
		})
	}
	if killed == 0 {
		t.Fatalf("no child was killed mid-run (an index takes %v): the test proved nothing", took)
	}
}
