package ingest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// ErrNotIndexed: the repository is not in the knowledge base.
var ErrNotIndexed = errors.New("not indexed")

// EnrichOptions configure a `cra enrich` run.
type EnrichOptions struct {
	Model   llm.ModelConfig // the reasoning model (or the enrichment stage's override)
	Jobs    int             // files in flight at once; <= 0 means all cores
	Promote bool            // copy the newest valid output per file into curated file_metadata
	// MaxFileBytes: larger files are not sent to the model; <= 0 means 64 KiB.
	MaxFileBytes int64
	Progress     Progress
	Log          *slog.Logger
	// NewClient builds the model client; nil means llm.New (tests inject
	// options such as a recorded sleep through it).
	NewClient func(llm.ModelConfig) (llm.Client, error)
	// Wait is how long to wait for another run enriching the same
	// repository; 0 gives a *kb.BusyError at once.
	Wait time.Duration
}

// EnrichSummary is what an enrich run did.
type EnrichSummary struct {
	Repo     string   `json:"repo"`
	Model    string   `json:"model"`
	Files    int      `json:"files"`    // files considered
	Skipped  int      `json:"skipped"`  // already had a valid output for their content
	Enriched int      `json:"enriched"` // got a valid output this run
	Retried  int      `json:"retried"`  // needed a second call after malformed JSON
	Failed   int      `json:"failed"`   // recorded as failed
	TooLarge int      `json:"too_large"`
	Promoted int      `json:"promoted"`
	Errors   []string `json:"errors,omitempty"` // one per failed file
}

// enrichFile is a file to describe.
type enrichFile struct {
	kb.File
	symbols []string
}

// Enrich asks the model to describe every file of an indexed repository
// whose current content has no valid description by this model yet,
// records every output in raw.enrichment_outputs (and every call in
// raw.retrieval_llm_calls), and with Promote copies the newest valid
// output per file into curated file_metadata. One file failing is recorded
// and the run goes on; the error returned is for what stops the run.
func Enrich(ctx context.Context, dir, repoPath string, opts EnrichOptions) (*EnrichSummary, error) {
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = 64 << 10
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.NewClient == nil {
		opts.NewClient = func(cfg llm.ModelConfig) (llm.Client, error) { return llm.New(cfg) }
	}
	path := kb.CanonicalPath(repoPath)
	lock, err := kb.LockInput(ctx, dir, "enrich", path, "cra enrich", opts.Wait)
	if err != nil {
		return nil, err
	}
	defer lock.Release() //nolint:errcheck // dropped at exit anyway
	sum := &EnrichSummary{Repo: path, Model: opts.Model.Model}
	repo, files, err := enrichTargets(ctx, dir, path)
	if err != nil {
		return nil, err
	}
	sum.Files = len(files)

	// Every call and output is written as it comes, through a lease: the
	// raw store stays open while writes come close together and is let go
	// while the model thinks, so `cra sql` works during a long enrich.
	raw := kb.NewLease(dir, kb.Raw, kb.Options{Command: "cra enrich", Wait: kb.BatchWait}, kb.DefaultIdle)
	err = enrichFiles(ctx, raw, files, repo, path, opts, sum)
	if err = errors.Join(err, raw.Close()); err != nil {
		return sum, err
	}
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	if opts.Promote {
		if sum.Promoted, err = promote(ctx, dir, repo.ID, opts.Model.Model); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// enrichFiles describes the files that have no valid description by the
// model yet, recording each output and call through w.
func enrichFiles(ctx context.Context, raw *kb.Lease, files []enrichFile, repo *kb.Repo, path string, opts EnrichOptions, sum *EnrichSummary) error {
	done := map[string]bool{}
	if err := raw.Write(ctx, func(w kb.Writer) error {
		rows, err := w.Conn.QueryContext(ctx, `SELECT DISTINCT file_path || '@' || content_hash FROM enrichment_outputs
			WHERE valid AND model = ?`, opts.Model.Model)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return err
			}
			done[k] = true
		}
		return errors.Join(rows.Err(), rows.Close())
	}); err != nil {
		return err
	}
	// One transaction at a time: the lease serialises its writers.
	write := func(ctx context.Context, fn func(w kb.Writer) error) error {
		return raw.Write(ctx, func(w kb.Writer) error { return w.Tx(ctx, func() error { return fn(w) }) })
	}

	inner, err := opts.NewClient(opts.Model)
	if err != nil {
		return err
	}
	client := llm.NewLogged(inner, opts.Model, func(ctx context.Context, calls []kb.LLMCall) error {
		return write(ctx, func(w kb.Writer) error { return kb.AppendLLMCalls(w, calls) })
	})
	src := &fileSource{repo: repo}
	var todo []enrichFile
	for _, f := range files {
		if done[f.Path+"@"+f.ContentHash] {
			sum.Skipped++
			continue
		}
		todo = append(todo, f)
	}
	if opts.Progress != nil {
		opts.Progress.Phase("enrich", int64(len(todo)))
	}
	var smu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Jobs)
	for _, f := range todo {
		if gctx.Err() != nil {
			break // cancelled, or a fatal model error: launch nothing more
		}
		g.Go(func() error {
			out := describe(gctx, client, src, f, opts, path)
			if out.cancelled {
				return nil // never attempted, or cut off: nothing to record
			}
			err := write(ctx, func(w kb.Writer) error { return appendEnrichment(w, out) })
			smu.Lock()
			defer smu.Unlock()
			switch {
			case out.tooLarge:
				sum.TooLarge++
			case out.valid:
				sum.Enriched++
			default:
				sum.Failed++
				sum.Errors = append(sum.Errors, f.Path+": "+out.err)
			}
			if out.retried {
				sum.Retried++
			}
			if opts.Progress != nil {
				opts.Progress.Add(1)
			}
			if err == nil && out.fatal != nil {
				err = fmt.Errorf("enrich stopped: %w", out.fatal)
			}
			return err
		})
	}
	err = g.Wait()
	if cerr := client.Close(); err == nil {
		err = cerr
	}
	return err
}

// enrichTargets reads the repository and its files from the knowledge base.
func enrichTargets(ctx context.Context, dir, path string) (*kb.Repo, []enrichFile, error) {
	curated, err := kb.Open(ctx, dir, kb.Curated, kb.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer curated.Close()
	k := kb.NewKnowledgeBase(curated.DB)
	repo, err := k.RepoByPath(ctx, path)
	if errors.Is(err, kb.ErrNotFound) {
		return nil, nil, fmt.Errorf("%s: %w: run `cra index %s` first", path, ErrNotIndexed, path)
	}
	if err != nil {
		return nil, nil, err
	}
	files, err := k.GetFiles(ctx, repo.ID, "")
	if err != nil {
		return nil, nil, err
	}
	// The first 40 top-level symbols of every file, in one query.
	rows, err := curated.DB.QueryContext(ctx, `SELECT file_id, name FROM symbols
		WHERE file_id IN (SELECT id FROM files WHERE repo_id = ?) AND parent_symbol_id IS NULL
		QUALIFY row_number() OVER (PARTITION BY file_id ORDER BY start_line, id) <= 40
		ORDER BY file_id, start_line, id`, repo.ID)
	if err != nil {
		return nil, nil, err
	}
	symbols := map[int64][]string{}
	for rows.Next() {
		var id int64
		var n string
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return nil, nil, err
		}
		symbols[id] = append(symbols[id], n)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, nil, err
	}
	var out []enrichFile
	for _, f := range files {
		if f.Language != "" {
			out = append(out, enrichFile{File: f, symbols: symbols[f.ID]})
		}
	}
	return repo, out, nil
}

// fileSource reads a file as it was indexed: from the work tree, or from
// the indexed commit's objects.
type fileSource struct {
	repo *kb.Repo
	mu   sync.Mutex
	git  *git.Repository
}

func (s *fileSource) read(f kb.File) ([]byte, error) {
	var b []byte
	var err error
	if s.repo.TreeRev == "" || s.repo.TreeRev == "worktree" {
		b, err = os.ReadFile(filepath.Join(s.repo.Path, filepath.FromSlash(f.Path)))
	} else {
		b, err = s.readRev(f.Path)
	}
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.ContentHash {
		return nil, fmt.Errorf("changed since it was indexed: run `cra index %s`", s.repo.Path)
	}
	return b, nil
}

func (s *fileSource) readRev(p string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.git == nil {
		r, err := git.PlainOpenWithOptions(s.repo.Path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
		if err != nil {
			return nil, err
		}
		s.git = r
	}
	c, err := s.git.CommitObject(plumbing.NewHash(s.repo.TreeRev))
	if err != nil {
		return nil, err
	}
	file, err := c.File(p)
	if err != nil {
		return nil, err
	}
	text, err := file.Contents()
	return []byte(text), err
}

// enrichment is one file's outcome, as enrichment_outputs records it.
type enrichment struct {
	file           enrichFile
	model          string
	task           string
	system, user   string
	response       string
	meta           prompt.FileMetadata
	valid, retried bool
	tooLarge       bool
	err            string
	fatal          error // the model cannot answer any file: stop the batch
	cancelled      bool  // the run stopped before this file got an answer: not recorded
}

// describe asks the model about one file; malformed JSON is asked once more.
func describe(ctx context.Context, c llm.Client, src *fileSource, f enrichFile, opts EnrichOptions, repo string) enrichment {
	out := enrichment{file: f, model: opts.Model.Model, task: "enrich:" + repo}
	if ctx.Err() != nil {
		out.cancelled = true
		return out
	}
	if f.SizeBytes > opts.MaxFileBytes {
		out.tooLarge, out.err = true, fmt.Sprintf("%d bytes > %d", f.SizeBytes, opts.MaxFileBytes)
		return out
	}
	content, err := src.read(f.File)
	if err != nil {
		out.err = err.Error()
		return out
	}
	p := prompt.EnrichPrompt(prompt.EnrichInput{Path: f.Path, Language: f.Language, Symbols: f.symbols, Content: string(content)})
	out.system, out.user = p.System, p.User
	for attempt := range 2 {
		resp, err := c.Complete(ctx, llm.Request{System: p.System, Prompt: p.User, JSON: true,
			TaskID: out.task, CallType: schema.StageEnrichment, StageName: schema.StageEnrichment})
		if err != nil {
			if ctx.Err() != nil {
				out.cancelled = true
				return out
			}
			out.err = err.Error()
			if errors.Is(err, llm.ErrModelNotFound) || errors.Is(err, llm.ErrAuth) || errors.Is(err, llm.ErrUnreachable) {
				out.fatal = err
			}
			return out
		}
		out.response = resp.Text
		if out.meta, err = prompt.ParseEnrich(resp.Text); err == nil {
			out.valid, out.err = true, ""
			return out
		}
		out.err = err.Error()
		out.retried = attempt == 0
	}
	return out
}

var enrichColumns = []string{"file_id", "file_path", "content_hash", "model", "purpose", "module", "domain", "concepts",
	"public_api_surface", "complexity_notes", "system_prompt", "raw_prompt", "raw_response", "valid", "error", "timestamp"}

func appendEnrichment(w kb.Writer, e enrichment) error {
	var errText any
	if e.err != "" {
		errText = e.err
	}
	list := func(xs []string) any {
		if xs == nil {
			return []string{}
		}
		return xs
	}
	row := []driver.Value{e.file.ID, e.file.Path, e.file.ContentHash, e.model, e.meta.Purpose, e.meta.Module,
		e.meta.Domain, list(e.meta.Concepts), list(e.meta.PublicAPISurface), e.meta.ComplexityNotes,
		e.system, e.user, e.response, e.valid, errText, time.Now().UTC()}
	return w.AppendAll("enrichment_outputs", enrichColumns, [][]driver.Value{row})
}

// promote copies, per file of the repository, the newest valid output by
// model for its current content into curated file_metadata, and marks
// those outputs promoted in the raw store. DuckDB writes one attached
// database per transaction: the curated swap is one, the raw mark another
// (a kill in between leaves file_metadata right and the marks to redo).
func promote(ctx context.Context, dir string, repoID int64, model string) (int, error) {
	a, err := kb.AttachWith(ctx, dir, kb.Options{Write: true, Command: "cra enrich", Wait: kb.BatchWait})
	if err != nil {
		return 0, err
	}
	defer a.Close()
	const newest = `SELECT f.id AS file_id, o.id AS output_id, o.purpose, o.module, o.domain, o.concepts,
			o.public_api_surface, o.complexity_notes
		FROM curated.files f JOIN (SELECT * FROM raw.enrichment_outputs WHERE valid AND model = $model
			QUALIFY row_number() OVER (PARTITION BY file_path, content_hash ORDER BY timestamp DESC, id DESC) = 1) o
		ON o.file_path = f.path AND o.content_hash = f.content_hash
		WHERE f.repo_id = $repo`
	args := []any{sql.Named("model", model), sql.Named("repo", repoID)}
	var n int
	err = (kb.Writer{Conn: a.Conn}).Tx(ctx, func() error {
		if _, err := a.Conn.ExecContext(ctx, `DELETE FROM curated.file_metadata
			WHERE file_id IN (SELECT id FROM curated.files WHERE repo_id = ?)`, repoID); err != nil {
			return err
		}
		res, err := a.Conn.ExecContext(ctx, `INSERT INTO curated.file_metadata
			SELECT file_id, purpose, module, domain, concepts, public_api_surface, complexity_notes FROM (`+newest+`)`, args...)
		if err != nil {
			return err
		}
		c, err := res.RowsAffected()
		n = int(c)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("promote: %w", err)
	}
	if _, err := a.Conn.ExecContext(ctx, `UPDATE raw.enrichment_outputs SET promoted = true
		WHERE id IN (SELECT output_id FROM (`+newest+`))`, args...); err != nil {
		return n, fmt.Errorf("promote: mark outputs: %w", err)
	}
	return n, nil
}
