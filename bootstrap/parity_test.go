package bootstrap

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// No train/serve skew: for commits of a generated repository, retrieval
// over the knowledge base of the parent revision (`cra index --rev parent`)
// proposes the same scope candidates, in the same order, with the same
// reasons and symbols, and so renders the same scope prompt byte for byte,
// as bootstrap's stored ground truth for the commit. (On a linear history
// the commits an index of the parent sees are those committed before the
// commit, which bootstrap's co-change counts use.)
func TestRetrievalOverTheKnowledgeBaseMatchesBootstrap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("indexes several revisions")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	gittest.Synthetic{Files: 30, Commits: 150, Funcs: 3, Realistic: true}.Build(t, repo)
	home := newHome(t)
	opts := testOptions()
	mine(t, home, opts, repo)

	type row struct{ commit, parent, task, target, precision string }
	var tasks []row
	for _, r := range rawRows(t, home, `SELECT k.commit, k.parent, k.task, t.target::VARCHAR, p.target::VARCHAR FROM synthetic_tasks k
		JOIN synthetic_targets t ON t.task_id = k.id AND t.stage = 'scope'
		JOIN synthetic_targets p ON p.task_id = k.id AND p.stage = 'precision'
		WHERE json_array_length(t.target->'candidates') > 1 ORDER BY k.committed_at`) {
		var x row
		parts := strings.SplitN(r, "\t", 5)
		x.commit, x.parent, x.task, x.target, x.precision = parts[0], parts[1], parts[2], parts[3], parts[4]
		tasks = append(tasks, x)
	}
	if len(tasks) < 3 {
		t.Fatalf("only %d tasks with several candidates: the fixture proves little", len(tasks))
	}
	// A few spread over the history: early, middle, late.
	picks := []row{tasks[0], tasks[len(tasks)/2], tasks[len(tasks)-1]}
	lim := retrieval.DefaultLimits
	lim.CoChangeMin = opts.Filter.CoChangeMinCount
	for _, x := range picks {
		t.Run(x.commit[:8], func(t *testing.T) {
			var want schema.ScopeTarget
			if err := json.Unmarshal([]byte(x.target), &want); err != nil {
				t.Fatal(err)
			}
			for i := range want.Candidates {
				want.Candidates[i].Relevant = false // the label; retrieval does not know the answer
			}
			kbHome := storetest.Home(t)
			if _, err := ingest.IndexRepos(context.Background(), kbHome, []string{repo},
				ingest.Options{Rev: x.parent, Jobs: 2, CoChangeMaxFiles: opts.CoChangeMaxFiles}); err != nil {
				t.Fatal(err)
			}
			curated, err := kb.Open(context.Background(), kbHome, kb.Curated, kb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer curated.Close()
			r, err := kb.NewKnowledgeBase(curated.DB).RepoByPath(context.Background(), kb.CanonicalPath(repo))
			if err != nil {
				t.Fatal(err)
			}
			g, err := retrieval.LoadKnowledgeGraph(context.Background(), curated.DB, r.ID,
				retrieval.GraphOptions{LanguageOf: lang.LanguageOf, Source: walk.SourceFile})
			if err != nil {
				t.Fatal(err)
			}
			got := retrieval.Expand(g, x.task, lim)
			tiers := map[int]int{}
			for _, c := range got {
				tiers[c.Tier]++
			}
			t.Logf("%d candidates by tier %v", len(got), tiers)
			if !reflect.DeepEqual(got, want.Candidates) {
				t.Fatalf("candidates differ:\n knowledge base %+v\n bootstrap      %+v", got, want.Candidates)
			}
			if a, b := scopePrompt(x.task, got), scopePrompt(x.task, want.Candidates); a != b {
				t.Errorf("scope prompts differ:\n%s\n---\n%s", a, b)
			}

			// The precision prompt of the touched files, as inference lists
			// their symbols from the knowledge base and as the ground truth
			// holds them.
			var pt schema.PrecisionTarget
			if err := json.Unmarshal([]byte(x.precision), &pt); err != nil {
				t.Fatal(err)
			}
			// Files in the order inference keeps them (expansion order;
			// curate renders its examples in the same order).
			var files []string
			for _, s := range pt.Symbols {
				if !slices.Contains(files, s.File) {
					files = append(files, s.File)
				}
			}
			at := func(p string) int {
				if i := slices.IndexFunc(got, func(c schema.ScopeCandidate) bool { return c.Path == p }); i >= 0 {
					return i
				}
				return len(got)
			}
			slices.SortStableFunc(files, func(a, b string) int { return at(a) - at(b) })
			truth := prompt.PrecisionInput{Task: x.task}
			for _, f := range files {
				for _, s := range pt.Symbols {
					if s.File == f {
						truth.Symbols = append(truth.Symbols, prompt.PrecisionSymbol{File: s.File, QualifiedName: s.QualifiedName, Kind: s.Kind, Signature: s.Signature})
					}
				}
			}
			served := prompt.PrecisionInput{Task: x.task}
			k := kb.NewKnowledgeBase(curated.DB)
			for _, f := range files {
				syms, err := k.GetSymbolsForFile(context.Background(), g.FileIDs()[f], "")
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range retrieval.SymbolCandidates(syms) {
					served.Symbols = append(served.Symbols, c.PrecisionSymbol)
				}
			}
			if a, b := prompt.PrecisionPrompt(served), prompt.PrecisionPrompt(truth); a != b {
				t.Errorf("precision prompts differ:\n%s\n---\n%s", a.User, b.User)
			}
		})
	}
}

// scopePrompt renders the scope prompt of candidates as curate does.
func scopePrompt(task string, cands []schema.ScopeCandidate) string {
	in := prompt.ScopeInput{Task: task}
	for _, c := range cands {
		in.Candidates = append(in.Candidates, prompt.ScopeCandidate{Path: c.Path, Tier: c.Tier, Reason: c.Reason, Symbols: c.Symbols})
	}
	p := prompt.ScopePrompt(in)
	return p.System + "\n" + p.User
}

// Every plan bootstrap stores as ground truth passes the checks the agent's
// plan pass applies to a model's plan (schema.PlanArtifact.Check) against
// its parent state: the ideal answer is never refused.
func TestGroundTruthPlansPassThePlanPassChecks(t *testing.T) {
	t.Parallel()
	r, _ := project(t)
	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	rows := rawRows(t, home, `SELECT k.parent, t.target::VARCHAR FROM synthetic_tasks k
		JOIN synthetic_targets t ON t.task_id = k.id AND t.stage = 'plan'`)
	if len(rows) < 3 {
		t.Fatalf("%d plans: the fixture proves little", len(rows))
	}
	for _, row := range rows {
		parent, target, _ := strings.Cut(row, "\t")
		var plan schema.PlanArtifact
		if err := json.Unmarshal([]byte(target), &plan); err != nil {
			t.Fatal(err)
		}
		exists := func(p string) bool {
			return exec.Command("git", "-C", r.Dir, "cat-file", "-e", parent+":"+p).Run() == nil
		}
		if err := plan.Check(exists); err != nil {
			t.Errorf("parent %.8s: %v", parent, err)
		}
	}
}

// Every task gets meta_plan and part_plan targets that validate and cover
// its plan's files; tasks mined before bootstrap stored them get them on
// the next run, equal to what a fresh mine stores, without a replay.
func TestDecomposedTargetsAndTheirBackfill(t *testing.T) {
	t.Parallel()
	r, _ := project(t)
	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	want := dump(t, home)
	rows := rawRows(t, home, `SELECT p.target::VARCHAR, m.target::VARCHAR, s.target::VARCHAR FROM synthetic_targets p
		JOIN synthetic_targets m ON m.task_id = p.task_id AND m.stage = 'meta_plan'
		JOIN synthetic_targets s ON s.task_id = p.task_id AND s.stage = 'part_plan' WHERE p.stage = 'plan'`)
	if n := len(rawRows(t, home, "SELECT id FROM synthetic_tasks")); len(rows) != n || n < 3 {
		t.Fatalf("%d tasks with plan, meta_plan and part_plan targets of %d", len(rows), n)
	}
	for _, row := range rows {
		parts := strings.Split(row, "\t")
		var plan schema.PlanArtifact
		var meta schema.MetaPlan
		var part schema.PartPlan
		for i, v := range []any{&plan, &meta, &part} {
			if err := json.Unmarshal([]byte(parts[i]), v); err != nil {
				t.Fatal(err)
			}
		}
		if err := errors.Join(meta.Validate(), part.Validate()); err != nil {
			t.Error(err)
		}
		var files []string
		for _, s := range part.Steps {
			files = append(files, s.TargetFiles...)
		}
		if !slices.Equal(files, meta.Parts[0].AffectedFiles) || len(files) != len(plan.AffectedFiles) {
			t.Errorf("steps cover %q, the part %q, the plan %d files", files, meta.Parts[0].AffectedFiles, len(plan.AffectedFiles))
		}
	}
	storetest.Exec(t, home, kb.Raw, "DELETE FROM synthetic_targets WHERE stage IN ('meta_plan', 'part_plan')")
	mine(t, home, testOptions(), r.Dir)
	sameRows(t, dump(t, home), want)
}
