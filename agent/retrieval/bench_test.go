package retrieval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// Deterministic retrieval for one task — loading the repository's graph
// from the knowledge base, expanding over it, and (the "pipeline" figure)
// the whole pipeline but the model: symbols, references, the deterministic
// tiers, the files' text, docstrings, comments and history, assembly and
// the session — on a generated repository (CRA_BENCH_REPO=path for any
// clone; `make bench-retrieval`). The model is an in-process stub that
// keeps the first five candidates, makes five symbols primary and the
// others supporting.
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
			b.StopTimer()
			start := time.Now()
			var files int
			for i := range b.N {
				g, err := retrieval.LoadKnowledgeGraph(context.Background(), curated.DB, r.ID, opts)
				if err != nil {
					b.Fatal(err)
				}
				sess, err := kb.OpenSession(home, fmt.Sprintf("bench-%d", i))
				if err != nil {
					b.Fatal(err)
				}
				p := &retrieval.Pipeline{KB: kb.NewKnowledgeBase(curated.DB), Repo: *r, Graph: g, Limits: retrieval.DefaultLimits,
					Budget: llm.Budget{ContextWindow: 32_768, ReservedTokens: 8192, SafetyMargin: 0.1}, MaxRefinements: 1,
					Client:  func(string) (llm.Client, error) { return stubModel{}, nil },
					Record:  func(context.Context, []kb.Decision, []kb.LLMCall) error { return nil },
					Session: sess, Execute: "plan", Log: slog.New(slog.DiscardHandler),
					Render: func(p prompt.Package) prompt.Prompt {
						return prompt.PlanPrompt(prompt.PlanAtomic, prompt.PlanInput{Task: task, Files: p.Files})
					}}
				c, err := p.Run(context.Background(), "bench", task)
				if err != nil {
					b.Fatal(err)
				}
				files = len(c.Package.Files)
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "pipeline-ms/task")
			b.ReportMetric(float64(files), "kept")
		})
	}
}

// stubModel answers instantly: no task analysis, the first five scope
// candidates, the first five symbols primary and the others supporting.
type stubModel struct{}

func (stubModel) Close() error { return nil }

func (stubModel) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	var out any
	switch {
	case strings.HasPrefix(req.System, "You read a coding task"):
		out = map[string]any{"summary": "", "files": []string{}, "symbols": []string{}, "keywords": []string{}}
	case strings.HasPrefix(req.System, "You select the files"):
		var paths []string
		for _, line := range strings.Split(req.Prompt, "\n") {
			if strings.HasPrefix(line, "- ") && len(paths) < 5 {
				paths = append(paths, strings.Fields(line)[1])
			}
		}
		out = map[string]any{"relevant": paths}
	default:
		tiers := map[string]string{}
		for _, line := range strings.Split(req.Prompt, "\n") {
			if key, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), " ("); ok && strings.HasPrefix(line, "- ") {
				tiers[key] = map[bool]string{true: "primary", false: "supporting"}[len(tiers) < 5]
			}
		}
		out = map[string]any{"symbols": tiers}
	}
	b, _ := json.Marshal(out)
	return llm.Response{Text: string(b)}, nil
}
