package bootstrap

import (
	"bytes"
	"compress/flate"
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// The facts of a repository's blobs are kept across runs in curated's
// bootstrap_facts (derived data: losing them costs parses, never rows):
// those of the source blobs in the states a run stopped at, where the
// next run's new commits start. A nightly run loads them into its fact
// cache before replay, so it parses only the blobs its new commits bring.

// factsVersion is bumped by hand when the facts kept, or their stored
// shape, change in a way the binary's build id would not show.
const factsVersion = 1

// extractorKey names the code that computes facts: a stored row under
// another key is ignored, and replaced when the run writes its own. It
// is computed on first use only (a no-change run never needs it).
var extractorKey = sync.OnceValues(func() (string, error) {
	id, err := version.Binary()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%s", factsVersion, id), nil
})

// storedFacts is facts as bootstrap_facts.facts holds them, before
// compression (the language is a key column; facts that failed are never
// stored). No field is omitempty: nil and empty slices come back as they
// went in.
type storedFacts struct {
	Symbols    []lang.Symbol    `json:"symbols"`
	Imports    []lang.Import    `json:"imports"`
	Refs       []lang.Reference `json:"refs"`
	ErrorNodes int              `json:"error_nodes"`
	Terms      []string         `json:"terms"`
}

// encodeFacts is f as bootstrap_facts.facts holds it: its JSON
// (storedFacts), compressed with DEFLATE (the migration says why).
func encodeFacts(f *facts) ([]byte, error) { return new(factEncoder).encode(f) }

// factEncoder is encodeFacts for many facts, one compressor for them all
// (a flate.Writer allocates about 1 MB of tables).
type factEncoder struct {
	zw *flate.Writer
}

func (e *factEncoder) encode(f *facts) ([]byte, error) {
	var buf bytes.Buffer
	if e.zw == nil {
		zw, err := flate.NewWriter(&buf, flate.DefaultCompression)
		if err != nil {
			return nil, err
		}
		e.zw = zw
	} else {
		e.zw.Reset(&buf)
	}
	err := json.NewEncoder(e.zw).Encode(storedFacts{Symbols: f.symbols, Imports: f.imports, Refs: f.refs, ErrorNodes: f.errorNodes, Terms: f.terms})
	if err := errors.Join(err, e.zw.Close()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeFacts(language string, b []byte) (*facts, error) {
	var s storedFacts
	zr := flate.NewReader(bytes.NewReader(b))
	defer zr.Close()
	if err := json.NewDecoder(zr).Decode(&s); err != nil {
		return nil, err
	}
	return &facts{language: language, symbols: s.Symbols, imports: s.Imports, refs: s.Refs, errorNodes: s.ErrorNodes, terms: s.Terms}, nil
}

// withCurated runs fn with curated.duckdb open (for writing when write),
// held for fn only and one repository at a time: a process opens the
// file once at a time, and other processes wait at most kb.BatchWait.
func (r *runner) withCurated(ctx context.Context, write bool, fn func(kb.Writer) error) error {
	r.curatedMu.Lock()
	defer r.curatedMu.Unlock()
	opts := kb.Options{Command: "cra bootstrap", Wait: kb.BatchWait, Waiting: func(holder error) {
		r.opts.Log.Warn("waiting for the curated store", "holder", holder.Error(), "up_to", kb.BatchWait)
		hook("curated wait") //nolint:errcheck // a test's signal only
	}}
	opts.Write = write
	return kb.WithStore(ctx, r.dir, kb.Curated, opts, fn)
}

// loadFacts puts the facts stored for repo under this binary's key into
// cache, in one query, until the cache's bound; it returns the keys it
// put (saveFacts need not encode them again). A store without the table
// yet (migrated by its next writer) has none.
func (r *runner) loadFacts(ctx context.Context, repo string, cache *factCache) (map[factKey]bool, error) {
	key, err := extractorKey()
	if err != nil {
		return nil, err
	}
	loaded := map[factKey]bool{}
	err = r.withCurated(ctx, false, func(w kb.Writer) error {
		var has bool
		if err := w.Conn.QueryRowContext(ctx, `SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = 'bootstrap_facts'`).Scan(&has); err != nil || !has {
			return err
		}
		rows, err := w.Conn.QueryContext(ctx, `SELECT blob, language, facts FROM bootstrap_facts
			WHERE repo_path = ? AND extractor = ?`, repo, key)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var blob, language string
			var stored []byte
			if err := rows.Scan(&blob, &language, &stored); err != nil {
				return err
			}
			f, err := decodeFacts(language, stored)
			if err != nil {
				return fmt.Errorf("stored facts of blob %s: %w", blob, err)
			}
			k := factKey{blob: plumbing.NewHash(blob), language: language}
			if !cache.put(k, f) {
				return nil // full: the rest is parsed when needed
			}
			loaded[k] = true
		}
		return rows.Err()
	})
	return loaded, err
}

var factsColumns = []string{"repo_path", "blob", "language", "extractor", "facts"}

// keptFacts are the facts a run keeps for the next one: the keys of the
// source blobs in the states it stopped at, and the rows of those the
// store lacks, encoded.
type keptFacts struct {
	key  string   // extractorKey
	keep []string // blob:language of every key kept, sorted
	rows [][]driver.Value
}

// factsToKeep takes from cache the facts of the source blobs in the
// states of stops (those loaded from the store are not even encoded): what
// saveFacts writes once the replay's cache is let go. A blob of those
// states the run did not parse (nor load) keeps its row, or gets none
// until a run parses it.
func factsToKeep(repo string, c *clone, stops []string, cache *factCache, loaded map[factKey]bool) (*keptFacts, error) {
	key, err := extractorKey()
	if err != nil {
		return nil, err
	}
	git, release := c.worker()
	defer release()
	wanted := map[factKey]bool{}
	for _, commit := range stops {
		files, err := treeFiles(git, commit)
		if err != nil {
			return nil, err
		}
		for p, h := range files {
			if walk.SourceFile(p) {
				wanted[keyOf(p, h)] = true
			}
		}
	}
	keep := make([]string, 0, len(wanted))
	var rows [][]driver.Value
	var enc factEncoder
	for k := range wanted {
		keep = append(keep, k.blob.String()+":"+k.language)
		if loaded[k] {
			continue
		}
		f := cache.peek(k)
		if f == nil || f.failed != "" {
			continue // failures are not kept: a parse that ran out of time may not next time
		}
		stored, err := enc.encode(f)
		if err != nil {
			return nil, err
		}
		rows = append(rows, []driver.Value{repo, k.blob.String(), k.language, key, stored})
	}
	slices.Sort(keep)
	return &keptFacts{key: key, keep: keep, rows: rows}, nil
}

// saveFacts keeps kept for repo in one transaction: the rows of blobs no
// longer in the kept states, or under another key, are deleted; those the
// store lacks are added.
func (r *runner) saveFacts(ctx context.Context, repo string, kept *keptFacts) (added int, err error) {
	key, keep, rows := kept.key, kept.keep, kept.rows
	err = r.withCurated(ctx, true, func(w kb.Writer) error {
		return w.Tx(ctx, func() error {
			if _, err := w.Conn.ExecContext(ctx, `DELETE FROM bootstrap_facts WHERE repo_path = ?
				AND (extractor <> ? OR blob || ':' || language NOT IN (SELECT unnest(?::VARCHAR[])))`, repo, key, keep); err != nil {
				return err
			}
			if err := hook("facts"); err != nil {
				return err
			}
			added, err = w.AppendNew(ctx, "bootstrap_facts", factsColumns, []string{"repo_path", "blob", "language"}, rows)
			return err
		})
	})
	return added, err
}

// stopStates are the commits whose states the next run most likely
// builds on: the tips of the branches (tags rarely grow: an old release's
// files are not worth keeping), and where a run stopped short (complete
// false), the commits it mined last (no other mined one is their parent).
func stopStates(c *clone, mined []commitInfo, complete bool) ([]string, error) {
	stops, err := c.branchTips()
	if err != nil || complete {
		return stops, err
	}
	below := map[string]bool{}
	for _, cm := range mined {
		for _, p := range cm.Parents {
			below[p] = true
		}
	}
	for _, cm := range mined {
		if !below[cm.Hash] && !slices.Contains(stops, cm.Hash) {
			stops = append(stops, cm.Hash)
		}
	}
	return stops, nil
}
