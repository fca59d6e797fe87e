package bootstrap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// Benchmark figures for `make bench-bootstrap`:
//
//	BenchmarkBootstrapFull         every commit of a ~150-file, ~6,000-commit
//	                               generated repo (or the repositories of
//	                               $CRA_BENCH_REPO, space-separated, mined in
//	                               one run): commits/s, verified commits, peak
//	                               RSS, and the ratio of wall time to `git log
//	                               --all --numstat --no-renames` over the same
//	                               repositories, run in each iteration
//	BenchmarkBootstrapNoChange     a re-run with no new commit
//
// The repositories are indexed before the timer starts: the figures are
// the replay's. Quote medians of -count.

var benchDir string

func benchRepos(b *testing.B) []string {
	b.Helper()
	if p := strings.Fields(os.Getenv("CRA_BENCH_REPO")); len(p) > 0 {
		return p
	}
	if benchDir == "" {
		dir := filepath.Join(os.TempDir(), "cra-bench-bootstrap-150x6000")
		if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
			os.RemoveAll(dir)
			gittest.Synthetic{Files: 150, Commits: 6000, Realistic: true}.Build(b, dir)
		}
		benchDir = dir
	}
	return []string{benchDir}
}

// indexedHome is a new home with repos already in the knowledge base.
func indexedHome(b testing.TB, repos ...string) string {
	b.Helper()
	home := newHome(b)
	if _, err := ingest.IndexRepos(context.Background(), home, repos, ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	return home
}

// gitLog is how long `git log --all --numstat --no-renames` takes over repos.
func gitLog(b *testing.B, repos []string) time.Duration {
	b.Helper()
	start := time.Now()
	for _, r := range repos {
		cmd := exec.Command("git", "log", "--all", "--numstat", "--no-renames")
		cmd.Dir = r
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

func BenchmarkBootstrapFull(b *testing.B) {
	repos := benchRepos(b)
	var sum *Summary
	var peak int64
	var git time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		home := indexedHome(b, repos...)
		git += gitLog(b, repos)
		storetest.ResetPeakRSS()
		opts := testOptions()
		opts.Jobs = 0
		opts.MemoryLimit = DefaultMemoryLimit // as the command line runs it
		b.StartTimer()
		sum = mine(b, home, opts, repos...)
		b.StopTimer()
		peak = max(peak, storetest.PeakRSS())
		b.StartTimer()
	}
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(sum.Seen)/per, "commits/s")
	b.ReportMetric(float64(sum.Seen), "commits")
	b.ReportMetric(float64(sum.Verified), "verified")
	b.ReportMetric(float64(peak)/(1<<20), "peak_MB")
	b.ReportMetric(b.Elapsed().Seconds()/git.Seconds(), "x_gitlog")
}

func BenchmarkBootstrapNoChange(b *testing.B) {
	repos := benchRepos(b)
	home := indexedHome(b, repos...)
	mine(b, home, testOptions(), repos...)
	b.ResetTimer()
	for range b.N {
		for _, res := range mine(b, home, testOptions(), repos...).Repos {
			if res.Status != kb.StatusUpToDate {
				b.Fatalf("no-change run of %s: %s", res.Repo, res.Status)
			}
		}
	}
}
