package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"

	"golang.org/x/sync/errgroup"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
	"github.com/cra-dev/cra/ingest/walk"
)

// fileJob is one file of the tree whose content is new or changed.
type fileJob struct {
	id       int64 // existing files.id, 0 for a new path
	path     string
	language string
	hash     string
	size     int64
	content  []byte
}

// parsedFile is a fileJob after extraction: facts is nil for a language
// without an extractor, err set when the parser gave up on the file.
type parsedFile struct {
	fileJob
	facts *lang.FileFacts
	err   error
}

type knownFile struct {
	id   int64
	hash string
}

// Batch bounds: a transaction holds at most this many files or rows, so a
// kill loses little and memory stays flat.
const (
	batchFiles = 256
	batchRows  = 50_000
)

// indexTree walks the tree, parses new and changed files in parallel (one
// extractor set per worker) and writes them from this goroutine; then it
// removes files that left the tree and records the skips.
func indexTree(ctx context.Context, w *writer, src *source, opts Options, res *Result) error {
	known, err := w.knownFiles(ctx)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(known))
	var skips []walk.Entry
	goMods := map[string]string{}

	jobs := make(chan fileJob, opts.Jobs*4)
	parsed := make(chan parsedFile, opts.Jobs*4)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(cctx)
	// The phase starts before the walk counts files into it: started after,
	// it would reset the count of the files already walked (a bar reading
	// 3097/3096).
	opts.Progress.Phase("files", 0)
	g.Go(func() error {
		defer close(jobs)
		return src.walk(gctx, walk.Options{MaxFileBytes: opts.MaxFileBytes}, func(e walk.Entry) error {
			if e.Skip != "" {
				skips = append(skips, e)
				return nil
			}
			res.Files++
			seen[e.Path] = true
			if path.Base(e.Path) == "go.mod" {
				goMods[path.Dir(e.Path)] = resolve.GoModulePath(e.Content)
			}
			sum := sha256.Sum256(e.Content)
			hash := hex.EncodeToString(sum[:])
			k := known[e.Path]
			if k.id != 0 && k.hash == hash {
				return nil
			}
			opts.Progress.AddTotal(1)
			select {
			case jobs <- fileJob{id: k.id, path: e.Path, language: e.Language, hash: hash, size: e.Size, content: e.Content}:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	workers, wctx := errgroup.WithContext(gctx)
	for range opts.Jobs {
		workers.Go(func() error {
			set := lang.NewSet()
			defer set.Close()
			for j := range jobs {
				p := parse(set, j)
				select {
				case parsed <- p:
				case <-wctx.Done():
					return wctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(parsed)
		return workers.Wait()
	})

	writeErr := writeParsed(ctx, w, parsed, opts, res)
	if writeErr != nil {
		// Stop and unblock the producers, then report the writer's error.
		cancel()
		for range parsed {
		}
	}
	if err := g.Wait(); writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		return writeErr
	}
	var gone []int64
	for p, k := range known {
		if !seen[p] {
			gone = append(gone, k.id)
		}
	}
	res.FilesDeleted = len(gone)
	for _, s := range skips {
		res.FilesSkipped++
		res.SkipReasons[s.Skip]++
	}
	w.goModules = goMods
	return w.Tx(ctx, func() error {
		if err := w.deleteFiles(ctx, gone, true); err != nil {
			return err
		}
		if len(gone) > 0 {
			if err := w.markStale(ctx); err != nil {
				return err
			}
		}
		return w.replaceSkips(ctx, skips)
	})
}

func parse(set *lang.Set, j fileJob) parsedFile {
	p := parsedFile{fileJob: j}
	if !walk.SourceFile(j.path) { // the walk left vendored directories out already
		return p
	}
	ex, err := set.ForPath(j.path)
	if err != nil || ex == nil {
		p.err = err
		return p
	}
	p.facts, p.err = ex.Extract(j.path, j.content)
	if p.err != nil {
		p.err = fmt.Errorf("parse %s: %w", j.path, p.err)
	}
	return p
}

// writeParsed writes parsed files in bounded transactions as they arrive.
func writeParsed(ctx context.Context, w *writer, parsed <-chan parsedFile, opts Options, res *Result) error {
	var batch []parsedFile
	rows := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := w.Tx(ctx, func() error { return w.writeFiles(ctx, batch) }); err != nil {
			return err
		}
		opts.Progress.Add(int64(len(batch)))
		batch, rows = batch[:0], 0
		return nil
	}
	for p := range parsed {
		res.FilesChanged++
		res.Bytes += p.size
		if p.err != nil {
			res.FilesFailed++
			opts.Log.Warn("file recorded without facts", "repo", res.Repo, "path", p.path, "error", p.err)
		}
		if p.facts != nil {
			res.ErrorNodes += p.facts.ErrorNodes
		}
		p.content = nil // written rows are built from facts; free the bytes early
		batch = append(batch, p)
		rows += 1 + factRows(p.facts)
		if len(batch) >= batchFiles || rows >= batchRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return flush()
}

func factRows(f *lang.FileFacts) int {
	if f == nil {
		return 0
	}
	return len(f.Symbols) + len(f.Docstrings) + len(f.Comments) + len(f.Imports) + len(f.References)
}
