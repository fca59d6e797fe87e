package bootstrap

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sync/errgroup"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Outcomes of a merge examined for a multi-part task (raw.bootstrap_merges).
const (
	MergeTask            = "task"              // the merged branch is a multi-part task
	MergeBranchTooShort  = "branch_too_short"  // one commit: an ordinary task already
	MergeBranchTooLong   = "branch_too_long"   // more commits than [orchestrator] max_parts
	MergeBranchNotALine  = "branch_not_a_line" // a merge inside the branch
	MergePartNotVerified = "part_not_verified" // a commit of the branch is no verified task
)

// mergeTasks adds a multi-part task for each merge recorded in repo —
// whichever run recorded it — that has no task and was not rejected yet,
// whose second parent brings a clean branch: 2 to maxParts commits in a
// line (each the first parent of the next), every one of them a verified
// task. Its parts are those commits in order — the ground truth of the
// decomposition stage (meta_plan): each part's files, and depends_on on
// the earlier parts whose files it shares or whose changes its own
// changes depend on (imports, calls). The task starts where the branch
// did (the first commit's parent) and ends at the branch's tip: its
// scope, precision, plan and implement targets are the parts' put
// together (a file's content and symbols as the first part that touched
// it saw them, every part's edits in order), so nothing after the merge
// is in it. It and its parts are one group of kb.SplitRule, split by the
// merge commit, so no part trains while the merge task is held out.
// Every decision is a bootstrap_merges row written with the task, so a
// merge is examined until it is decided and never after (a branch too
// long for maxParts is examined again once maxParts lets it in); a merge
// whose branch holds a commit not mined yet is left undecided.
func (s *rawStore) mergeTasks(ctx context.Context, repo string, runID int64, maxParts, jobs int, cache *factCache) (int, error) {
	rows, err := s.Conn.QueryContext(ctx, `SELECT c.commit, c.parents, c.committed_at FROM bootstrap_commits c
		WHERE c.repo_path = $1 AND len(c.parents) = 2
		AND NOT EXISTS (SELECT 1 FROM synthetic_tasks k WHERE k.repo_path = c.repo_path AND k.commit = c.commit)
		AND NOT EXISTS (SELECT 1 FROM bootstrap_merges m WHERE m.repo_path = c.repo_path AND m.commit = c.commit
			AND (m.outcome <> $2 OR m.parts > $3))
		ORDER BY c.commit`, repo, MergeBranchTooLong, maxParts)
	if err != nil {
		return 0, fmt.Errorf("merges of %s: %w", repo, err)
	}
	type merge struct {
		commit, p1, p2 string
		at             time.Time
	}
	var merges []merge
	for rows.Next() {
		var m merge
		var parents []any
		if err := rows.Scan(&m.commit, &parents, &m.at); err != nil {
			rows.Close()
			return 0, err
		}
		m.p1, m.p2 = fmt.Sprint(parents[0]), fmt.Sprint(parents[1])
		merges = append(merges, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(merges) == 0 {
		return 0, nil
	}
	// Each merge's branch, from the commits recorded and walked; where
	// their ancestry leaves them, a git process per merge, a few at once
	// (each is mostly its start).
	graph, err := s.commitGraph(ctx, repo)
	if err != nil {
		return 0, fmt.Errorf("commits of %s: %w", repo, err)
	}
	branches := make([][]string, len(merges))
	partCommits := make([][]string, len(merges))
	var g errgroup.Group
	g.SetLimit(mergeReaders)
	for i, m := range merges {
		set := func(branch []string) {
			branches[i] = branch
			if len(branch) >= 2 && len(branch) <= maxParts {
				for _, line := range branch {
					commit, _, _ := strings.Cut(line, " ")
					partCommits[i] = append(partCommits[i], commit)
				}
			}
		}
		if branch, ok := graph.branch(m.p2, m.p1); ok {
			set(branch)
			continue
		}
		g.Go(func() error {
			branch, err := gitLines(ctx, repo, "rev-list", "--reverse", "--topo-order", "--parents", m.p2, "^"+m.p1)
			if err != nil {
				return ctx.Err() // nil: unreadable now (a missing object), undecided
			}
			set(branch)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	// Which of the branches' commits are recorded, and verified, read
	// once without their targets: only the branches that make a task
	// need those.
	var all []string
	for _, pc := range partCommits {
		all = append(all, pc...)
	}
	verified, err := s.verifiedCommits(ctx, repo, all)
	if err != nil {
		return 0, err
	}
	var tasks, targets, decided [][]driver.Value
	now := time.Now().UTC()
	var made []int // the merges whose branch is a task, in order
	for i, m := range merges {
		if branches[i] == nil {
			continue
		}
		outcome := branchOutcome(verified, branches[i], maxParts)
		if outcome == "" {
			continue // a commit of the branch is not mined yet
		}
		decided = append(decided, []driver.Value{runID, repo, m.commit, len(branches[i]), outcome, now})
		if outcome == MergeTask {
			made = append(made, i)
		}
	}
	// Their parts' targets, partsPerRead commits at a time: a read per
	// commit scans the targets once per part, one read of them all holds
	// them all in memory. Each batch is put together by jobs workers.
	var messages map[string]commitMessage
	if len(made) > 0 {
		var commits []string
		for _, i := range made {
			commits = append(commits, merges[i].commit)
		}
		if messages, err = commitMessages(ctx, repo, commits); err != nil {
			return 0, err
		}
	}
	workers := make([]*parsing, max(1, jobs))
	chunks := lang.NewChunkCache(chunkCacheBytes)
	for w := range workers {
		workers[w] = newParsing(chunks)
		defer workers[w].close()
	}
	for lo, hi := 0, 0; lo < len(made); lo = hi {
		var commits []string
		for ; hi < len(made) && (hi == lo || len(commits)+len(partCommits[made[hi]]) <= partsPerRead); hi++ {
			commits = append(commits, partCommits[made[hi]]...)
		}
		mined, err := s.minedParts(ctx, repo, commits)
		if err != nil {
			return 0, err
		}
		batch := make([][]part, hi-lo)
		for k := range batch {
			m := merges[made[lo+k]]
			if batch[k], err = partsOf(mined, branches[made[lo+k]]); err != nil {
				return 0, fmt.Errorf("merge %s: %w", m.commit, err)
			}
		}
		combined := make([]mergeTask, len(batch))
		var wg sync.WaitGroup
		for w, p := range workers {
			wg.Go(func() {
				parse := cache.parser(p)
				for k := w; k < len(batch); k += len(workers) {
					combined[k] = combine(batch[k], messages[merges[made[lo+k]].commit].text, parse)
				}
			})
		}
		wg.Wait()
		for k, mt := range combined {
			m, parts := merges[made[lo+k]], batch[k]
			msg := messages[m.commit]
			id := syntheticID(repo, m.commit, "")
			tasks = append(tasks, []driver.Value{id, runID, repo, m.commit, parts[0].parent, msg.author, m.at,
				msg.text, mt.task, mt.files, mt.insertions, mt.deletions, now})
			for stage, v := range mt.targets { // encoded by the Appender (writeBatch says why)
				targets = append(targets, []driver.Value{syntheticID(repo, m.commit, stage), id, repo, m.commit, stage, v, now})
			}
		}
	}
	if len(decided) == 0 {
		return 0, nil
	}
	var n int
	err = s.Tx(ctx, func() error {
		if n, err = s.AppendNew(ctx, "synthetic_tasks", tasksColumns, []string{"id"}, tasks); err != nil {
			return err
		}
		if err := hook("merge"); err != nil {
			return err
		}
		if _, err = s.AppendNew(ctx, "synthetic_targets", targetsColumns, []string{"id"}, targets); err != nil {
			return err
		}
		_, err = s.AppendNew(ctx, "bootstrap_merges", mergesColumns, []string{"repo_path", "commit", "outcome"}, decided)
		return err
	})
	return n, err
}

// mergeReaders is how many merged branches are listed at once.
const mergeReaders = 4

// partsPerRead bounds the commits of merged branches read at once. A read
// costs about the same whatever it reads: DuckDB decompresses the whole
// target column to find the rows (0.13 s for the 17,000 targets of
// psf/requests and pallets/click, reading 384 of them or all). 512 parts
// (psf/requests has 335) are about 25 MB of targets.
var partsPerRead = 512

var mergesColumns = []string{"run_id", "repo_path", "commit", "parts", "outcome", "examined_at"}

// part is one commit of a merged branch, with its ground truth.
type part struct {
	commit, parent, task  string
	insertions, deletions int
	precision             schema.PrecisionTarget
	plan                  schema.PlanArtifact
	implement             schema.ImplementTarget
}

// verifiedCommits reads which of repo's commits the store recorded: each
// is true when it was verified (it has a task).
func (s *rawStore) verifiedCommits(ctx context.Context, repo string, commits []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(commits) == 0 {
		return out, nil
	}
	recorded, err := kb.Column[string](ctx, s.Conn, `SELECT commit FROM bootstrap_commits
		WHERE repo_path = ? AND commit IN (SELECT unnest(?::VARCHAR[]))`, repo, commits)
	if err != nil {
		return nil, fmt.Errorf("merged branches' commits: %w", err)
	}
	for _, c := range recorded {
		out[c] = false
	}
	tasks, err := kb.Column[string](ctx, s.Conn, `SELECT commit FROM synthetic_tasks
		WHERE repo_path = ? AND commit IN (SELECT unnest(?::VARCHAR[]))`, repo, commits)
	if err != nil {
		return nil, fmt.Errorf("merged branches' tasks: %w", err)
	}
	for _, c := range tasks {
		out[c] = true
	}
	return out, nil
}

// minedParts reads the tasks of repo's verified commits among commits,
// with the targets a merge task is put together from.
func (s *rawStore) minedParts(ctx context.Context, repo string, commits []string) (map[string]*part, error) {
	out := map[string]*part{}
	if len(commits) == 0 {
		return out, nil
	}
	rows, err := s.Conn.QueryContext(ctx, `SELECT k.commit, k.task, k.insertions, k.deletions, json_group_object(t.stage, t.target)::VARCHAR
		FROM synthetic_tasks k JOIN synthetic_targets t ON t.task_id = k.id
		WHERE k.repo_path = ? AND k.commit IN (SELECT unnest(?::VARCHAR[])) AND t.stage IN (?, ?, ?) GROUP BY ALL`,
		repo, commits, schema.StagePrecision, schema.StagePlan, schema.StageImplement)
	if err != nil {
		return nil, fmt.Errorf("merged branches' tasks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		p := &part{}
		var targets string
		if err := rows.Scan(&p.commit, &p.task, &p.insertions, &p.deletions, &targets); err != nil {
			return nil, err
		}
		var tg struct {
			Precision schema.PrecisionTarget `json:"precision"`
			Plan      schema.PlanArtifact    `json:"plan"`
			Implement schema.ImplementTarget `json:"implement"`
		}
		if err := json.Unmarshal([]byte(targets), &tg); err != nil {
			return nil, fmt.Errorf("targets of %s: %w", p.commit, err)
		}
		p.precision, p.plan, p.implement = tg.Precision, tg.Plan, tg.Implement
		out[p.commit] = p
	}
	return out, rows.Err()
}

// branchOutcome decides a branch ("commit parent..." lines, parents
// first) given which commits are recorded and verified: MergeTask when it
// is a line of 2 to maxParts verified tasks, "" while a commit of it is
// not mined yet.
func branchOutcome(verified map[string]bool, branch []string, maxParts int) string {
	switch {
	case len(branch) < 2:
		return MergeBranchTooShort
	case len(branch) > maxParts:
		return MergeBranchTooLong
	}
	if !isLine(branch) {
		return MergeBranchNotALine
	}
	for _, line := range branch {
		commit, _, _ := strings.Cut(line, " ")
		v, recorded := verified[commit]
		switch {
		case !recorded:
			return ""
		case !v:
			return MergePartNotVerified
		}
	}
	return MergeTask
}

// isLine reports whether branch ("commit parent" lines) is a line of
// commits, each the only parent of the next.
func isLine(branch []string) bool {
	prev := ""
	for i, line := range branch {
		f := strings.Fields(line)
		if len(f) != 2 || i > 0 && f[1] != prev {
			return false
		}
		prev = f[0]
	}
	return true
}

// partsOf are the tasks of a branch's commits, in order (its outcome is
// MergeTask), each with its parent.
func partsOf(mined map[string]*part, branch []string) ([]part, error) {
	parts := make([]part, len(branch))
	for i, line := range branch {
		commit, parent, _ := strings.Cut(line, " ")
		m := mined[commit]
		if m == nil {
			return nil, fmt.Errorf("the task of %s is gone from the store", commit)
		}
		parts[i] = *m
		parts[i].parent = parent
	}
	return parts, nil
}

// mergeTask is a merged branch as one task.
type mergeTask struct {
	task                         string
	files, insertions, deletions int
	targets                      map[string]any
}

// combine puts a branch's parts together.
func combine(parts []part, message string, parse parseFunc) mergeTask {
	mt := mergeTask{targets: map[string]any{}}
	imports := tipImports(parts, parse)
	meta := schema.MetaPlan{Rationale: "the commits of the merged branch, in order"}
	plan := schema.PlanArtifact{ExecutionOrder: []string{}}
	var scope schema.ScopeTarget
	var prec schema.PrecisionTarget
	var im schema.ImplementTarget
	first := map[string]int{}   // file → the first part that touched it
	atFork := map[string]bool{} // file → it existed where the branch started
	var summaries []string
	for i, p := range parts {
		summary, _, _ := strings.Cut(p.task, "\n")
		summaries = append(summaries, "- "+summary)
		mt.insertions += p.insertions
		mt.deletions += p.deletions
		_, pp := schema.Decompose(p.task, p.plan)
		mp := schema.MetaPart{ID: fmt.Sprintf("p%d", i+1), Description: summary, DependsOn: []string{}}
		for _, s := range pp.Steps {
			mp.AffectedFiles = append(mp.AffectedFiles, s.TargetFiles...)
		}
		// Depends on the earlier parts it shares a file with, whose files
		// its changes depend on, or whose files its files import.
		for j := range i {
			earlier := meta.Parts[j]
			dep := slices.ContainsFunc(mp.AffectedFiles, func(f string) bool {
				return slices.Contains(earlier.AffectedFiles, f) ||
					slices.ContainsFunc(imports[f], func(g string) bool { return slices.Contains(earlier.AffectedFiles, g) })
			})
			for _, f := range p.plan.AffectedFiles {
				for _, c := range f.Changes {
					for _, d := range c.DependsOn {
						file, _, _ := strings.Cut(d, ":")
						dep = dep || slices.Contains(earlier.AffectedFiles, file)
					}
				}
			}
			if dep {
				mp.DependsOn = append(mp.DependsOn, earlier.ID)
			}
		}
		meta.Parts = append(meta.Parts, mp)
		for _, f := range p.implement.Files {
			if _, seen := first[f.Path]; !seen {
				first[f.Path] = i
				atFork[f.Path] = !f.Created
				im.Files = append(im.Files, schema.ImplementFile{Path: f.Path, Content: f.Content, Created: f.Created})
			}
		}
		im.Edits = append(im.Edits, p.implement.Edits...)
		for _, s := range p.precision.Symbols {
			if first[s.File] == i {
				prec.Symbols = append(prec.Symbols, s)
			}
		}
		for _, f := range p.plan.AffectedFiles {
			k := slices.IndexFunc(plan.AffectedFiles, func(g schema.PlanFile) bool { return g.Path == f.Path })
			if k < 0 {
				plan.AffectedFiles = append(plan.AffectedFiles, schema.PlanFile{Path: f.Path, Role: f.Role})
				k = len(plan.AffectedFiles) - 1
			}
			plan.AffectedFiles[k].Changes = append(plan.AffectedFiles[k].Changes, f.Changes...)
		}
		for _, o := range p.plan.ExecutionOrder {
			if !slices.Contains(plan.ExecutionOrder, o) {
				plan.ExecutionOrder = append(plan.ExecutionOrder, o)
			}
		}
	}
	// A file's role is what the branch did to it as a whole.
	for k, f := range im.Files {
		im.Files[k].Deleted = lastPartDeletes(parts, f.Path)
	}
	for k, f := range plan.AffectedFiles {
		switch {
		case !atFork[f.Path]:
			plan.AffectedFiles[k].Role = "create"
		case lastPartDeletes(parts, f.Path):
			plan.AffectedFiles[k].Role = "delete"
		default:
			plan.AffectedFiles[k].Role = "modify"
		}
	}
	for _, f := range im.Files {
		if atFork[f.Path] {
			scope.Touched = append(scope.Touched, f.Path)
		} else {
			scope.Created = append(scope.Created, f.Path)
		}
	}
	scope.Candidates = []schema.ScopeCandidate{} // no expansion at the fork: no scope example, the touched files for eval
	title := mergeTitle(message)
	if title == "" {
		title = strings.TrimPrefix(summaries[0], "- ")
	}
	mt.task = title + "\n\n" + strings.Join(summaries, "\n")
	meta.TaskSummary, plan.TaskSummary = title, title
	mt.files = len(im.Files)
	mt.targets[schema.StageScope] = scope
	mt.targets[schema.StagePrecision] = prec
	mt.targets[schema.StagePlan] = plan
	mt.targets[schema.StageMetaPlan] = meta
	mt.targets[schema.StageImplement] = im
	return mt
}

// lastPartDeletes reports whether the last part touching path deleted it.
func lastPartDeletes(parts []part, path string) bool {
	for i := len(parts) - 1; i >= 0; i-- {
		for _, f := range parts[i].implement.Files {
			if f.Path == path {
				return f.Deleted
			}
		}
	}
	return false
}

// mergeTitle is what a merge message says of the branch beyond "Merge
// ...": a pull request's title (its body's first line); "" for a bare
// "Merge branch 'x'".
func mergeTitle(message string) string {
	lines := strings.Split(strings.TrimSpace(CleanMessage(message)), "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(strings.ToLower(l), "merge ") {
			return l
		}
	}
	return ""
}

// commitMessage is a commit's author and message.
type commitMessage struct{ author, text string }

// commitMessages reads the author and message of commits with one git
// process, as `git log -1 --format=%an%x00%B` does each, trimmed.
func commitMessages(ctx context.Context, repo string, commits []string) (map[string]commitMessage, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "log", "--no-walk=unsorted", "--stdin", "--format=%H%x00%an%x00%B%x00")
	cmd.Stdin = strings.NewReader(strings.Join(commits, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("messages of %d merges: %w", len(commits), err)
	}
	// Each record is "hash\0author\0message\0\n": a message holds no NUL.
	fields := strings.Split(string(out), "\x00")
	msgs := map[string]commitMessage{}
	for i := 0; i+2 < len(fields); i += 3 {
		hash := strings.TrimPrefix(fields[i], "\n")
		msgs[hash] = commitMessage{strings.TrimLeftFunc(fields[i+1], unicode.IsSpace), strings.TrimRightFunc(fields[i+2], unicode.IsSpace)}
	}
	for _, c := range commits {
		if _, ok := msgs[c]; !ok {
			return nil, fmt.Errorf("git log lists no message for merge %s", c)
		}
	}
	return msgs, nil
}

func gitOutput(ctx context.Context, repo string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

func gitLines(ctx context.Context, repo string, args ...string) ([]string, error) {
	out, err := gitOutput(ctx, repo, args...)
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}

// branchTips is what the build keeps for the merge phase: the facts of
// the files merged branches leave at their tips, by blob, so that
// tipImports finds them instead of parsing them again.
type branchTips struct {
	want  map[factKey]bool // each file of a branch, as the last commit of the branch to change it left it
	facts *factCache       // filled with put: bounded, it never drops what it holds
}

// newBranchTips is for the merges among commits (the run's, with their
// files), whose branches graph reads: those of 2 to maxParts commits in a
// line, which can make a task. The facts kept are bounded by limit.
func newBranchTips(graph *commitGraph, commits []commitInfo, maxParts int, limit int64) *branchTips {
	t := &branchTips{want: map[factKey]bool{}, facts: newFactCache(limit)}
	byHash := make(map[string]*commitInfo, len(commits))
	for i := range commits {
		byHash[commits[i].Hash] = &commits[i]
	}
	for _, cm := range commits {
		if len(cm.Parents) != 2 {
			continue
		}
		branch, ok := graph.branch(cm.Parents[1], cm.Parents[0])
		if !ok || len(branch) < 2 || len(branch) > maxParts || !isLine(branch) {
			continue
		}
		tip := map[string]factKey{}
		for _, line := range branch {
			commit, _, _ := strings.Cut(line, " ")
			c := byHash[commit]
			if c == nil {
				continue // mined by an earlier run
			}
			for _, f := range c.Files {
				if f.To == "" {
					delete(tip, f.Path)
				} else {
					tip[f.Path] = keyOf(f.Path, plumbing.NewHash(f.To))
				}
			}
		}
		for _, k := range tip {
			t.want[k] = true
		}
	}
	return t
}

// keep keeps f, the facts of k, if the merge phase wants them.
func (t *branchTips) keep(k factKey, f *facts) {
	if t.want[k] {
		t.facts.put(k, f)
	}
}

// tipImports are the imports among the files a branch changed, as the
// branch's tip has them (file → files it imports): the edges a part's
// files gain on an earlier part's files are often added by the part
// itself, so its parent's state does not show them.
func tipImports(parts []part, parse parseFunc) map[string][]string {
	content := map[string]string{}
	for _, p := range parts {
		byFile := map[string][]schema.Edit{}
		for _, e := range p.implement.Edits {
			byFile[e.File] = append(byFile[e.File], e)
		}
		for _, f := range p.implement.Files {
			after, err := schema.ApplyEdits([]byte(f.Content), byFile[f.Path])
			if err == nil && !f.Deleted {
				content[f.Path] = string(after)
			} else {
				delete(content, f.Path)
			}
		}
	}
	var repo resolve.Repo
	for _, path := range slices.Sorted(maps.Keys(content)) {
		repo.Files = append(repo.Files, parse(path, []byte(content[path])).resolveFile(path))
	}
	out := map[string][]string{}
	for _, e := range resolve.Dependencies(&repo) {
		out[repo.Files[e.From].Path] = append(out[repo.Files[e.From].Path], repo.Files[e.To].Path)
	}
	return out
}
