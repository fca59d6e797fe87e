package ask_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// benchQuestions are a question per mode about gittest.Project's
// generated toolkit (every function raises TypeError("<name> expects
// text, not bytes")), and about pallets/click for a real clone.
var benchQuestions = map[string]map[ask.Mode]string{
	"project": {
		ask.Diagnostic:  "Why do I get TypeError: expects text, not bytes?",
		ask.Exploratory: "Trace how the toolkit converts a value through its helpers",
		ask.Analytical:  "Which modules of the toolkit are the most coupled?",
		ask.Conceptual:  "What does the usage error of the current context report?",
	},
	"requests": {
		ask.Diagnostic:  "Why do I get InvalidURL: Invalid URL: No schema supplied?",
		ask.Exploratory: "Trace the flow from Session.request to the adapter's send",
		ask.Analytical:  "Which modules of requests are the most coupled?",
		ask.Conceptual:  "How are cookies persisted across requests?",
	},
	"click": {
		ask.Diagnostic:  "Why do I get UsageError: Missing parameter: name?",
		ask.Exploratory: "Trace the flow from main to parse_args",
		ask.Analytical:  "What are the structural weaknesses of src/click?",
		ask.Conceptual:  "How do shell completion items work?",
	},
}

// BenchmarkRetrieve times one ask's retrieval per mode, the model aside:
// loading the repository's graph, a new Retriever reading the code index,
// call graph, docstrings and texts, and the mode's retrieval. By default
// on a generated repository of real-world size (gittest.Project); with
// CRA_ASK_BENCH_HOME (a cra home) and CRA_ASK_BENCH_REPO (a repository
// indexed in it, e.g. a clone of psf/requests or pallets/click, whose
// questions are asked when the clone's folder has its name) on that
// instead.
func BenchmarkRetrieve(b *testing.B) {
	ctx := context.Background()
	home, repoPath := os.Getenv("CRA_ASK_BENCH_HOME"), os.Getenv("CRA_ASK_BENCH_REPO")
	questions := benchQuestions[filepath.Base(repoPath)] // a clone of psf/requests or pallets/click
	if questions == nil {
		questions = benchQuestions["click"]
	}
	if home == "" {
		questions = benchQuestions["project"]
		repoPath = filepath.Join(b.TempDir(), "repo")
		shape := gittest.Project{Commits: 600}.Build(b, repoPath)
		b.Logf("repository: %s", shape)
		home = storetest.Home(b)
		if _, err := ingest.IndexRepos(ctx, home, []string{repoPath}, ingest.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	s, err := kb.Open(ctx, home, kb.Curated, kb.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	k := kb.NewKnowledgeBase(s.DB)
	repo, err := k.RepoByPath(ctx, kb.CanonicalPath(repoPath))
	if err != nil {
		b.Fatal(err)
	}
	opts := retrieval.GraphOptions{LanguageOf: lang.LanguageOf,
		Source: func(p string) bool { return lang.Supported(lang.LanguageOf(p)) && !walk.VendoredPath(p) }}
	for _, mode := range ask.Modes {
		b.Run(string(mode), func(b *testing.B) {
			var got ask.Retrieval
			for range b.N {
				g, err := retrieval.LoadKnowledgeGraph(ctx, s.DB, repo.ID, opts)
				if err != nil {
					b.Fatal(err)
				}
				r := &ask.Retriever{KB: k, Repo: *repo, Graph: g, Config: defaultAsk()}
				if got, err = r.Retrieve(ctx, ask.Classification{Mode: mode}, questions[mode]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/ask")
			b.ReportMetric(float64(len(got.Sources)), "sources")
			b.ReportMetric(float64(got.Tokens), "tokens")
			b.Logf("%s: %q%s", mode, questions[mode], describe(got.Sources))
		})
	}
}
