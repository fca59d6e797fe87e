package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"

	"github.com/cra-dev/cra/ingest/history"
	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/linediff"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// commitInfo is a commit as the history walk delivers it.
type commitInfo = history.Commit

// Outcomes of a commit beyond the filter's rejection reasons.
const (
	OutcomeVerified       = "verified"              // ground truth built and the edits round-trip: stored
	OutcomeRootCommit     = "root_commit"           // no parent to build against
	OutcomeSpecialFile    = "special_file"          // changes a symlink or submodule
	OutcomeInvalidUTF8    = "invalid_utf8"          // a changed file is not valid UTF-8
	OutcomeTooLarge       = "file_too_large"        // a changed file is over [index] max_file_bytes
	OutcomeParentParse    = "parent_parse_error"    // a changed source file does not parse at the parent
	OutcomeEditRoundtrip  = "edit_roundtrip_failed" // the edits do not reproduce the child byte for byte
	OutcomeGroundTruthErr = "error"                 // an object could not be read
)

// batchCommits bounds one write transaction.
const batchCommits = 256

// errEnough stops the walk once --max-commits commits are collected.
var errEnough = errors.New("enough commits")

// replay mines one repository's new commits. It returns the repository's
// result; err is set when the repository failed as a whole.
func (r *runner) replay(ctx context.Context, path string) (*RepoResult, error) {
	res := &RepoResult{Repo: path, Outcomes: map[string]int{}}
	c, tips, err := openMinable(path)
	if err != nil {
		return res, err
	}
	var front, wanted []string
	var known, walked map[string]knownCommit
	upToDate := false
	err = r.withStore(ctx, func(s *rawStore) error {
		if err := r.backfill(ctx, s, path); err != nil {
			return err
		}
		prev, err := s.watermark(ctx, path)
		if err != nil {
			return err
		}
		if front, err = s.frontier(ctx, path); err != nil {
			return err
		}
		front = c.existing(front)
		same := slices.Equal(prev, tips) && len(front) == 0
		if same {
			n, err := s.unminedSince(ctx, path, r.opts.Since)
			if err != nil {
				return err
			}
			upToDate = n == 0
		}
		if !upToDate {
			if known, err = s.knownCommits(ctx, path); err != nil {
				return err
			}
			if walked, err = s.walkedCommits(ctx, path); err != nil {
				return err
			}
			wanted = c.existing(r.toMine(walked))
			upToDate = same && len(wanted) == 0 // what is left to mine is gone
		}
		if upToDate {
			return r.upToDate(ctx, s, path, tips, res)
		}
		return nil
	})
	if err != nil || upToDate {
		return res, err
	}

	// The new commits, parents first, from every tip, from the commits
	// earlier runs left below recorded or walked ones, and from the walked
	// ones this run mines (wanted). All of them feed co-change counts;
	// those outside --since are not mined (nor recorded), so a later run
	// still mines them, but they are kept as walked: later runs neither
	// walk nor diff them again until they mine them.
	var fresh, toMine []commitInfo
	delivered := map[string]bool{}
	isWanted := map[string]bool{}
	for _, h := range wanted {
		isWanted[h] = true
	}
	isKnown := func(h string) bool {
		_, rec := known[h]
		_, walk := walked[h]
		return rec || walk && !isWanted[h] || delivered[h]
	}
	starts := append(slices.Clone(tips), front...)
	starts = append(starts, heads(wanted, walked)...)
	complete := true
	mineFrom := func(start string) error {
		err := history.Walk(ctx, path, start, history.Options{Workers: r.opts.Jobs, Known: isKnown}, func(cm commitInfo) error {
			delivered[cm.Hash] = true
			res.Walked++
			fresh = append(fresh, cm)
			if !r.opts.Since.IsZero() && cm.CommitTime.Before(r.opts.Since) {
				return nil
			}
			if r.opts.MaxCommits > 0 && len(toMine) >= r.opts.MaxCommits {
				return errEnough
			}
			toMine = append(toMine, cm)
			return nil
		})
		if errors.Is(err, errEnough) {
			complete = false
			return nil
		}
		if err != nil {
			return fmt.Errorf("walk history from %s: %w", start[:12], err)
		}
		return nil
	}
	for _, start := range starts {
		if err := mineFrom(start); err != nil || !complete {
			if err != nil {
				return res, err
			}
			break
		}
	}
	// A wanted commit below a gone one (history rewritten) has no head
	// above it: it starts a walk of its own.
	for _, h := range wanted {
		if !complete {
			break
		}
		if !delivered[h] {
			if err := mineFrom(h); err != nil {
				return res, err
			}
		}
	}
	if !complete {
		// Co-change counts see every commit committed before the one
		// mined, wherever the walk would deliver it: a branch merged later
		// comes after younger commits of the first-parent line, another
		// tip's commits after the whole first tip. The rest of the walk is
		// planned, and the commits older than the youngest one mined are
		// read for their files; so where a batch ends changes no count.
		// Walked commits have theirs already.
		var youngest time.Time
		for _, cm := range toMine {
			if cm.CommitTime.After(youngest) {
				youngest = cm.CommitTime
			}
		}
		// A commit this pass has planned is settled, wanted or not (so are
		// its ancestors): later walks stop there.
		planned := map[string]bool{}
		older := func(h string, at time.Time) bool { planned[h] = true; return at.Before(youngest) }
		isPlanned := func(h string) bool {
			_, walk := walked[h]
			return isKnown(h) || walk || planned[h]
		}
		for _, start := range starts {
			err := history.Walk(ctx, path, start, history.Options{Workers: r.opts.Jobs, Known: isPlanned, Want: older}, func(cm commitInfo) error {
				delivered[cm.Hash] = true
				res.Walked++
				fresh = append(fresh, cm)
				return nil
			})
			if err != nil {
				return res, fmt.Errorf("walk history from %s: %w", start[:12], err)
			}
		}
	}

	// Co-change history: every commit known, old and new, once.
	var cos []coCommit
	for _, m := range []map[string]knownCommit{known, walked} {
		for _, k := range m {
			if !k.merge {
				cos = append(cos, k.co)
			}
		}
	}
	mining := map[string]bool{}
	for _, cm := range toMine {
		mining[cm.Hash] = true
	}
	var unmined []commitInfo
	for _, cm := range fresh {
		if _, ok := walked[cm.Hash]; ok {
			continue
		}
		if !cm.IsMerge() {
			cos = append(cos, coCommit{at: cm.CommitTime, files: changedPaths(cm)})
		}
		if !mining[cm.Hash] {
			unmined = append(unmined, cm)
		}
	}
	co := newCoHistory(cos, r.opts.CoChangeMaxFiles)
	if len(unmined) > 0 {
		if err := r.withStore(ctx, func(s *rawStore) error { return s.writeWalked(ctx, path, unmined) }); err != nil {
			return res, err
		}
	}

	results := make([]*result, len(toMine))
	var work []int
	for i, cm := range toMine {
		results[i] = &result{commit: cm}
		if reason, detail := r.precheck(cm); reason != "" {
			results[i].outcome, results[i].detail = reason, detail
			continue
		}
		work = append(work, i)
	}
	r.progress.AddTotal(int64(len(work)))
	cache := newFactCache(r.cacheBytes)
	// The build keeps what the merge phase will read of its parses.
	merged := newBranchTips(runGraph(ctx, path, known, walked, fresh), toMine, r.opts.MaxParts, r.cacheBytes)
	var loaded map[factKey]bool
	if len(work) > 0 {
		// What earlier runs parsed of the states these commits grow from.
		if loaded, err = r.loadFacts(ctx, path, cache); err != nil {
			r.opts.Log.Warn("bootstrap cannot read the facts earlier runs kept: it parses them", "repo", path, "error", err)
		}
		res.BlobsLoaded = len(loaded)
	}
	err = r.build(ctx, c, cache, merged, co, toMine, results, work, res)
	res.BlobsParsed, res.BytesParsed = int(cache.parsed.Load()), cache.bytes.Load()
	if err != nil {
		return res, err
	}
	res.Status = kb.StatusOK
	var mark []string
	if complete {
		mark = tips
	} else {
		res.Status = kb.StatusPartial
	}
	// What the next run needs of this run's parses, taken now: the
	// replay's cache is let go before the merge phase, whose reads of
	// the parts are the run's other peak of memory. A run that built
	// nothing (its new commits all filtered out) parsed nothing to keep:
	// the facts kept before stay for the next run that builds.
	var kept *keptFacts
	if len(work) > 0 {
		stops, err := stopStates(c, toMine, complete)
		if err == nil {
			kept, err = factsToKeep(path, c, stops, cache, loaded)
		}
		if err != nil {
			r.opts.Log.Warn("bootstrap cannot keep the facts it parsed: the next run parses them again", "repo", path, "error", err)
		}
	}
	cache = nil
	err = r.withStore(ctx, func(s *rawStore) error {
		n, err := s.mergeTasks(ctx, path, r.runID, r.opts.MaxParts, r.opts.Jobs, merged.facts)
		res.BlobsParsed += int(merged.facts.parsed.Load())
		res.BytesParsed += merged.facts.bytes.Load()
		if err != nil {
			return err
		}
		res.MergeTasks = n
		return s.setRepo(ctx, path, r.runID, mark, res.Status, "")
	})
	if err != nil {
		return res, err
	}
	// Last, and only a cache: a run stopped before it, or that cannot
	// write it, leaves the next run more to parse, nothing else.
	if kept == nil {
		return res, nil
	}
	if _, err := r.saveFacts(ctx, path, kept); err != nil && ctx.Err() == nil {
		r.opts.Log.Warn("bootstrap cannot keep the facts it parsed: the next run parses them again", "repo", path, "error", err)
	}
	return res, nil
}

// settle ends the run of a repository with no new commit in s, the run's
// first open of the store (Run reads every repository's tips before it):
// none of its tips is new, no commit is left below those recorded or
// walked, no walked commit is within --since. A no-change run is then one
// open of the store, not one per repository. It returns nil when there is
// work, or a commit left below may be gone: replay sees to it.
func (r *runner) settle(ctx context.Context, s *rawStore, path string, tips []string) (*RepoResult, error) {
	start := time.Now()
	if ok, err := s.nothingNew(ctx, path, tips, r.opts.Since); err != nil || !ok {
		return nil, err
	}
	r.inFlight.start(path)
	defer r.inFlight.done(path)
	res := &RepoResult{Repo: path, Outcomes: map[string]int{}}
	if err := r.backfill(ctx, s, path); err != nil {
		return nil, err
	}
	if err := r.upToDate(ctx, s, path, tips, res); err != nil {
		return nil, err
	}
	res.Steps, res.Seconds = Funnel(res.Outcomes), time.Since(start).Seconds()
	r.opts.Log.Info("bootstrap repository done", "repo", path, "status", res.Status, "seen", 0, "verified", 0)
	return res, nil
}

// upToDate records a repository with no new commit. Merges an earlier run
// recorded but could not examine (it was stopped first) are still made
// tasks.
func (r *runner) upToDate(ctx context.Context, s *rawStore, path string, tips []string, res *RepoResult) (err error) {
	res.Status = kb.StatusUpToDate
	cache := newFactCache(r.cacheBytes)
	res.MergeTasks, err = s.mergeTasks(ctx, path, r.runID, r.opts.MaxParts, r.opts.Jobs, cache)
	res.BlobsParsed, res.BytesParsed = int(cache.parsed.Load()), cache.bytes.Load()
	if err != nil {
		return err
	}
	return s.setRepo(ctx, path, r.runID, tips, kb.StatusUpToDate, "")
}

// backfill adds the meta_plan and part_plan targets of the tasks mined
// before bootstrap stored them.
func (r *runner) backfill(ctx context.Context, s *rawStore, path string) error {
	n, err := s.backfillDecomposed(ctx, path)
	if n > 0 {
		r.opts.Log.Info("bootstrap added the meta_plan and part_plan targets of tasks mined before", "repo", path, "targets", n)
	}
	return err
}

// toMine lists the walked commits a run with r's --since mines, youngest
// first (so a descendant is walked from before its ancestors).
func (r *runner) toMine(walked map[string]knownCommit) []string {
	var out []string
	for h, k := range walked {
		if r.opts.Since.IsZero() || !k.co.at.Before(r.opts.Since) {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := walked[b].co.at.Compare(walked[a].co.at); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// heads are the commits of wanted no other commit of wanted has as a
// parent: a walk from each of them delivers the rest.
func heads(wanted []string, walked map[string]knownCommit) []string {
	below := map[string]bool{}
	for _, h := range wanted {
		for _, p := range walked[h].parents {
			below[p] = true
		}
	}
	var out []string
	for _, h := range wanted {
		if !below[h] {
			out = append(out, h)
		}
	}
	return out
}

// precheck applies the commit filter.
func (r *runner) precheck(cm commitInfo) (reason, detail string) {
	if len(cm.Parents) == 0 {
		return OutcomeRootCommit, "no parent to build against"
	}
	info := CommitInfo{Hash: cm.Hash, Parents: len(cm.Parents), Author: cm.Author, Committer: cm.Committer, Message: cm.Message}
	for _, f := range cm.Files {
		info.Files = append(info.Files, FileStat{Path: f.Path, Insertions: f.Insertions, Deletions: f.Deletions, Binary: f.Binary})
	}
	if reason, detail := r.filter.Check(info); reason != "" {
		return reason, detail
	}
	for _, f := range cm.Files {
		if f.Special {
			return OutcomeSpecialFile, f.Path
		}
	}
	return "", ""
}

// build computes the ground truth of the commits in work with r.opts.Jobs
// workers and writes every result in walk order, batchCommits at a time,
// counting in res what was written (so an interrupted run reports what it
// saved).
func (r *runner) build(ctx context.Context, c *clone, cache *factCache, tips *branchTips, co *coHistory, fresh []commitInfo, results []*result, work []int, res *RepoResult) error {
	done := make([]chan struct{}, len(results))
	for i := range done {
		done[i] = make(chan struct{})
	}
	isWork := map[int]bool{}
	for _, i := range work {
		isWork[i] = true
	}
	for i := range results {
		if !isWork[i] {
			close(done[i])
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	next := make(chan int)
	g.Go(func() error {
		defer close(next)
		for _, i := range work {
			select {
			case next <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	mods := &moduleCache{m: map[plumbing.Hash]string{}}
	trees := newTrees(treeBytes)
	defer trees.close()
	chunks := lang.NewChunkCache(chunkCacheBytes)
	for range max(1, r.opts.Jobs) {
		g.Go(func() error {
			repo, release := c.worker()
			w := &worker{repo: repo, release: release, parse: newParsing(chunks), cache: cache, tips: tips, trees: trees, mods: mods, maxSize: r.opts.MaxFileBytes, texts: docTexts{}}
			defer w.close()
			for i := range next {
				r.groundTruth(w, co, c.path, fresh[i], results[i])
				close(done[i])
				r.progress.Add(1)
			}
			return nil
		})
	}
	// The writer: results in walk order, so what a kill leaves behind is
	// closed under ancestry and the next run's walk starts after it.
	g.Go(func() error {
		var batch []*result
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			// A batch is written whole even when the run is being
			// cancelled: an interrupted COMMIT could land yet report an
			// error, and the summary must count what was saved.
			bg := context.WithoutCancel(gctx)
			err := r.withStore(bg, func(s *rawStore) error { return s.writeBatch(bg, r.runID, c.path, batch) })
			if err == nil {
				for _, b := range batch {
					res.Outcomes[b.outcome]++
				}
				res.Seen += len(batch)
				res.Verified = res.Outcomes[OutcomeVerified]
			}
			batch = batch[:0]
			return err
		}
		for i := range results {
			select {
			case <-done[i]:
			case <-gctx.Done():
				return gctx.Err()
			}
			batch = append(batch, results[i])
			results[i] = &result{outcome: results[i].outcome} // free the targets once written
			if len(batch) == batchCommits {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	})
	return g.Wait()
}

// groundTruth builds one commit's ground truth into res.
func (r *runner) groundTruth(w *worker, co *coHistory, repoPath string, cm commitInfo, res *result) {
	res.outcome, res.detail = OutcomeGroundTruthErr, ""
	if len(cm.Parents) != 1 {
		res.outcome, res.detail = OutcomeGroundTruthErr, "no parent to build against"
		return
	}
	snap, err := w.snapshot(cm.Parents[0])
	if err != nil {
		res.detail = err.Error()
		return
	}
	var changes []*fileChange
	var touched, created []string
	for _, f := range cm.Files {
		fc := &fileChange{path: f.Path, created: f.From == "", deleted: f.To == ""}
		var reason string
		if fc.parent, fc.before, reason, err = w.side(f.Path, f.From); err == nil && reason == "" {
			fc.child, fc.after, reason, err = w.side(f.Path, f.To)
		}
		if err != nil {
			res.detail = err.Error()
			return
		}
		if reason != "" {
			res.outcome, res.detail = reason, f.Path
			return
		}
		if fc.before != nil && (fc.before.failed != "" || fc.before.errorNodes > 0) {
			res.outcome, res.detail = OutcomeParentParse, f.Path
			return
		}
		if fc.after != nil && fc.after.failed != "" {
			fc.after = nil
		}
		if fc.after != nil {
			w.tips.keep(keyOf(f.Path, plumbing.NewHash(f.To)), fc.after)
		}
		fc.hunks = linediff.Hunks(fc.parent, fc.child)
		changes = append(changes, fc)
		if fc.created {
			created = append(created, f.Path)
		} else {
			touched = append(touched, f.Path)
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })

	implement, err := buildImplement(changes)
	if err != nil {
		res.outcome, res.detail = OutcomeEditRoundtrip, err.Error()
		return
	}
	task := CleanMessage(cm.Message)
	summary, rationale, _ := strings.Cut(task, "\n")
	plan := buildPlan(changes, snap, strings.TrimSpace(summary), strings.TrimSpace(rationale))
	meta, part := schema.Decompose(task, plan)
	res.targets = map[string]any{
		schema.StageScope: buildScope(scopeInput{
			snap: snap, task: task, touched: touched, created: created,
			co: co, at: cm.CommitTime, minCount: r.opts.Filter.CoChangeMinCount,
		}),
		schema.StagePrecision: buildPrecision(changes, snap.repo.GoModules),
		schema.StagePlan:      plan,
		schema.StageMetaPlan:  meta,
		schema.StagePartPlan:  part,
		schema.StageImplement: implement,
	}
	res.task = &kb.SyntheticTask{
		ID: syntheticID(repoPath, cm.Hash, ""), Commit: cm.Hash, Parent: cm.Parents[0], Author: cm.Author,
		CommittedAt: cm.CommitTime, Message: cm.Message, Task: task,
		FilesChanged: len(cm.Files), Insertions: cm.Insertions(), Deletions: cm.Deletions(),
	}
	res.outcome, res.detail = OutcomeVerified, ""
}

// side reads one side of a changed file (blob id "" when absent): its
// content and facts, or the outcome that rules the commit out.
func (w *worker) side(p, id string) (content []byte, f *facts, outcome string, err error) {
	if id == "" {
		return nil, nil, "", nil
	}
	h := plumbing.NewHash(id)
	content, _, err = readBlob(w.repo, h, w.maxSize)
	switch {
	case err != nil:
		return nil, nil, "", err
	case content == nil:
		return nil, nil, OutcomeTooLarge, nil
	case !utf8.Valid(content):
		return nil, nil, OutcomeInvalidUTF8, nil
	}
	f, err = w.facts(p, h, content)
	return content, f, "", err
}

func changedPaths(cm commitInfo) []string {
	out := make([]string, len(cm.Files))
	for i, f := range cm.Files {
		out[i] = f.Path
	}
	return out
}
