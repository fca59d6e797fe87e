package ingest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/gittest"
)

// Benchmark figures for `make bench-index`:
//
//	BenchmarkIndexFull     tree + history of a ~150-file, ~6,000-commit repo
//	BenchmarkIndexNoChange a re-run with nothing changed
//	BenchmarkIndexTree     tree only (plain directory) of 1,500 files: MB/s,
//	                       and the ratio to `ctags -R` on the same tree
//	                       when ctags is installed
//
// Each reports its own figures with b.ReportMetric; quote medians of -count.

var benchRepoDir string

func benchRepo(b *testing.B) string {
	b.Helper()
	if benchRepoDir == "" {
		dir := filepath.Join(os.TempDir(), "cra-bench-index-150x6000")
		if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
			os.RemoveAll(dir)
			gittest.Synthetic{Files: 150, Commits: 6000}.Build(b, dir)
		}
		benchRepoDir = dir
	}
	return benchRepoDir
}

func BenchmarkIndexFull(b *testing.B) {
	repo := benchRepo(b)
	gitLog := timeCommand(b, repo, "git", "log", "--numstat", "--no-renames")
	var res *Result
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		home := newHome(b)
		b.StartTimer()
		res = one(b, home, repo, Options{})
	}
	b.ReportMetric(float64(res.Files)/b.Elapsed().Seconds()*float64(b.N), "files/s")
	b.ReportMetric(float64(res.Commits)/b.Elapsed().Seconds()*float64(b.N), "commits/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/gitLog.Seconds(), "x_gitlog")
}

func BenchmarkIndexNoChange(b *testing.B) {
	repo := benchRepo(b)
	home := newHome(b)
	one(b, home, repo, Options{})
	b.ResetTimer()
	for range b.N {
		if res := one(b, home, repo, Options{}); res.FilesChanged != 0 || res.CommitsAdded != 0 {
			b.Fatalf("no-change run changed something: %+v", res)
		}
	}
}

func BenchmarkIndexTree(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "tree")
	size := gittest.Synthetic{Files: 1500, Commits: 1, Funcs: 30}.Build(b, dir)
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		b.Fatal(err)
	}
	var ctags time.Duration
	if _, err := exec.LookPath("ctags"); err == nil {
		ctags = timeCommand(b, dir, "ctags", "-R", "-f", os.DevNull, ".")
	}
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		home := newHome(b)
		b.StartTimer()
		one(b, home, dir, Options{})
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(1500/perOp, "files/s")
	if ctags > 0 {
		b.ReportMetric(perOp/ctags.Seconds(), "x_ctags")
	}
}

// timeCommand is the median wall time of three runs of a command in dir.
func timeCommand(b *testing.B, dir, name string, args ...string) time.Duration {
	b.Helper()
	var times []time.Duration
	for range 3 {
		cmd := exec.CommandContext(context.Background(), name, args...)
		cmd.Dir = dir
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[1]
}
