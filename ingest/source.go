package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cra-dev/cra/ingest/walk"
)

// source is what one run indexes: a work tree or a commit's tree, and the
// head of the history to load.
type source struct {
	path     string
	git      bool
	repo     *git.Repository
	commit   plumbing.Hash // tree read from objects; zero for the work tree
	head     string        // history head; "" when there is no history
	remote   string
	warnings []string
}

// openSource decides what to index at path. A directory that is not a git
// repository is indexed as files only; --rev then is an error.
func openSource(path, rev string) (*source, error) {
	s := &source{path: path}
	repo, err := git.PlainOpen(path)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if rev != "" {
			return nil, fmt.Errorf("%s is not a git repository: --rev needs one", path)
		}
		s.warnings = append(s.warnings, "not a git repository: indexing files only, no history")
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository %s: %w", path, err)
	}
	s.git, s.repo = true, repo
	s.remote = originURL(repo)
	_, wtErr := repo.Worktree()
	bare := errors.Is(wtErr, git.ErrIsBareRepository)
	if rev != "" {
		h, err := repo.ResolveRevision(plumbing.Revision(rev))
		if err != nil {
			return nil, fmt.Errorf("revision %q of %s: %w", rev, path, err)
		}
		s.commit, s.head = *h, h.String()
		return s, nil
	}
	ref, err := repo.Head()
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		s.warnings = append(s.warnings, "no commits yet: indexing files only")
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("HEAD of %s: %w", path, err)
	}
	s.head = ref.Hash().String()
	if bare {
		s.commit = ref.Hash()
	}
	return s, nil
}

// rev names the indexed tree: "worktree" or a commit hash.
func (s *source) rev() string {
	if s.commit.IsZero() {
		return "worktree"
	}
	return s.commit.String()
}

func (s *source) walk(ctx context.Context, opts walk.Options, fn func(walk.Entry) error) error {
	if s.commit.IsZero() {
		return walk.Dir(ctx, s.path, opts, fn)
	}
	return walk.Tree(ctx, s.repo, s.commit, opts, fn)
}

// originURL is the origin remote's first URL without credentials: a token in
// an https remote must never reach the store.
func originURL(repo *git.Repository) string {
	cfg, err := repo.Config()
	if err != nil {
		return ""
	}
	r, ok := cfg.Remotes["origin"]
	if !ok || len(r.URLs) == 0 {
		return ""
	}
	u, err := url.Parse(r.URLs[0])
	if err != nil || u.User == nil {
		return r.URLs[0]
	}
	u.User = nil
	return u.String()
}
