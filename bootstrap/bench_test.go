package bootstrap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
//	                               generated repo (or $CRA_BENCH_REPO): commits/s,
//	                               verified commits, peak RSS, and the ratio of
//	                               wall time to `git log --all --numstat --no-renames`
//	BenchmarkBootstrapNoChange     a re-run with no new commit
//
// The repository is indexed before the timer starts: the figures are the
// replay's. Quote medians of -count.

var benchDir string

func benchRepo(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("CRA_BENCH_REPO"); p != "" {
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
	return benchDir
}

// indexedHome is a new home with repo already in the knowledge base.
func indexedHome(b testing.TB, repo string) string {
	b.Helper()
	home := newHome(b)
	if _, err := ingest.IndexRepos(context.Background(), home, []string{repo}, ingest.Options{}); err != nil {
		b.Fatal(err)
	}
	return home
}

func BenchmarkBootstrapFull(b *testing.B) {
	repo := benchRepo(b)
	start := time.Now()
	cmd := exec.Command("git", "log", "--all", "--numstat", "--no-renames")
	cmd.Dir = repo
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	gitLog := time.Since(start)
	var res *RepoResult
	var peak int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		home := indexedHome(b, repo)
		storetest.ResetPeakRSS()
		opts := testOptions()
		opts.Jobs = 0
		b.StartTimer()
		res = mine(b, home, opts, repo).Repos[0]
		b.StopTimer()
		peak = max(peak, storetest.PeakRSS())
		b.StartTimer()
	}
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(res.Seen)/per, "commits/s")
	b.ReportMetric(float64(res.Seen), "commits")
	b.ReportMetric(float64(res.Verified), "verified")
	b.ReportMetric(float64(peak)/(1<<20), "peak_MB")
	b.ReportMetric(per/gitLog.Seconds(), "x_gitlog")
}

func BenchmarkBootstrapNoChange(b *testing.B) {
	repo := benchRepo(b)
	home := indexedHome(b, repo)
	mine(b, home, testOptions(), repo)
	b.ResetTimer()
	for range b.N {
		if res := mine(b, home, testOptions(), repo).Repos[0]; res.Status != kb.StatusUpToDate {
			b.Fatalf("no-change run: %s", res.Status)
		}
	}
}
