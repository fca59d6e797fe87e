package distill

import (
	"context"
	"database/sql"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/secrets"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// item is one thing the teacher is asked: a synthetic target of one stage
// (its prompt rendered as the student sees it), or a student's call of a
// failed run (its logged prompt).
type item struct {
	id, stage, source   string
	task                *curate.Task // the ground truth; nil when there is none
	student             *int64       // the student's call (failed-runs)
	repo, commit, split string
	system, user        string
	expect              int64 // the answer's expected tokens (chars/4)
}

// job is one request to the teacher and the items it answers: items with
// the same prompt share one request, paid once.
type job struct {
	req   llm.Request
	body  llm.ChatBody
	key   string
	stage string
	items []*item
}

// callType is how distill's teacher calls are logged in
// retrieval_llm_calls; their task id is "distill:" + the request key.
const callType = schema.CallDistill

// selection is what a run asks about, read a window at a time so memory
// stays flat however many tasks there are: the ids of the selected tasks
// (synthetic) or student calls (failed-runs), sampled, in order, and how to
// load the items of some of them.
type selection struct {
	ids  []string
	load func(ctx context.Context, conn *sql.Conn, ids []string, skipped map[string]int) ([]*item, error)
	// split is the rule the items were split by, and the dataset is.
	split kb.SplitRule
}

// selectionWindow is how many ids one window loads, as many as curate
// reads tasks at a time, so memory stays flat (a variable for tests that
// need several windows).
var selectionWindow = 2000

// Its split rule is curate-data's ([curate], with its held-out
// repositories), loaded once.
func selectionOf(ctx context.Context, conn *sql.Conn, opts Options) (*selection, error) {
	rule, err := kb.NewSplitRule(opts.Curate, nil).WithGroups(ctx, conn)
	if err != nil {
		return nil, err
	}
	var sel *selection
	if opts.From == FromFailedRuns {
		sel, err = failedRunSelection(ctx, conn, opts, rule)
	} else {
		sel, err = syntheticSelection(ctx, conn, opts, rule)
	}
	if err != nil {
		return nil, err
	}
	sel.split = rule
	return sel, nil
}

// syntheticSelection renders the selected tasks' targets as curate-data
// does for the student (curate.RenderForStudent), fitted to the student's
// budget, leaving out what curate-data drops before filtering (empty and
// trivial targets, prompts that cannot fit, ground truth that does not
// decode).
func syntheticSelection(ctx context.Context, conn *sql.Conn, opts Options, rule kb.SplitRule) (*selection, error) {
	ids, err := curate.SyntheticTaskIDs(ctx, conn, opts.Repos)
	if err != nil {
		return nil, err
	}
	load := func(ctx context.Context, conn *sql.Conn, ids []string, skipped map[string]int) ([]*item, error) {
		var tasks []*curate.Task
		if err := curate.EachTaskOf(ctx, conn, ids, func(t *curate.Task) error { tasks = append(tasks, t); return nil }); err != nil {
			return nil, err
		}
		var items []*item
		for _, t := range tasks {
			for _, stage := range opts.Stages {
				if _, ok := t.Targets[stage]; !ok {
					continue
				}
				ex, why := curate.RenderForStudent(t, stage, opts.Budget)
				if why != "" {
					skipped[why]++
					continue
				}
				items = append(items, &item{id: t.TargetIDs[stage], stage: stage, source: FromSynthetic, task: t,
					repo: t.Repo, commit: t.Commit, split: curate.SplitOf(rule, t.Repo, t.Commit, "", false),
					system: ex.System, user: ex.User, expect: int64(chars4.Estimate(ex.Answer))})
			}
		}
		return items, nil
	}
	return &selection{ids: sample(ids, opts.Sample, opts.Seed), load: load}, nil
}

// failedRunSelection selects the student's calls of the selected stages in
// runs that failed (task_runs.success = false). A call of an eval run has
// the ground truth of the synthetic task the eval replayed; others have
// none and are checked by parsing alone.
func failedRunSelection(ctx context.Context, conn *sql.Conn, opts Options, rule kb.SplitRule) (*selection, error) {
	ids, err := kb.FailedCallIDs(ctx, conn, opts.Stages, opts.Repos)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, usage.Errorf("no failed run has a call of %s to learn from: run `cra solve` or `cra eval` first, or use --from synthetic",
			strings.Join(opts.Stages, ", "))
	}
	load := func(ctx context.Context, conn *sql.Conn, ids []string, _ map[string]int) ([]*item, error) {
		return failedRunItems(ctx, conn, rule, opts, ids)
	}
	return &selection{ids: sample(ids, opts.Sample, opts.Seed), load: load}, nil
}

// failedRunItems loads the student calls ids (of the failed calls of
// opts) and the ground truth of those an eval ran. A call of an eval's
// run is in validation (its task is held out); another is split by its
// run.
func failedRunItems(ctx context.Context, conn *sql.Conn, rule kb.SplitRule, opts Options, ids []string) ([]*item, error) {
	calls, err := kb.FailedCalls(ctx, conn, opts.Stages, opts.Repos, ids)
	if err != nil {
		return nil, err
	}
	truth := map[string]*curate.Task{}
	for _, c := range calls {
		if c.EvalTask != "" {
			truth[c.EvalTask] = nil
		}
	}
	tasks := make([]string, 0, len(truth))
	for id := range truth {
		tasks = append(tasks, id)
	}
	sort.Strings(tasks)
	if err := curate.EachTaskOf(ctx, conn, tasks, func(t *curate.Task) error { truth[t.ID] = t; return nil }); err != nil {
		return nil, err
	}
	items := make([]*item, 0, len(calls))
	for _, c := range calls {
		it := &item{id: "call:" + strconv.FormatInt(c.ID, 10), stage: c.Stage, source: FromFailedRuns, student: &c.ID,
			repo: c.Repo, system: c.System, user: c.User, expect: int64(chars4.Estimate(c.Response))}
		if t := truth[c.EvalTask]; t != nil {
			if _, ok := t.Targets[c.Stage]; ok {
				it.task, it.commit = t, t.Commit
			}
		}
		it.split = curate.SplitOf(rule, c.Repo, it.commit, strings.SplitN(c.RunTask, ":", 2)[0], c.EvalTask != "")
		items = append(items, it)
	}
	return items, nil
}

// sample keeps n of ids (all when n <= 0), chosen by a hash of seed and
// each id, in their original order.
func sample(ids []string, n int, seed int64) []string {
	if n <= 0 || n >= len(ids) {
		return ids
	}
	s := strconv.FormatInt(seed, 10)
	picked := slices.Clone(ids)
	sort.SliceStable(picked, func(i, j int) bool { return kb.UnitHash(s, picked[i]) < kb.UnitHash(s, picked[j]) })
	picked = picked[:n]
	order := map[string]int{}
	for i, id := range ids {
		order[id] = i
	}
	sort.Slice(picked, func(i, j int) bool { return order[picked[i]] < order[picked[j]] })
	return picked
}

// jobsOf turns items into requests as the student's would be (the JSON
// stages ask for JSON), one per distinct request, in the items' order.
func jobsOf(items []*item, teacher llm.ModelConfig) []*job {
	var jobs []*job
	byKey := map[string]*job{}
	for _, it := range items {
		req := llm.Request{System: it.system, Prompt: it.user, JSON: it.stage != schema.StageImplement,
			CallType: callType, StageName: it.stage}
		body := llm.NewChatBody(teacher, req)
		key := body.Key()
		if j := byKey[key]; j != nil {
			j.items = append(j.items, it)
			continue
		}
		req.TaskID = callType + ":" + key
		j := &job{req: req, body: body, key: key, stage: it.stage, items: []*item{it}}
		byKey[key] = j
		jobs = append(jobs, j)
	}
	return jobs
}

// expect is the answer's expected tokens: the longest of its items'.
func (j *job) expect() int64 {
	var n int64
	for _, it := range j.items {
		n = max(n, it.expect)
	}
	return n
}

// eachWindow hands fn the jobs of each window of sel, the work of earlier
// runs dropped. With count, the items and the ones left out are counted in
// the summary (a second pass over the same selection counts nothing).
func (d *distiller) eachWindow(ctx context.Context, sel *selection, count bool, fn func(jobs []*job) error) error {
	verified, judged, err := kb.DistillDone(ctx, d.w.Conn, d.opts.Name)
	if err != nil {
		return err
	}
	skipped := map[string]int{}
	for lo := 0; lo < len(sel.ids); lo += selectionWindow {
		if err := ctx.Err(); err != nil {
			return err
		}
		items, err := sel.load(ctx, d.w.Conn, sel.ids[lo:min(lo+selectionWindow, len(sel.ids))], skipped)
		if err != nil {
			return err
		}
		items = withoutSecrets(items, d.opts.Curate.Secrets, skipped)
		jobs := pending(jobsOf(items, d.opts.Teacher), verified, judged, skipped)
		if count {
			d.smu.Lock()
			d.sum.Items += len(items)
			d.smu.Unlock()
			for _, j := range jobs {
				d.count(j.stage, func(s *StageSummary) { s.Items += len(j.items) })
			}
		}
		if err := fn(jobs); err != nil {
			return err
		}
	}
	if count {
		d.smu.Lock()
		d.sum.Skipped = skipped
		d.smu.Unlock()
	}
	return nil
}

// withoutSecrets applies [curate] secrets to the prompts of items before
// any becomes a request: the teacher is remote, so a credential in a mined
// commit or a logged prompt must not leave the machine, nor reach the call
// log or the cache (whose key is the request's). Redacted prompts are
// what is sent; in drop mode an item with a credential is not asked about
// and counted as skipped (curate.DropSecret).
func withoutSecrets(items []*item, mode string, skipped map[string]int) []*item {
	out := items[:0]
	for _, it := range items {
		if _, keep := secrets.Apply(mode, &it.system, &it.user); !keep {
			skipped[curate.DropSecret]++
			continue
		}
		out = append(out, it)
	}
	return out
}

// pending drops the items done by earlier runs (a verified answer, or
// this very request answered and judged) and the jobs left without items,
// counting what it drops.
func pending(jobs []*job, verified, judged map[string]bool, skipped map[string]int) []*job {
	var out []*job
	for _, j := range jobs {
		var left []*item
		for _, it := range j.items {
			switch {
			case verified[it.id]:
				skipped["verified_before"]++
			case judged[it.id+"\x00"+j.key]:
				skipped["judged_before"]++
			default:
				left = append(left, it)
			}
		}
		if len(left) > 0 {
			j.items = left
			out = append(out, j)
		}
	}
	return out
}
