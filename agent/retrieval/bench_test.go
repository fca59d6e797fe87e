package retrieval_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// Deterministic retrieval for one task — loading the repository's graph
// from the knowledge base and expanding over it — on a generated
// repository (CRA_BENCH_REPO=path for any clone; `make bench-retrieval`).
func BenchmarkRetrieval(b *testing.B) {
	for _, files := range []int{150, 10_000} {
		b.Run(map[int]string{150: "150-files", 10_000: "10000-files"}[files], func(b *testing.B) {
			repo := os.Getenv("CRA_BENCH_REPO")
			if repo == "" {
				repo = filepath.Join(b.TempDir(), "repo")
				gittest.Synthetic{Files: files, Commits: 200, Funcs: 4, Realistic: true}.Build(b, repo)
			} else if files != 150 {
				b.Skip("one run on the given repository")
			}
			home := storetest.Home(b)
			if _, err := ingest.IndexRepos(context.Background(), home, []string{repo}, ingest.Options{}); err != nil {
				b.Fatal(err)
			}
			curated, err := kb.Open(context.Background(), home, kb.Curated, kb.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer curated.Close()
			r, err := kb.NewKnowledgeBase(curated.DB).RepoByPath(context.Background(), kb.CanonicalPath(repo))
			if err != nil {
				b.Fatal(err)
			}
			opts := retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
				Source: func(p string) bool { return lang.Supported(lang.LanguageOf(p)) && !walk.VendoredPath(p) }}
			task := "Fix the handler when the session cookie store returns an empty value"
			var cands int
			b.ResetTimer()
			for range b.N {
				g, err := retrieval.LoadKnowledgeGraph(context.Background(), curated.DB, r.ID, opts)
				if err != nil {
					b.Fatal(err)
				}
				cands = len(retrieval.Expand(g, task, retrieval.DefaultLimits))
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/task")
			b.ReportMetric(float64(cands), "candidates")
		})
	}
}
