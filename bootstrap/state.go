package bootstrap

import (
	"fmt"
	"path"
	"sort"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
	"github.com/cra-dev/cra/ingest/walk"
)

// worker builds ground truth for one commit at a time. It owns its go-git
// storage and its tree-sitter parsers; the fact cache is shared.
type worker struct {
	repo    *git.Repository
	release func()
	parse   *parsing
	cache   *factCache
	tips    *branchTips
	trees   *trees
	mods    *moduleCache
	maxSize int64
	texts   docTexts
}

func (w *worker) close() {
	w.parse.close()
	w.release()
}

// moduleCache maps go.mod blobs to the module path they declare.
type moduleCache struct {
	mu sync.Mutex
	m  map[plumbing.Hash]string
}

// snapshot is the state of the repository at one commit, as replay sees it:
// every regular file, the facts of each source file, and the dependency
// edges between files.
type snapshot struct {
	commit string
	blobs  map[string]plumbing.Hash
	repo   resolve.Repo
	facts  []*facts // parallel to repo.Files; nil where there is no extractor
	index  map[string]int
	deps   []resolve.FileEdge
	texts  docTexts // the worker's
}

// snapshot reads commit's tree and the facts of its source files (parsed
// once per blob and language per run, unless an earlier run kept them)
// and resolves its dependency edges.
func (w *worker) snapshot(commit string) (*snapshot, error) {
	blobs, err := treeFiles(w.repo, commit)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(blobs))
	for p := range blobs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	s := &snapshot{
		commit: commit, blobs: blobs, index: make(map[string]int, len(paths)),
		repo:  resolve.Repo{Files: make([]resolve.File, len(paths)), GoModules: map[string]string{}},
		facts: make([]*facts, len(paths)), texts: w.texts,
	}
	for i, p := range paths {
		s.index[p] = i
		if path.Base(p) == "go.mod" {
			mod, err := w.module(blobs[p])
			if err != nil {
				return nil, err
			}
			if mod != "" {
				dir := path.Dir(p)
				if dir == "." {
					dir = ""
				}
				s.repo.GoModules[dir] = mod
			}
		}
		f, err := w.facts(p, blobs[p], nil)
		if err != nil {
			return nil, err
		}
		s.facts[i] = f
		s.repo.Files[i] = f.resolveFile(p)
	}
	s.deps = resolve.Dependencies(&s.repo)
	return s, nil
}

// facts returns the facts of the blob h at p, nil for a file replay does
// not parse; src is its content when the caller read it already (nil: the
// blob is read if it must be parsed). A blob that cannot be read is an
// error; one that cannot be parsed has facts with failed set.
func (w *worker) facts(p string, h plumbing.Hash, src []byte) (*facts, error) {
	if !walk.SourceFile(p) {
		return nil, nil
	}
	var readErr error
	f := w.cache.get(keyOf(p, h), func() *facts {
		size := int64(len(src))
		if src == nil {
			var err error
			if src, size, err = readBlob(w.repo, h, w.maxSize); err != nil {
				readErr = err
				return nil
			}
		}
		if src == nil {
			return &facts{language: lang.LanguageOf(p), failed: fmt.Sprintf("too large: %d bytes", size)}
		}
		w.cache.parsed.Add(1)
		w.cache.bytes.Add(int64(len(src)))
		return w.parse.from(w.trees, p, src)
	})
	if f == nil {
		if readErr == nil { // another worker failed to read it
			_, _, readErr = readBlob(w.repo, h, w.maxSize)
		}
		return nil, readErr
	}
	return f, nil
}

func (w *worker) module(h plumbing.Hash) (string, error) {
	w.mods.mu.Lock()
	mod, ok := w.mods.m[h]
	w.mods.mu.Unlock()
	if ok {
		return mod, nil
	}
	src, _, err := readBlob(w.repo, h, 1<<20)
	if err != nil {
		return "", err
	}
	mod = resolve.GoModulePath(src)
	w.mods.mu.Lock()
	w.mods.m[h] = mod
	w.mods.mu.Unlock()
	return mod, nil
}
