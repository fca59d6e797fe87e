package curate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/progress"
	"github.com/cra-dev/cra/internal/secrets"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Drop reasons, counted in the summary and stored with the dataset.
const (
	DropEmpty         = "empty"           // nothing to learn: no candidates, symbols, changes or edits
	DropTrivial       = "trivial"         // an answer with nothing in it: no relevant file, no primary symbol
	DropOverBudget    = "over_budget"     // prompt + completion cannot fit the context window even trimmed
	DropExactDup      = "exact_duplicate" // same normalised prompt and completion as a kept example
	DropNearDup       = "near_duplicate"  // MinHash-similar task and completion to a kept example
	DropSecret        = "secret"          // a credential, with [curate] secrets = "drop"
	DropPerRepoCap    = "per_repo_cap"    // over [curate] per_repo_cap for its repository and stage
	DropRenderFailure = "render_error"    // ground truth that does not decode
)

// Options configure one curate-data run.
type Options struct {
	Name string // the dataset's name; a re-run adds a version
	// Sources are where examples come from (Source*; default synthetic).
	Sources []string
	// Kinds are the kinds of example built (kb.Kind*; default sft).
	// Synthetic ground truth makes SFT examples only.
	Kinds []string
	// PositiveFraction is the share of positive KTO rows per stage to keep
	// (the surplus side is cut); 0 keeps every row, 1 the positive ones.
	PositiveFraction float64
	// LoggedOutcome "success" takes logged examples only from runs that
	// succeeded; "" from every finished run.
	LoggedOutcome string
	Stages        []string // default: every stage of the sources
	Repos         []string // only these repositories (as stored); empty means all
	// HoldoutRepos are whole repositories put in validation, in place of
	// [curate] holdout_repos when not empty (--holdout-repos, a plan's).
	HoldoutRepos []string
	Curate       config.Curate
	Budget       llm.Budget
	// TrainingPlan is a training plan (JSON) the selection follows; its
	// text is recorded. Empty: a plan row describing the selection is
	// recorded instead.
	TrainingPlan []byte
	Jobs         int
	Log          *slog.Logger
	// Wait is how long to wait for another run building the same dataset
	// name; 0 gives a *kb.BusyError at once.
	Wait time.Duration
	// MemoryLimit is a soft limit on the Go heap for the run (the
	// runtime's GOMEMLIMIT, restored after it); 0 leaves it as it is.
	MemoryLimit int64
	// Progress counts tasks and logged runs read, then examples written;
	// nil for none.
	Progress progress.Reporter
	// ValidationOnly builds a dataset with no train split on purpose (an
	// evaluation set): checkTrainSplit neither refuses nor warns.
	ValidationOnly bool
	// stagesNamed: Stages came from the caller or the plan, not the default.
	stagesNamed bool

	split kb.SplitRule // built from Curate and HoldoutRepos, groups loaded by curate
}

// DefaultMemoryLimit is the Go heap curate-data keeps to: with DuckDB's
// own limit it holds a run over a million logged calls under 1 GB.
const DefaultMemoryLimit = 512 << 20

// Summary is what a run produced.
type Summary struct {
	Dataset  string                    `json:"dataset"`
	Version  int                       `json:"version"` // the version this run added
	PlanID   int64                     `json:"training_plan_id"`
	Tasks    int                       `json:"tasks"`    // synthetic tasks read
	Runs     int                       `json:"runs"`     // logged runs read
	Examples map[string]map[string]int `json:"examples"` // stage → split → count, every kind
	// Kinds is kind → stage → split → count; Labels kind → label → count.
	Kinds      map[string]map[string]map[string]int `json:"kinds"`
	Labels     map[string]map[string]int            `json:"labels"`
	Signals    map[string]int                       `json:"signals"` // logged and distilled rows per signal
	ktoByStage map[string][2]int
	Dropped    map[string]int `json:"dropped"`  // reason → count
	Redacted   int            `json:"redacted"` // examples whose credentials were redacted
	Trimmed    int            `json:"trimmed"`  // examples that lost low-priority context to fit
	Warnings   []string       `json:"warnings"` // stages with little in train (checkTrainSplit)
}

// record is what pass 1 keeps of one candidate example: enough to decide
// which ones to keep without holding their text.
type record struct {
	task, stage, repo, commit, split     string
	kind, label, source, signal          string
	id                                   [32]byte // exampleKey: the row's id, as bytes
	trim, promptTokens, completionTokens int
	hash                                 [32]byte
	sig                                  []uint16
	drop                                 string
}

// Curate builds the dataset opts.Name in the raw store of the home dir
// from its sources: synthetic ground truth (every target of the selected
// stages rendered through agent/prompt and fitted to the budget), logged
// runs (the prompts the model saw, labelled by tests and eval scores) and
// distilled answers; drops what filters reject, splits, balances KTO rows
// and stores the examples. Two passes over the sources keep memory to a
// small record per example.
func Curate(ctx context.Context, dir string, opts Options) (*Summary, error) {
	if opts.Name == "" || strings.ContainsAny(opts.Name, "@/\\\x00") {
		return nil, usage.Errorf("dataset name %q: give a name without @, / or \\", opts.Name)
	}
	plan, err := readPlan(&opts)
	if err != nil {
		return nil, err
	}
	if err := checkSelection(&opts); err != nil {
		return nil, err
	}
	opts.split = kb.NewSplitRule(opts.Curate, opts.HoldoutRepos)
	opts.HoldoutRepos = opts.split.HoldoutRepos()
	if opts.Curate.Secrets != secrets.ModeRedact && opts.Curate.Secrets != secrets.ModeDrop {
		return nil, usage.Errorf("curate.secrets %q: use redact or drop", opts.Curate.Secrets)
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	if opts.MemoryLimit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(opts.MemoryLimit))
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Progress == nil {
		opts.Progress = progress.Discard
	}
	// One run per dataset name at a time, for the whole run.
	lock, err := kb.LockInput(ctx, dir, DatasetLock, opts.Name, "cra curate-data --name "+opts.Name, opts.Wait)
	if err != nil {
		return nil, err
	}
	defer lock.Release() //nolint:errcheck // dropped at exit anyway
	var sum *Summary
	err = kb.WithWriter(ctx, dir, kb.Raw, kb.Options{Command: "cra curate-data", Wait: kb.BatchWait},
		func(w kb.Writer) (err error) {
			sum, err = curate(ctx, w, opts, plan)
			return err
		})
	if err != nil {
		return nil, err
	}
	return sum, nil
}

// curate is the run on the raw store's writer w: pass 1 renders and
// decides, pass 2 writes the kept examples as the next version.
func curate(ctx context.Context, w kb.Writer, opts Options, plan *schema.TrainingPlan) (*Summary, error) {
	conn := w.Conn
	if err := checkRepos(ctx, conn, opts); err != nil {
		return nil, err
	}
	planID, err := recordedPlan(ctx, conn, plan)
	if err != nil {
		return nil, err
	}
	if opts.split, err = opts.split.WithGroups(ctx, conn); err != nil {
		return nil, err
	}
	sum := &Summary{Dataset: opts.Name, Examples: map[string]map[string]int{}, Dropped: map[string]int{},
		Kinds: map[string]map[string]map[string]int{}, Labels: map[string]map[string]int{}, Signals: map[string]int{}}
	var recs []record
	opts.Progress.Phase("read", 0)
	if slices.Contains(opts.Sources, SourceSynthetic) {
		if recs, sum.Tasks, err = scan(ctx, conn, opts); err != nil {
			return nil, err
		}
	}
	// Logged and distilled data are read on a connection of their own,
	// in both passes, while this one writes.
	reader, err := w.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	logged, err := newLoggedSource(ctx, reader, opts)
	if err != nil {
		return nil, err
	}
	if len(opts.Sources) > 1 || opts.Sources[0] != SourceSynthetic {
		lrecs, runs, err := logged.scan(ctx, newMinHasher(opts.Curate.MinHashBands, opts.Curate.MinHashRows))
		if err != nil {
			return nil, err
		}
		if recs == nil {
			recs = lrecs // no copy: a million records are a third of the heap
		} else {
			recs = append(recs, lrecs...)
		}
		sum.Runs = runs
	}
	decide(recs, opts)
	balance(recs, opts.PositiveFraction)
	synthetic, other := map[[32]byte]*record{}, map[[32]byte]*record{}
	for i := range recs {
		r := &recs[i]
		if r.drop != "" {
			sum.Dropped[r.drop]++
			continue
		}
		if r.source == "" {
			synthetic[r.id] = r
		} else {
			other[r.id] = r
			sum.Signals[r.signal]++
		}
		sum.count(r)
	}
	if len(synthetic)+len(other) == 0 {
		return nil, usage.Errorf("the selection gave no example (%d tasks, %d logged runs, dropped %v): no dataset written", sum.Tasks, sum.Runs, sum.Dropped)
	}
	if err := checkHeldOut(ctx, conn, opts.split, recs); err != nil {
		return nil, err
	}
	if err := checkTrainSplit(recs, sum, opts, plan); err != nil {
		return nil, err
	}
	dw := &datasetWriter{Writer: w, name: opts.Name, planID: planID}
	if err := dw.Tx(ctx, func() (err error) {
		dw.version, err = kb.NextDatasetVersion(ctx, dw.Writer, opts.Name)
		return err
	}); err != nil {
		return nil, err
	}
	sum.Version = dw.version
	opts.Progress.Phase("write", int64(len(synthetic)+len(other)))
	if len(synthetic) > 0 {
		if sum.Redacted, err = dw.write(ctx, w.DB, opts, synthetic); err != nil {
			return nil, err
		}
	}
	if len(other) > 0 {
		n, err := logged.write(ctx, dw, other)
		if err != nil {
			return nil, err
		}
		sum.Redacted += n
	}
	if sum.PlanID, err = dw.register(ctx, opts, sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// DatasetLock is the batch name of a dataset's lock (kb.LockInput): held
// by a curate-data or distill run building the dataset, and by datasets
// prune.
const DatasetLock = "curate-data"

// checkRepos refuses --repos and --holdout-repos that name no repository
// the sources know (a typo would otherwise select nothing), and sources
// with nothing in them yet.
func checkRepos(ctx context.Context, conn *sql.Conn, opts Options) error {
	known, err := kb.KnownRepos(ctx, conn, kb.RepoSources{
		Synthetic: len(opts.Sources) == 0 || slices.Contains(opts.Sources, SourceSynthetic),
		Logged:    slices.Contains(opts.Sources, SourceLogged),
		Distilled: slices.Contains(opts.Sources, SourceDistilled),
	})
	if err != nil {
		return err
	}
	if len(known) == 0 {
		return usage.Errorf("the raw store has nothing from %s yet: run `cra bootstrap <repo>...` for synthetic data, "+
			"`cra solve` or `cra eval` for logged runs, `cra distill` for distilled answers", strings.Join(opts.Sources, ", "))
	}
	for flag, repos := range map[string][]string{"--repos": opts.Repos, "--holdout-repos": opts.HoldoutRepos} {
		for _, r := range repos {
			if !slices.Contains(known, r) {
				return usage.Errorf("%s %s: %s has nothing of it; the repositories it has are:\n  %s",
					flag, r, strings.Join(opts.Sources, ", "), strings.Join(known, "\n  "))
			}
		}
	}
	return nil
}

// scan is pass 1: render every selected target once and keep its record.
func scan(ctx context.Context, conn *sql.Conn, opts Options) ([]record, int, error) {
	mh := newMinHasher(opts.Curate.MinHashBands, opts.Curate.MinHashRows)
	type job struct {
		t   *Task
		out []record
	}
	var (
		recs  []record
		tasks int
		mu    sync.Mutex
	)
	jobs := make(chan *job, 4*opts.Jobs)
	done := make(chan *job, 4*opts.Jobs)
	var wg sync.WaitGroup
	for range opts.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.out = scanTask(j.t, opts, mh)
				done <- j
			}
		}()
	}
	// Results are gathered in any order and sorted by target id below, so
	// the outcome does not depend on scheduling.
	collected := make(chan struct{})
	go func() {
		for j := range done {
			mu.Lock()
			recs = append(recs, j.out...)
			mu.Unlock()
		}
		close(collected)
	}()
	err := eachTask(ctx, conn, opts, func(t *Task) error {
		tasks++
		opts.Progress.Add(1)
		jobs <- &job{t: t}
		return nil
	})
	close(jobs)
	wg.Wait()
	close(done)
	<-collected
	if err != nil {
		return nil, 0, err
	}
	sortByID(recs)
	return recs, tasks, nil
}

// scanTask renders one task's selected stages and records each.
func scanTask(t *Task, opts Options, mh *minHasher) []record {
	var out []record
	for _, stage := range opts.Stages {
		if _, ok := t.Targets[stage]; !ok || !renderable(stage) {
			continue
		}
		targetID := t.TargetIDs[stage]
		r := record{task: t.ID, stage: stage, repo: t.Repo, commit: t.Commit, kind: kb.KindSFT, label: kb.LabelPositive,
			id: exampleKey(opts.Name, targetID), split: SplitOf(opts.split, t.Repo, t.Commit, "", false)}
		ex, err := fit(t, stage, opts.Budget)
		switch {
		case err != nil:
			r.drop = DropRenderFailure
		case ex == nil:
			r.drop = DropOverBudget
		default:
			r.trim = ex.trimmed
			r.promptTokens = opts.Budget.Estimate(ex.system) + opts.Budget.Estimate(ex.user)
			r.completionTokens = opts.Budget.Estimate(ex.assistant)
			r.drop = emptiness(t, stage)
			if r.drop == "" && opts.Curate.Secrets == secrets.ModeDrop && secrets.Has(ex.system, ex.user, ex.assistant) {
				r.drop = DropSecret
			}
			r.hash = normalHash(ex.system, ex.user, ex.assistant)
			r.sig = mh.signature(t.Task + "\n" + ex.assistant)
		}
		out = append(out, r)
	}
	return out
}

// StudentExample is a stage's target as the student sees it: the prompt
// curate-data renders for it, fitted to the student's budget, and the
// ground truth's answer.
type StudentExample struct {
	System, User string
	Answer       string
}

// RenderForStudent renders stage's target of t as curate-data does for
// the student, fitted to b, or says why it is left out before any filter
// (the reason is then non-empty): DropEmpty or DropTrivial when the ground
// truth has nothing to teach, DropRenderFailure when it does not decode,
// DropOverBudget when no trimming makes it fit.
func RenderForStudent(t *Task, stage string, b llm.Budget) (StudentExample, string) {
	if why := emptiness(t, stage); why != "" {
		return StudentExample{}, why
	}
	ex, err := fit(t, stage, b)
	switch {
	case err != nil:
		return StudentExample{}, DropRenderFailure
	case ex == nil:
		return StudentExample{}, DropOverBudget
	}
	return StudentExample{System: ex.system, User: ex.user, Answer: ex.assistant}, ""
}

// fit renders a stage's example within the budget, trimming the fewest
// low-priority context items that make it fit; nil when nothing does.
func fit(t *Task, stage string, b llm.Budget) (*rendered, error) {
	for trim := 0; ; trim++ {
		r, ok, err := renderers[stage](t, trim)
		if err != nil || !ok {
			return nil, err
		}
		if b.Estimate(r.system)+b.Estimate(r.user)+b.Estimate(r.assistant) <= b.ContextWindow {
			return &r, nil
		}
	}
}

// emptiness says whether a stage's ground truth has anything to teach.
func emptiness(t *Task, stage string) string {
	switch stage {
	case schema.StageScope:
		s, _ := DecodeTarget[schema.ScopeTarget](t, stage)
		if len(s.Candidates) == 0 {
			return DropEmpty
		}
		for _, c := range s.Candidates {
			if c.Relevant {
				return ""
			}
		}
		return DropTrivial
	case schema.StagePrecision:
		p, _ := DecodeTarget[schema.PrecisionTarget](t, stage)
		if len(p.Symbols) == 0 {
			return DropEmpty
		}
		for _, s := range p.Symbols {
			if s.Tier == schema.TierPrimary {
				return ""
			}
		}
		return DropTrivial
	case schema.StagePlan:
		p, _ := DecodeTarget[schema.PlanArtifact](t, stage)
		if len(p.AffectedFiles) == 0 {
			return DropEmpty
		}
	case schema.StageMetaPlan, schema.StagePartPlan:
		p, _ := DecodeTarget[schema.PartPlan](t, schema.StagePartPlan)
		if len(p.Steps) == 0 {
			return DropEmpty
		}
	case schema.StageImplement:
		im, _ := DecodeTarget[schema.ImplementTarget](t, stage)
		if len(im.Edits) == 0 {
			return DropEmpty
		}
	}
	return ""
}

// decide applies the filters that need every record: exact duplicates,
// near duplicates (per stage, first by id kept) and the per-repo cap.
func decide(recs []record, opts Options) {
	seen := map[[32]byte]bool{}
	for i := range recs {
		r := &recs[i]
		if r.drop != "" {
			continue
		}
		if seen[r.hash] {
			r.drop = DropExactDup
			continue
		}
		seen[r.hash] = true
	}
	// Near duplicates per stage and kind (and, for KTO, label: a right and
	// a wrong answer to one prompt are both worth keeping).
	mh := newMinHasher(opts.Curate.MinHashBands, opts.Curate.MinHashRows)
	type group struct{ stage, kind, label string }
	byGroup := map[group][]int{}
	var order []group
	for i := range recs {
		if recs[i].drop == "" {
			g := group{recs[i].stage, recs[i].kind, recs[i].label}
			if byGroup[g] == nil {
				order = append(order, g)
			}
			byGroup[g] = append(byGroup[g], i)
		}
	}
	for _, g := range order {
		idx := byGroup[g]
		sigs := make([][]uint16, len(idx))
		for k, i := range idx {
			sigs[k] = recs[i].sig
		}
		for k, dup := range mh.nearDuplicates(sigs, opts.Curate.NearDupThreshold) {
			if dup {
				recs[idx[k]].drop = DropNearDup
			}
		}
	}
	for i := range recs {
		recs[i].sig = nil // done with: the records stay for pass 2
	}
	if opts.Curate.PerRepoCap > 0 {
		type key struct{ repo, stage, kind string }
		groups := map[key][]int{}
		for i := range recs {
			if recs[i].drop == "" {
				k := key{recs[i].repo, recs[i].stage, recs[i].kind}
				groups[k] = append(groups[k], i)
			}
		}
		for _, g := range groups {
			if len(g) <= opts.Curate.PerRepoCap {
				continue
			}
			byHash(recs, g)
			for _, i := range g[opts.Curate.PerRepoCap:] {
				recs[i].drop = DropPerRepoCap
			}
		}
	}
}

func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }

// normalHash is the sha256 of the parts with their whitespace runs made
// one space (normalise), NUL between parts, computed without building the
// normalised text: a logged prompt can be long, and every example is
// hashed.
func normalHash(parts ...string) [32]byte {
	h := sha256.New()
	buf := make([]byte, 0, 32<<10)
	for i, p := range parts {
		if i > 0 {
			buf = append(buf, 0)
		}
		first := true
		for j := 0; j < len(p); {
			for j < len(p) && asciiSpace(p[j]) {
				j++
			}
			k := j
			for k < len(p) && !asciiSpace(p[k]) {
				k++
			}
			if k > j {
				if !first {
					buf = append(buf, ' ')
				}
				buf, first = append(buf, p[j:k]...), false
			}
			if len(buf) > 16<<10 {
				h.Write(buf)
				buf = buf[:0]
			}
			j = k
		}
	}
	h.Write(buf)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func asciiSpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

// ExampleID is the id of the example of dataset made from targetID: the
// hex of exampleKey (curate/distill names its examples by it).
func ExampleID(dataset, targetID string) string {
	h := exampleKey(dataset, targetID)
	return hex.EncodeToString(h[:])
}

// exampleKey is sha256(dataset NUL targetID): deterministic, so a re-run
// gives the same ids.
func exampleKey(dataset, targetID string) [32]byte {
	return sha256.Sum256([]byte(dataset + "\x00" + targetID))
}

// sortByID orders records by id, the order every decision takes them in.
func sortByID(recs []record) {
	sort.Slice(recs, func(i, j int) bool { return bytes.Compare(recs[i].id[:], recs[j].id[:]) < 0 })
}

// byHash orders the records at idx by the unit hash of their hex id: the
// fixed order in which a cap or a balance keeps them.
func byHash(recs []record, idx []int) {
	h := make(map[int]float64, len(idx))
	for _, i := range idx {
		h[i] = kb.UnitHash(hex.EncodeToString(recs[i].id[:]))
	}
	sort.Slice(idx, func(a, b int) bool { return h[idx[a]] < h[idx[b]] })
}

func toSet(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}
