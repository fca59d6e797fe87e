package bootstrap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/cra-dev/cra/ingest/history"
	"github.com/cra-dev/cra/kb/schema"
)

// objectCacheSize bounds the inflated objects shared by a repository's
// workers (go-git's LRU is safe for concurrent use).
const objectCacheSize = 16 * cache.MiByte

// clone is an opened repository from which each worker opens its own
// storage: a go-git Repository is not safe for concurrent use.
type clone struct {
	path   string
	repo   *git.Repository // for the single-goroutine parts (refs)
	worker func() (*git.Repository, func())
}

// openClone opens the repository at path (a work tree or a bare clone) and
// refuses what bootstrap cannot mine: not a repository, a shallow clone
// (its history is cut), a repository without commits.
func openClone(path string) (*clone, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	repo, err := git.PlainOpenWithOptions(path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("not a git repository")
		}
		return nil, err
	}
	st, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("unexpected storage %T", repo.Storer)
	}
	shallow, err := st.Shallow()
	if err != nil {
		return nil, fmt.Errorf("read shallow file: %w", err)
	}
	if len(shallow) > 0 {
		return nil, fmt.Errorf("shallow clone: its history is cut (run `git fetch --unshallow` in %s)", path)
	}
	fs, shared := st.Filesystem(), cache.NewObjectLRU(objectCacheSize)
	c := &clone{path: path, repo: repo}
	c.worker = func() (*git.Repository, func()) {
		s := history.NewStorage(fs, shared)
		r, err := git.Open(s, nil)
		if err != nil { // only fails on a storage without config, which st had
			panic(err)
		}
		return r, func() { _ = s.Close() }
	}
	return c, nil
}

// openMinable opens the repository at path with its tips, or says why
// bootstrap cannot mine it (openClone's reasons, or no commits). Run asks
// it before indexing a repository, so what cannot be mined is never
// registered in the knowledge base either.
func openMinable(path string) (*clone, []string, error) {
	c, err := openClone(path)
	if err != nil {
		return nil, nil, err
	}
	tips, err := c.tips()
	if err != nil {
		return nil, nil, fmt.Errorf("read refs: %w", err)
	}
	if len(tips) == 0 {
		return nil, nil, errors.New("repository has no commits")
	}
	return c, tips, nil
}

// existing keeps the commits of hashes the repository still has: a commit
// an earlier run left unmined may since have been rewritten away (a
// force-push, then gc) and is then no longer anyone's to mine.
func (c *clone) existing(hashes []string) []string {
	var out []string
	for _, h := range hashes {
		if _, err := c.repo.CommitObject(plumbing.NewHash(h)); err == nil {
			out = append(out, h)
		}
	}
	return out
}

// tips returns the commits every branch, remote-tracking branch, tag and
// HEAD point at, sorted and without duplicates: bootstrap mines all of
// them, not only HEAD's first-parent chain. cra's own branches (agentRef)
// are left out, and so is HEAD when it is one of them: a commit only they
// reach is cra's output, never its training data.
func (c *clone) tips() ([]string, error) { return c.refTips(true) }

// branchTips are tips without the tags: the states new commits grow from.
func (c *clone) branchTips() ([]string, error) { return c.refTips(false) }

func (c *clone) refTips(tags bool) ([]string, error) {
	refs, err := c.repo.References()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() != plumbing.HashReference {
			return nil // symbolic refs (HEAD, origin/HEAD) point at refs listed anyway
		}
		name := ref.Name()
		if !name.IsBranch() && !name.IsRemote() && !(tags && name.IsTag()) {
			return nil // notes, stash, pull refs...
		}
		if agentRef(name) {
			return nil
		}
		h, err := c.peel(ref.Hash())
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !h.IsZero() {
			seen[h.String()] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if head, err := c.repo.Head(); err == nil {
		if !agentRef(head.Name()) {
			seen[head.Hash().String()] = true
		}
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, fmt.Errorf("HEAD: %w", err)
	}
	out := make([]string, 0, len(seen))
	for h := range seen {
		out = append(out, h)
	}
	sort.Strings(out)
	return out, nil
}

// agentRef reports whether name is a branch cra solve commits on
// (refs/heads/cra/...) or a remote's copy of one (refs/remotes/<remote>/cra/...).
func agentRef(name plumbing.ReferenceName) bool {
	short := name.String()
	switch {
	case name.IsBranch():
		short = strings.TrimPrefix(short, "refs/heads/")
	case name.IsRemote():
		_, short, _ = strings.Cut(strings.TrimPrefix(short, "refs/remotes/"), "/")
	default:
		return false
	}
	return strings.HasPrefix(short, schema.AgentBranchPrefix)
}

// peel follows annotated tags to the commit they name; a tag of a tree or
// blob gives the zero hash.
func (c *clone) peel(h plumbing.Hash) (plumbing.Hash, error) {
	for range 10 {
		obj, err := c.repo.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return h, err
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			tag, err := object.DecodeTag(c.repo.Storer, obj)
			if err != nil {
				return h, err
			}
			h = tag.Target
		default:
			return plumbing.ZeroHash, nil
		}
	}
	return plumbing.ZeroHash, nil
}

// treeFiles lists the regular files of commit's tree: path → blob.
// Symlinks and submodules are left out (they hold no source).
func treeFiles(repo *git.Repository, commit string) (map[string]plumbing.Hash, error) {
	cm, err := repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", commit, err)
	}
	tree, err := cm.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", commit, err)
	}
	files := map[string]plumbing.Hash{}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("tree of %s: %w", commit, err)
		}
		if e.Mode == filemode.Regular || e.Mode == filemode.Executable || e.Mode == filemode.Deprecated {
			files[filepath.ToSlash(name)] = e.Hash
		}
	}
}

// readBlob returns a blob's content and size; content is nil when the blob
// is larger than limit.
func readBlob(repo *git.Repository, h plumbing.Hash, limit int64) ([]byte, int64, error) {
	obj, err := repo.Storer.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, 0, fmt.Errorf("blob %s: %w", h, err)
	}
	if limit > 0 && obj.Size() > limit {
		return nil, obj.Size(), nil
	}
	if obj.Size() == 0 {
		return []byte{}, 0, nil
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, 0, fmt.Errorf("blob %s: %w", h, err)
	}
	defer r.Close()
	b := make([]byte, obj.Size())
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, 0, fmt.Errorf("blob %s: %w", h, err)
	}
	return b, obj.Size(), nil
}
