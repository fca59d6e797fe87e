package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// Options configure one index run.
type Options struct {
	// Rev indexes this revision's tree and history straight from git
	// objects. "" indexes the work tree (HEAD's tree for a bare repository)
	// and the history of HEAD.
	Rev string
	// Jobs is the number of parse workers; <= 0 means all cores.
	Jobs int
	// MaxFileBytes: larger files are skipped as too_large; <= 0 means
	// config.DefaultMaxFileBytes.
	MaxFileBytes int64
	// CoChangeMaxFiles: commits touching more files do not count toward
	// co-change; <= 0 means config.DefaultCoChangeMaxFiles.
	CoChangeMaxFiles int
	// Progress receives phases and counts; nil for none.
	Progress Progress
	// Log receives warnings and per-phase debug lines; nil discards them.
	Log *slog.Logger
	// Wait is how long IndexRepos waits for a repository another run is
	// indexing; 0 skips it at once as busy.
	Wait time.Duration
}

// Progress is how a run reports how far it got (internal/progress
// implements it).
type Progress interface {
	Phase(label string, total int64)
	Add(n int64)
	AddTotal(n int64)
	Items(n int)      // the batch's inputs (repositories)
	Item(name string) // the input being worked on now
	ItemDone()        // one more input finished
}

// Result is what one repository's run did.
type Result struct {
	Repo         string         `json:"repo"`
	RepoID       int64          `json:"repo_id"`
	Rev          string         `json:"rev"` // "worktree" or the indexed commit
	Git          bool           `json:"git"`
	Files        int            `json:"files"`         // indexable files in the tree
	FilesChanged int            `json:"files_changed"` // new or changed, parsed and written
	FilesDeleted int            `json:"files_deleted"`
	FilesSkipped int            `json:"files_skipped"`
	FilesFailed  int            `json:"files_failed"` // recorded without facts: the parser gave up
	SkipReasons  map[string]int `json:"skip_reasons"`
	ErrorNodes   int            `json:"error_nodes"` // tree-sitter error nodes in the parsed files
	Commits      int            `json:"commits"`
	CommitsAdded int            `json:"commits_added"`
	Bytes        int64          `json:"bytes_parsed"`
	Warnings     []string       `json:"warnings,omitempty"`
	Duration     time.Duration  `json:"-"`
	Seconds      float64        `json:"seconds"`
}

// WithDefaults fills what o leaves unset: all cores, the [index] limits'
// defaults, no progress, no log. Bootstrap shares these defaults.
func (o Options) WithDefaults() Options {
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = config.DefaultMaxFileBytes
	}
	if o.CoChangeMaxFiles <= 0 {
		o.CoChangeMaxFiles = config.DefaultCoChangeMaxFiles
	}
	if o.Progress == nil {
		o.Progress = NoProgress{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// NoProgress is a Progress that shows nothing.
type NoProgress struct{}

func (NoProgress) Phase(string, int64) {}
func (NoProgress) Add(int64)           {}
func (NoProgress) AddTotal(int64)      {}
func (NoProgress) Items(int)           {}
func (NoProgress) Item(string)         {}
func (NoProgress) ItemDone()           {}

// Index indexes the repository at path into the curated store db (opened
// for writing): its tree, then its history, then the edges derived from
// both. Every write is a bounded transaction, so an interrupted run leaves
// the store consistent and the next run finishes the job. A cancelled ctx
// returns the result so far with ctx's error.
func Index(ctx context.Context, db *sql.DB, path string, opts Options) (*Result, error) {
	opts = opts.WithDefaults()
	start := time.Now()
	abs := kb.CanonicalPath(path)
	res := &Result{Repo: abs, SkipReasons: map[string]int{}}
	defer func() {
		res.Duration = time.Since(start)
		res.Seconds = res.Duration.Seconds()
	}()
	if fi, err := os.Stat(abs); err != nil {
		return res, err
	} else if !fi.IsDir() {
		return res, fmt.Errorf("%s is not a directory", abs)
	}
	src, err := openSource(abs, opts.Rev)
	if err != nil {
		return res, err
	}
	res.Git, res.Rev = src.git, src.rev()
	for _, w := range src.warnings {
		res.Warnings = append(res.Warnings, w)
		opts.Log.Warn(w, "repo", abs)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	w := &writer{Writer: kb.Writer{Conn: conn}, conn: conn}
	if w.repoID, err = w.upsertRepo(ctx, abs, src); err != nil {
		return res, err
	}
	res.RepoID = w.repoID
	steps := []struct {
		name string
		run  func() error
	}{
		{"files", func() error { return indexTree(ctx, w, src, opts, res) }},
		{"history", func() error { return indexHistory(ctx, w, src, opts, res) }},
		{"derive", func() error { return derive(ctx, w, src, opts) }},
		{"finish", func() error { return w.finishRepo(ctx, src, res) }},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return res, err
			}
			return res, fmt.Errorf("index %s: %s: %w", abs, s.name, err)
		}
	}
	return res, nil
}
