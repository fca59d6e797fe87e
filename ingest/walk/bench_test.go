package walk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

const (
	benchFiles    = 2000
	benchFileSize = 4 << 10
)

// benchRepo commits benchFiles distinct Go files of about benchFileSize
// bytes in 40 directories two levels deep, then packs the repository as a
// clone would be.
func benchRepo(b *testing.B) (*gittest.Repo, plumbing.Hash) {
	b.Helper()
	r := gittest.New(b)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"ctx", "err", "return", "value", "index", "walk", "entry", "repo", "path", "skip"}
	for i := range benchFiles {
		var s strings.Builder
		fmt.Fprintf(&s, "package p%d\n\n", i%40)
		for s.Len() < benchFileSize {
			fmt.Fprintf(&s, "func f%d_%d(%s int) int { return %s + %d }\n",
				i, s.Len(), words[rng.IntN(len(words))], words[rng.IntN(len(words))], rng.IntN(1000))
		}
		r.Write(fmt.Sprintf("d%d/s%d/f%04d.go", i%8, i%5, i), s.String())
	}
	head := plumbing.NewHash(r.Commit("bench"))
	r.Git("gc", "-q")
	return r, head
}

func reportWalk(b *testing.B, files, bytes int64) {
	if files != benchFiles {
		b.Fatalf("walked %d files, want %d", files, benchFiles)
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(files)*float64(b.N)/secs, "files/s")
	b.ReportMetric(float64(bytes)*float64(b.N)/secs/1e6, "MB/s")
}

func BenchmarkDir(b *testing.B) {
	r, _ := benchRepo(b)
	var files, bytes int64
	for b.Loop() {
		files, bytes = 0, 0
		err := Dir(b.Context(), r.Dir, Options{}, func(e Entry) error {
			files++
			bytes += int64(len(e.Content))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	reportWalk(b, files, bytes)
}

func BenchmarkTree(b *testing.B) {
	r, head := benchRepo(b)
	var files, bytes int64
	for b.Loop() {
		// A fresh repository each time: its object cache would otherwise
		// serve every blob after the first walk.
		repo := openRepo(b, r.Dir)
		files, bytes = 0, 0
		err := Tree(b.Context(), repo, head, Options{}, func(e Entry) error {
			files++
			bytes += int64(len(e.Content))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	reportWalk(b, files, bytes)
}
