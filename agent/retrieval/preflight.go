package retrieval

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// PreflightError is a missing piece the pipeline cannot run without, and
// what to do about it. Nothing was run.
type PreflightError struct {
	Problem, Fix string
}

func (e *PreflightError) Error() string { return e.Problem + ": " + e.Fix }

// Usage makes it a usage error (internal/usage): nothing was done, exit 2.
func (e *PreflightError) Usage() {}

// Readiness is what preflight found that does not stop the run.
type Readiness struct {
	Repo *kb.Repo
	// Enriched: the repository's files have promoted descriptions
	// (file_metadata), which tier 4's metadata matches read; without them
	// tier 4 matches words only.
	Enriched bool
}

// Preflight checks, before any stage runs, that the pipeline can: a model
// for every role the stages need, the repository in the knowledge base with
// files, and a raw store that can be written. Missing enrichment is not an
// error (Readiness says so).
func Preflight(ctx context.Context, dir string, cfg config.Config, repoPath string, roles ...llm.Role) (*Readiness, error) {
	if err := preflightModels(cfg, roles); err != nil {
		return nil, err
	}
	curated, err := kb.Open(ctx, dir, kb.Curated, kb.Options{Command: "cra preflight", Wait: kb.BatchWait})
	var notInit *kb.NotInitializedError
	if errors.As(err, &notInit) {
		return nil, &PreflightError{Problem: "no knowledge base in " + dir, Fix: "run `cra init`, then `cra index " + repoPath + "`"}
	}
	if err != nil {
		return nil, err
	}
	defer curated.Close()
	return PreflightWith(ctx, curated, dir, cfg, repoPath, roles...)
}

// PreflightWith is Preflight over a knowledge base the caller holds open
// (cra eval's of a past revision), the run logs going to rawDir's raw
// store; rawDir "" leaves out the raw check, for a caller that holds the
// raw store already.
func PreflightWith(ctx context.Context, curated *kb.Store, rawDir string, cfg config.Config, repoPath string, roles ...llm.Role) (*Readiness, error) {
	if err := preflightModels(cfg, roles); err != nil {
		return nil, err
	}
	k := kb.NewKnowledgeBase(curated.DB)
	repo, err := k.RepoByPath(ctx, kb.CanonicalPath(repoPath))
	if errors.Is(err, kb.ErrNotFound) {
		return nil, &PreflightError{Problem: repoPath + " is not in the knowledge base", Fix: "run `cra index " + repoPath + "`"}
	}
	if err != nil {
		return nil, err
	}
	r := &Readiness{Repo: repo}
	files, described, err := k.DescribedFiles(ctx, repo.ID)
	if err != nil {
		return nil, err
	}
	if files == 0 {
		return nil, &PreflightError{Problem: repoPath + " has no indexed file", Fix: "run `cra index " + repoPath + "` (is it the right path?)"}
	}
	r.Enriched = described > 0
	if rawDir == "" {
		return r, nil // the caller writes the run's logs through a store it holds
	}
	// The raw store must take the run's logs: open it for writing once.
	raw, err := kb.Open(ctx, rawDir, kb.Raw, kb.Options{Write: true, Command: "cra preflight", Wait: kb.BatchWait})
	if err != nil {
		return nil, &PreflightError{Problem: "the raw store cannot be written (" + err.Error() + ")", Fix: "free it, or run `cra init` to create it"}
	}
	if err := raw.Close(); err != nil {
		return nil, err
	}
	return r, nil
}

// preflightModels checks there is a model for every role.
func preflightModels(cfg config.Config, roles []llm.Role) error {
	router := llm.NewRouter(cfg)
	for _, role := range roles {
		if _, err := router.Resolve(role, ""); err != nil {
			return &PreflightError{Problem: fmt.Sprintf("no %s model", role), Fix: "run `cra init --" + string(role) + "-model M` or set it in config.toml"}
		}
	}
	return nil
}

// CheckRevision checks that the knowledge base holds repo at rev (a commit
// name git resolves; "" is HEAD): the pipeline reads the indexed state, so
// planning or solving at another revision needs that revision indexed. The
// indexed revision is the commit indexed (`cra index --rev`), or for a
// working tree the HEAD it had then. A repository indexed without history
// (not git, no commit yet) has no revision to check against HEAD.
func CheckRevision(repo *kb.Repo, rev string) error {
	indexed := indexedRevision(repo)
	if rev == "" {
		head, err := resolveCommit(repo.Path, "HEAD")
		if err != nil || indexed == "" || head == indexed {
			return nil
		}
		return &PreflightError{Problem: fmt.Sprintf("the index of %s is at %.12s, HEAD is at %.12s", repo.Path, indexed, head),
			Fix: fmt.Sprintf("run `cra index %s` (or pass --rev %.12s)", repo.Path, indexed)}
	}
	hash, err := resolveCommit(repo.Path, rev)
	if err != nil {
		return &PreflightError{Problem: fmt.Sprintf("--rev %s is no commit of %s", rev, repo.Path), Fix: "name a commit, branch or tag of the repository"}
	}
	if hash != indexed {
		held := repo.TreeRev
		if held == "" || held == "worktree" {
			held = "its working tree"
		}
		return &PreflightError{Problem: fmt.Sprintf("the knowledge base holds %s at %s, not at %s", repo.Path, held, rev),
			Fix: fmt.Sprintf("run `cra index --rev %s %s`", rev, repo.Path)}
	}
	return nil
}

// indexedRevision is the commit whose state the knowledge base holds for
// repo: the commit indexed, or for a working tree the HEAD it had then
// ("" when there was none).
func indexedRevision(repo *kb.Repo) string {
	if repo.TreeRev == "" || repo.TreeRev == "worktree" {
		return repo.HeadCommit
	}
	return repo.TreeRev
}

// resolveCommit is the commit hash rev names in the repository at path.
func resolveCommit(path, rev string) (string, error) {
	out, err := exec.Command("git", "-C", path, "rev-parse", "--verify", "--quiet", rev+"^{commit}").Output()
	if err != nil {
		return "", fmt.Errorf("resolve %s in %s: %w", rev, path, err)
	}
	return strings.TrimSpace(string(out)), nil
}
