package retrieval_test

import (
	"context"
	"testing"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Tier 4 over the knowledge base also matches a file's promoted
// description (domain, module, concepts): a task in those words finds a
// file its code never names.
func TestKnowledgeGraphMatchesPromotedMetadata(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("app/ttl.py", "def expire(entries, now):\n    return [e for e in entries if e.deadline > now]\n")
	r.Write("app/api.py", "def handler(request):\n    return request\n")
	r.Write("app/util.py", "def slug(text):\n    return text.lower()\n")
	r.Commit("Create the app")
	home := storetest.Home(t)
	if _, err := ingest.IndexRepos(ctx, home, []string{r.Dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	opts := retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: func(p string) bool { return lang.LanguageOf(p) != "" }}
	load := func() *retrieval.KnowledgeGraph {
		s, err := kb.Open(ctx, home, kb.Curated, kb.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		repo, err := kb.NewKnowledgeBase(s.DB).RepoByPath(ctx, kb.CanonicalPath(r.Dir))
		if err != nil {
			t.Fatal(err)
		}
		g, err := retrieval.LoadKnowledgeGraph(ctx, s.DB, repo.ID, opts)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	task := "Make cache invalidation honour the configured lifetime"
	lim := retrieval.Limits{Lexical: 3, LexicalMinTerms: 1}
	if got := retrieval.Expand(load(), task, lim); len(got) != 0 {
		t.Fatalf("before enrichment: %+v; the code names none of the task's words", got)
	}
	s, err := kb.Open(ctx, home, kb.Curated, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Exec(`INSERT INTO file_metadata (file_id, purpose, module, domain, concepts)
		SELECT id, 'drops stale entries', 'caching', 'cache', ['invalidation', 'lifetime'] FROM files WHERE path = 'app/ttl.py'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got := retrieval.Expand(load(), task, lim)
	if len(got) != 1 || got[0].Path != "app/ttl.py" || got[0].Tier != schema.TierLexical {
		t.Errorf("after enrichment: %+v; want app/ttl.py in tier 4", got)
	}
}
