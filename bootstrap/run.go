package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cra-dev/cra/ingest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

// Options configure a bootstrap run.
type Options struct {
	Jobs             int           // workers per repository and repositories at once; <= 0 means all cores
	MaxCommits       int           // new commits mined per repository this run; 0 means all
	Since            time.Time     // mine only commits committed at or after it; earlier ones stay for a later run
	Wait             time.Duration // how long to wait for a repository another run holds; 0 skips it at once
	Filter           config.Bootstrap
	MaxFileBytes     int64 // changed files larger than this reject the commit; and are not parsed
	CoChangeMaxFiles int
	// MaxParts bounds the commits of a merged branch made one multi-part
	// task ([orchestrator] max_parts); <= 0 means its default.
	MaxParts int
	// MemoryLimit is a soft limit on the Go heap for the run (the
	// runtime's GOMEMLIMIT, restored after it); 0 leaves it as it is.
	MemoryLimit int64
	Progress    ingest.Progress
	Log         *slog.Logger
}

// DefaultMemoryLimit is the Go heap cra bootstrap keeps to. Its caches
// (facts, kept trees, objects) hold about 300 MB at their fullest; at the
// collector's default pace the heap grew to twice that, and the peak RSS
// of psf/requests + pallets/click (DuckDB's and tree-sitter's memory
// besides) went from 820 to 1,000 MiB from run to run. At this limit it
// stayed between 806 and 868 MiB, in the same time and CPU.
const DefaultMemoryLimit = 512 << 20

// Summary is a whole run: the funnel per repository and in total.
type Summary struct {
	RunID       int64          `json:"run_id"`
	Repos       []*RepoResult  `json:"repos"`
	Total       map[string]int `json:"total"` // outcome → commits, over every repository
	Steps       []FunnelStep   `json:"funnel"`
	Seen        int            `json:"seen"`
	Verified    int            `json:"verified"`
	Failed      int            `json:"failed"`
	Busy        int            `json:"busy"` // repositories skipped: another run held them
	Interrupted bool           `json:"interrupted"`
}

// RepoResult is one repository's part of a run.
type RepoResult struct {
	Repo     string `json:"repo"`
	Status   string `json:"status"`
	Error    string `json:"error,omitempty"`
	Indexed  bool   `json:"indexed"` // indexed first: it was not in the knowledge base
	Seen     int    `json:"seen"`    // new commits mined (recorded with an outcome)
	Verified int    `json:"verified"`
	// Walked: commits the history walk delivered (diffed) this run.
	Walked int `json:"walked"`
	// MergeTasks: merged branches made multi-part tasks by this run.
	MergeTasks int `json:"merge_tasks"`
	// BlobsParsed and BytesParsed: the blobs the run parsed (the merge
	// phase's too); each blob is parsed once per run.
	// BlobsLoaded: blobs whose facts an earlier run kept (not parsed).
	BlobsParsed int            `json:"blobs_parsed"`
	BlobsLoaded int            `json:"blobs_loaded"`
	BytesParsed int64          `json:"bytes_parsed"`
	Outcomes    map[string]int `json:"outcomes"` // outcome → commits recorded by this run
	Steps       []FunnelStep   `json:"funnel"`
	Seconds     float64        `json:"seconds"`
}

type runner struct {
	opts    Options
	filter  *Filter
	runID   int64
	dir     string
	storeMu sync.Mutex
	raw     *kb.Lease // raw.duckdb, written through withStore only
	// curatedMu: one open of curated.duckdb at a time in this process.
	curatedMu sync.Mutex
	progress  ingest.Progress
	inFlight  *inFlight
	// cacheBytes bounds each repository's fact cache.
	cacheBytes int64
	// opened, when set (tests), is told of each open of the raw store.
	opened func(dir string)
}

// storeOpened, set by tests only (never while another test runs), is
// each run's runner.opened.
var storeOpened func(dir string)

// withDefaults fills what o leaves unset with index's defaults: the
// batch indexes with the same limits it mines with.
func (o Options) withDefaults() Options {
	d := ingest.Options{Jobs: o.Jobs, MaxFileBytes: o.MaxFileBytes, CoChangeMaxFiles: o.CoChangeMaxFiles,
		Progress: o.Progress, Log: o.Log}.WithDefaults()
	o.Jobs, o.MaxFileBytes, o.CoChangeMaxFiles, o.Progress, o.Log = d.Jobs, d.MaxFileBytes, d.CoChangeMaxFiles, d.Progress, d.Log
	if o.MaxParts <= 0 {
		o.MaxParts = config.Default().Orchestrator.MaxParts
	}
	return o
}

// withStore runs fn with the raw store through the run's lease: writes
// that follow one another closely (a repository's batches, its merge
// phase) share one open, and the lease lets go as soon as another process
// wants the store (kb.Lease), so `cra sql` and `cra status` work in
// between. One caller at a time, so each transaction is whole. A store
// another process holds (a reader, another writer) is waited for, up to
// kb.BatchWait, saying once what it waits for.
func (r *runner) withStore(ctx context.Context, fn func(*rawStore) error) error {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	opens := r.raw.Opens()
	err := r.raw.Write(ctx, func(w kb.Writer) error { return fn(&rawStore{w}) })
	if r.opened != nil && r.raw.Opens() > opens {
		r.opened(r.dir)
	}
	return err
}

func (r *runner) waiting(holder error) {
	r.opts.Log.Warn("waiting for the raw store", "holder", holder.Error(), "up_to", kb.BatchWait)
}

// Run mines the repositories at paths into the raw store of the home dir.
// Each repository is locked for the whole run (another run on it is waited
// for up to opts.Wait, else the repository is skipped as busy).
// Repositories missing from the knowledge base are indexed first. A
// repository that fails is recorded and the batch goes on; the error
// returned is for what stops the whole batch (a store that cannot be
// opened, a cancelled ctx).
func Run(ctx context.Context, dir string, paths []string, opts Options) (_ *Summary, err error) {
	opts = opts.withDefaults()
	if opts.MemoryLimit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(opts.MemoryLimit))
	}
	filter, err := NewFilter(opts.Filter)
	if err != nil {
		return nil, err
	}
	var abs []string // canonical, each once: one repository is never mined twice at once
	seen := map[string]bool{}
	for _, p := range paths {
		if c := kb.CanonicalPath(p); !seen[c] {
			seen[c] = true
			abs = append(abs, c)
		}
	}
	sum := &Summary{Repos: make([]*RepoResult, len(abs)), Total: map[string]int{}}
	locks, err := lockRepos(ctx, dir, abs, opts, sum)
	defer func() {
		for _, l := range locks {
			l.Release() //nolint:errcheck // the kernel drops it at exit anyway
		}
	}()
	if err != nil {
		return nil, err
	}
	var todo []string
	for i, p := range abs {
		if sum.Repos[i] == nil {
			todo = append(todo, p)
		}
	}
	// Every repository's tips, read while the knowledge base is asked
	// which to index: with them, the repositories with no new commit are
	// settled in the run's first open of the store.
	tipsRead := make(chan map[string][]string, 1)
	go func() { tipsRead <- tipsOf(todo, opts.Jobs) }()
	indexed, err := indexMissing(ctx, dir, todo, opts)
	tips := <-tipsRead
	if err != nil {
		return nil, err
	}
	r := &runner{opts: opts, filter: filter, dir: dir, progress: opts.Progress, inFlight: &inFlight{p: opts.Progress}}
	r.opened = storeOpened
	r.raw = kb.NewLease(dir, kb.Raw, kb.Options{Command: "cra bootstrap", Wait: kb.BatchWait, Waiting: r.waiting}, kb.DefaultIdle)
	defer func() {
		// The run's last write is behind it: a failed close (its
		// checkpoint) is the run's error unless it has one already.
		if cerr := r.raw.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	// The total starts at 0, not unknown: each repository adds its commits
	// to build before it builds them, so the count never passes it.
	opts.Progress.Phase("bootstrap", 0)
	opts.Progress.Items(len(todo))
	var live *kb.InputLock
	var status string
	err = r.withStore(ctx, func(s *rawStore) (err error) {
		if err := s.markStaleRuns(ctx, dir); err != nil {
			return err
		}
		r.runID, err = s.beginRun(ctx, len(abs), map[string]any{
			"jobs": opts.Jobs, "max_commits": opts.MaxCommits, "since": opts.Since, "filter": opts.Filter,
			"max_file_bytes": opts.MaxFileBytes, "co_change_max_files": opts.CoChangeMaxFiles,
		})
		if err == nil {
			// Taken before the store is released, so no other run ever
			// sees this row running without its lock.
			live, err = kb.LockRun(dir, runLockKind, r.runID)
		}
		if err != nil {
			return err
		}
		// The repositories with no new commit end here, in this open. Each
		// is a few short queries: Ctrl-C is seen between them, and those
		// not settled by then are left to mine, which reports them
		// interrupted.
		bg := context.WithoutCancel(ctx)
		for i, p := range abs {
			if sum.Repos[i] != nil || tips[p] == nil || ctx.Err() != nil {
				continue
			}
			res, err := r.settle(bg, s, p, tips[p])
			if err != nil {
				return err
			}
			if res != nil {
				res.Indexed = indexed[p]
				sum.Repos[i] = res
			}
		}
		if slices.Contains(sum.Repos, nil) {
			return nil
		}
		// Nothing to mine: the run ends in this open too.
		status = tally(sum)
		return s.finishRun(bg, r.runID, sum.Failed, status)
	})
	defer live.Release() //nolint:errcheck // dropped at exit anyway
	if err != nil {
		return nil, err
	}
	sum.RunID = r.runID
	if status != "" {
		return sum, nil
	}
	// Repositories in parallel too: many small clones are mostly walks and
	// waits. Their fact caches share one budget.
	left := len(slices.DeleteFunc(slices.Clone(sum.Repos), func(r *RepoResult) bool { return r != nil }))
	repoJobs := max(1, min(opts.Jobs, left))
	r.cacheBytes = factCacheBytes / int64(repoJobs)
	var g errgroup.Group
	g.SetLimit(repoJobs)
	for i, p := range abs {
		if sum.Repos[i] != nil {
			continue // busy, or settled
		}
		g.Go(func() error {
			res, err := r.mine(ctx, p)
			res.Indexed = indexed[p]
			sum.Repos[i] = res
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return sum, err
	}
	status = tally(sum)
	bg := context.WithoutCancel(ctx)
	if err := r.withStore(bg, func(s *rawStore) error { return s.finishRun(bg, r.runID, sum.Failed, status) }); err != nil {
		return sum, err
	}
	if sum.Interrupted {
		return sum, ctx.Err()
	}
	return sum, nil
}

// tally adds up the repositories' results into sum and returns the run's
// status.
func tally(sum *Summary) string {
	for _, res := range sum.Repos {
		switch res.Status {
		case kb.StatusInterrupted:
			sum.Interrupted = true
		case kb.StatusFailed:
			sum.Failed++
		case kb.StatusBusy:
			sum.Busy++
		}
		for k, n := range res.Outcomes {
			sum.Total[k] += n
		}
		sum.Seen += res.Seen
		sum.Verified += res.Verified
	}
	sum.Steps = Funnel(sum.Total)
	switch {
	case sum.Interrupted:
		return kb.StatusInterrupted
	case sum.Failed > 0 || sum.Busy > 0:
		return kb.StatusPartial
	}
	return kb.StatusOK
}

// tipsOf reads the tips of each repository at paths, jobs at a time; a
// repository bootstrap cannot mine has none (replay says why).
func tipsOf(paths []string, jobs int) map[string][]string {
	out := make([][]string, len(paths))
	var g errgroup.Group
	g.SetLimit(max(1, jobs))
	for i, p := range paths {
		g.Go(func() error {
			if _, tips, err := openMinable(p); err == nil {
				out[i] = tips
			}
			return nil
		})
	}
	g.Wait() //nolint:errcheck // no job returns one
	m := make(map[string][]string, len(paths))
	for i, p := range paths {
		m[p] = out[i]
	}
	return m
}

// runLockKind names bootstrap's run locks (kb.LockRun).
const runLockKind = "bootstrap"

// lockRepos takes each repository's lock for the run, all within one wait
// of opts.Wait. A repository another run holds gets a busy result in sum.
func lockRepos(ctx context.Context, dir string, paths []string, opts Options, sum *Summary) ([]*kb.InputLock, error) {
	var locks []*kb.InputLock
	deadline := time.Now().Add(opts.Wait)
	for i, p := range paths {
		l, err := kb.LockInput(ctx, dir, "bootstrap", p, "cra bootstrap", max(0, time.Until(deadline)))
		var busy *kb.BusyError
		switch {
		case errors.As(err, &busy):
			sum.Repos[i] = &RepoResult{Repo: p, Status: kb.StatusBusy, Error: busy.Error(), Outcomes: map[string]int{}}
			opts.Log.Warn("repository busy: skipped", "repo", p, "holder_pid", busy.PID, "holder", busy.Command)
		case err != nil:
			return locks, err
		default:
			locks = append(locks, l)
		}
	}
	return locks, nil
}

// mine replays one repository and records a failure or an interruption
// with its reason; the error is for a store that cannot be written.
func (r *runner) mine(ctx context.Context, p string) (*RepoResult, error) {
	start := time.Now()
	r.inFlight.start(p)
	defer r.inFlight.done(p)
	res, err := r.replay(ctx, p)
	res.Repo, res.Seconds = p, time.Since(start).Seconds()
	switch {
	case ctx.Err() != nil:
		res.Status, res.Error = kb.StatusInterrupted, "interrupted"
	case err != nil:
		res.Status, res.Error = kb.StatusFailed, err.Error()
		r.opts.Log.Error("bootstrap failed", "repo", p, "error", err)
	}
	res.Steps = Funnel(res.Outcomes)
	r.opts.Log.Info("bootstrap repository done", "repo", p, "status", res.Status, "seen", res.Seen, "verified", res.Verified)
	if res.Status != kb.StatusFailed && res.Status != kb.StatusInterrupted {
		return res, nil
	}
	bg := context.WithoutCancel(ctx)
	return res, r.withStore(bg, func(s *rawStore) error {
		return s.setRepo(bg, p, r.runID, nil, res.Status, res.Error)
	})
}

// indexMissing indexes the repositories the knowledge base does not have
// yet and reports which it indexed. One bootstrap cannot mine (not a
// repository, a shallow clone, no commits) is not indexed, so it is not
// registered in curated.repos: it fails in replay with its reason, as one
// that fails to index does.
func indexMissing(ctx context.Context, dir string, paths []string, opts Options) (map[string]bool, error) {
	if len(paths) == 0 {
		return map[string]bool{}, nil
	}
	curated, err := kb.Open(ctx, dir, kb.Curated, kb.Options{Command: "cra bootstrap", Wait: kb.BatchWait})
	if err != nil {
		return nil, err
	}
	k := kb.NewKnowledgeBase(curated.DB)
	var missing []string
	for _, p := range paths {
		if _, err := k.RepoByPath(ctx, p); errors.Is(err, kb.ErrNotFound) {
			missing = append(missing, p)
		} else if err != nil {
			curated.Close()
			return nil, fmt.Errorf("knowledge base: %w", err)
		}
	}
	curated.Close()
	missing = slices.DeleteFunc(missing, func(p string) bool {
		_, _, err := openMinable(p)
		return err != nil
	})
	indexed := map[string]bool{}
	if len(missing) == 0 {
		return indexed, nil
	}
	opts.Log.Info("indexing repositories not in the knowledge base yet", "repos", len(missing))
	sum, err := ingest.IndexRepos(ctx, dir, missing, ingest.Options{
		Jobs: opts.Jobs, MaxFileBytes: opts.MaxFileBytes, CoChangeMaxFiles: opts.CoChangeMaxFiles,
		Progress: opts.Progress, Log: opts.Log,
	})
	if sum != nil {
		for _, o := range sum.Repos {
			indexed[o.Repo] = o.Status == kb.StatusOK
		}
	}
	return indexed, err
}
