package retrieval_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// Preflight names each missing piece with its next step, and lets the run
// go on without enrichment.
func TestPreflight(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("app/store.py", "class Store:\n    pass\n")
	r.Commit("Create the store")
	cfg := config.Default()
	roles := []llm.Role{llm.RoleReasoning, llm.RoleCoding}

	fix := func(err error) string {
		var pe *retrieval.PreflightError
		if !errors.As(err, &pe) {
			t.Fatalf("%v: want a PreflightError", err)
		}
		return pe.Fix
	}
	_, err := retrieval.Preflight(ctx, filepath.Join(t.TempDir(), "none"), cfg, r.Dir, roles...)
	if f := fix(err); !strings.Contains(f, "cra init") {
		t.Errorf("no home: %q", f)
	}
	home := storetest.Home(t)
	_, err = retrieval.Preflight(ctx, home, cfg, r.Dir, roles...)
	if f := fix(err); !strings.Contains(f, "cra index "+r.Dir) {
		t.Errorf("not indexed: %q", f)
	}
	noModel := cfg
	noModel.Models.Reasoning = ""
	_, err = retrieval.Preflight(ctx, home, noModel, r.Dir, roles...)
	if f := fix(err); !strings.Contains(f, "--reasoning-model") {
		t.Errorf("no reasoning model: %q", f)
	}

	if _, err := ingest.IndexRepos(ctx, home, []string{r.Dir}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	ready, err := retrieval.Preflight(ctx, home, cfg, r.Dir, roles...)
	if err != nil || ready.Repo == nil || ready.Enriched {
		t.Fatalf("indexed, not enriched: %+v, %v", ready, err)
	}
	s, err := kb.Open(ctx, home, kb.Curated, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.Exec(`INSERT INTO file_metadata (file_id, purpose) SELECT id, 'keeps values' FROM files`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if ready, err := retrieval.Preflight(ctx, home, cfg, r.Dir, roles...); err != nil || !ready.Enriched {
		t.Errorf("enriched: %+v, %v", ready, err)
	}
}
