package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Thresholds of the analysis, stated in the report.
const (
	// MinObservations is the fewest plain-run tasks with an end-to-end
	// outcome (or oracle pairs) train-plan draws a conclusion from.
	MinObservations = 20
	// MinCharged is the fewest failed runs a stage must be charged with
	// for its blame share to choose it.
	MinCharged = 5
	// EventsPerStage is the fewest failures and successes per stage in the
	// logistic regression (the usual ten events per variable).
	EventsPerStage = 10
	// Alpha is the significance level, over the stages tested together.
	Alpha = 0.05
	// Power is the power the sample-size estimate asks for.
	Power = 0.8
)

// Definitional holds the stages whose being right is defined by the
// task's end-to-end success, with why: cra eval scores implement right
// exactly when the task succeeds (agent/eval/score.go), so "implement
// wrong" and "failed" are one fact and their odds ratio is an identity,
// however large. Such an association is shown and flagged, never tested:
// it stays out of the Holm family (where it would only weaken the other
// stages' tests), out of the regression (where it separates the outcomes)
// and so out of rule 2.
var Definitional = map[string]string{
	schema.StageImplement: "cra eval scores implement right exactly when the task succeeds end to end",
}

// NoteOneRepository stands where a per-repository figure's interval would,
// when the evidence comes from one repository.
const NoteOneRepository = "n/a, 1 repository"

// Input is what the analysis reads from the raw store, and the routes
// the evidence is separated by (adapters.go).
type Input struct {
	Runs     []kb.EvalRunInfo
	Outcomes []kb.EvalOutcome
	Solve    []kb.SolveRun
	// Routes is each stage's current route: stage → its champion's
	// NAME@V; a stage absent is the base model's.
	Routes map[string]string
	// Gates is the latest gate verdict of every adapter version gated.
	Gates []kb.GateRow
	// NamedEvals says the user named the eval runs (--eval): the gate's
	// evals then count like any other.
	NamedEvals bool
	// AskEvals are cra ask --eval's runs: reported, not attributed.
	AskEvals []kb.AskReport
}

// outcome helpers: a stage is right when its `correct` is 1, a task
// succeeded when end_to_end success is 1.
func wrong(o kb.EvalOutcome, stage string) (isWrong, scored bool) {
	v, ok := o.Score(stage, MetricCorrect)
	return ok && v < 0.5, ok
}

func failed(o kb.EvalOutcome) (isFailed, known bool) {
	v, ok := o.Score(EndToEnd, MetricSuccess)
	return ok && v < 0.5, ok
}

// Analyze computes every figure of the evidence from in, pooling only
// what the current routes answered (adapters.go).
func Analyze(in Input) *Evidence {
	in, gateEvals := withoutGateEvals(in)
	sep := newSeparation(in)
	plain := map[int64]bool{}
	e := &Evidence{WrongOutputs: map[string]int{}, Lifts: []OracleLift{}}
	held := map[string]bool{}
	heldRun := map[int64]bool{}
	for _, r := range in.Runs {
		e.EvalRuns = append(e.EvalRuns, EvalRunRef{ID: r.ID, Name: r.Name, Oracle: nonNil(r.Oracle), Split: r.Split, StartedAt: r.StartedAt, Scored: r.Scored})
		plain[r.ID] = len(r.Oracle) == 0
		heldRun[r.ID] = r.Split != "validation"
	}
	var obs []kb.EvalOutcome
	repos := map[string]bool{}
	for _, o := range in.Outcomes {
		if heldRun[o.EvalRunID] {
			held[o.RepoPath] = true
		}
		if plain[o.EvalRunID] {
			obs = append(obs, o)
		}
	}
	full := sep.fullOnly(obs) // the end-to-end evidence
	fails, successes := 0, 0
	for _, o := range full {
		if f, ok := failed(o); ok {
			repos[o.RepoPath] = true
			if f {
				fails++
			} else {
				successes++
			}
		}
	}
	e.Observations, e.Failures, e.Repos = fails+successes, fails, len(repos)
	e.Success = newRate(successes, fails+successes)
	e.HoldoutRepos = sortedKeys(held)
	e.Lifts = oracleLifts(in.Runs, sep.fullOnly(in.Outcomes))
	for _, stage := range Stages {
		if s := stageEvidence(stage, obs, sep, e); s != nil {
			e.Stages = append(e.Stages, *s)
		}
	}
	holm(e)
	attribute(e, full)
	e.Regression = regress(e, full)
	e.RepoFailures = repoFailures(full)
	e.Trend = trend(in.Runs, obs, sep)
	solve, solveAside := sep.solveRuns(in.Solve)
	e.Solve = solveEvidence(solve)
	e.Adapters = sep.adapterEvidence(in, e, gateEvals, solveAside)
	e.AskEvals = in.AskEvals
	return e
}

// stageEvidence is one stage's scores and association; nil when no eval
// scored it and no oracle replaced it. Its scores count the tasks the
// stage's current route answered, its association the tasks every
// current route answered.
func stageEvidence(stage string, obs []kb.EvalOutcome, sep separation, e *Evidence) *StageEvidence {
	s := &StageEvidence{Stage: stage, Definitional: Definitional[stage]}
	right, scored := 0, 0
	var a, b, c, d int // wrong&fail, wrong&ok, right&fail, right&ok
	byMetric := map[string]map[string][]float64{}
	for _, o := range obs {
		w, ok := wrong(o, stage)
		if !ok || !sep.stage(o, stage) {
			continue
		}
		scored++
		if w {
			e.WrongOutputs[stage]++
		} else {
			right++
		}
		for m, v := range o.Scores[stage] {
			if m == MetricCorrect {
				continue
			}
			if byMetric[m] == nil {
				byMetric[m] = map[string][]float64{}
			}
			byMetric[m][o.RepoPath] = append(byMetric[m][o.RepoPath], v)
		}
		f, known := failed(o)
		switch {
		case !known || !sep.full(o):
		case w && f:
			a++
		case w:
			b++
		case f:
			c++
		default:
			d++
		}
	}
	for _, l := range e.Lifts {
		if len(l.Oracle) == 1 && l.Oracle[0] == stage {
			s.Lift = &l
		}
	}
	if scored == 0 && s.Lift == nil {
		return nil
	}
	if scored > 0 {
		r := newRate(right, scored)
		s.Correct = &r
	}
	for _, m := range sortedKeys(byMetric) {
		var groups [][]float64
		n := 0
		for _, repo := range sortedKeys(byMetric[m]) {
			groups = append(groups, byMetric[m][repo])
			n += len(byMetric[m][repo])
		}
		v, ci, method := stats.RepoMean(groups, stats.BootstrapReps, stats.BootstrapSeed)
		s.Metrics = append(s.Metrics, MetricMean{Metric: m, Value: stats.Round4(v), CI: ci, Method: method, Tasks: n, Repos: len(groups)})
	}
	if a+b > 0 && c+d > 0 {
		s.Association = newAssociation(a, b, c, d)
	}
	return s
}

// holm adjusts the stages' Fisher p-values together and marks the stages
// whose wrong output goes significantly with failure; then it estimates,
// per stage, how many tasks would show the association observed.
// Definitional associations are not tested (Definitional).
func holm(e *Evidence) {
	var idx []int
	var ps []float64
	for i, s := range e.Stages {
		if _, def := Definitional[s.Stage]; s.Association != nil && !def {
			idx = append(idx, i)
			ps = append(ps, s.Association.FisherP)
		}
	}
	for j, adj := range Holm(ps) {
		s := &e.Stages[idx[j]]
		s.Association.HolmP = stats.Round4(adj)
		s.Significant = adj < Alpha && s.Association.ORCI.Lo > 1
		as := s.Association
		ratio := float64(as.FailIfNot.N) / float64(as.FailIf.N)
		n := SampleSize(float64(as.FailIf.K)/float64(as.FailIf.N), float64(as.FailIfNot.K)/float64(as.FailIfNot.N),
			ratio, Alpha/float64(len(ps)), Power)
		if !math.IsInf(n, 0) {
			need := int(n)
			s.TasksNeeded = &need
		}
	}
}

// attribute charges each failed plain run to its earliest wrong stage.
func attribute(e *Evidence, obs []kb.EvalOutcome) {
	charged := map[string]int{}
	unattributed := 0
	for _, o := range obs {
		if f, _ := failed(o); !f {
			continue
		}
		first := ""
		for _, stage := range Stages {
			if w, _ := wrong(o, stage); w {
				first = stage
				break
			}
		}
		if first == "" {
			unattributed++
		} else {
			charged[first]++
		}
	}
	for i := range e.Stages {
		e.Stages[i].Blame = newRate(charged[e.Stages[i].Stage], e.Failures)
	}
	e.Unattributed = newRate(unattributed, e.Failures)
}

// regress fits end-to-end failure on the wrong-output indicators of the
// stages that vary and are not failure by definition, when there are
// enough events for them.
func regress(e *Evidence, obs []kb.EvalOutcome) Regression {
	var stages, definitional []string
	for _, s := range e.Stages {
		_, def := Definitional[s.Stage]
		switch {
		case s.Association == nil:
		case def:
			definitional = append(definitional, s.Stage)
		default:
			stages = append(stages, s.Stage)
		}
	}
	if len(stages) == 0 && len(definitional) > 0 {
		return Regression{Reason: fmt.Sprintf("no stage but %s (wrong exactly when the task failed, by definition) was both right and wrong "+
			"in scored runs with an outcome", strings.Join(definitional, ", "))}
	}
	if len(stages) == 0 {
		return Regression{Reason: "no stage was both right and wrong in scored runs with an outcome"}
	}
	var x [][]float64
	var y []float64
	fails := 0
	for _, o := range obs {
		f, known := failed(o)
		if !known {
			continue
		}
		row := make([]float64, len(stages))
		complete := true
		for j, stage := range stages {
			w, ok := wrong(o, stage)
			complete = complete && ok
			if w {
				row[j] = 1
			}
		}
		if !complete {
			continue
		}
		x = append(x, row)
		if f {
			y = append(y, 1)
			fails++
		} else {
			y = append(y, 0)
		}
	}
	r := Regression{Observations: len(x)}
	if events := min(fails, len(x)-fails); events < EventsPerStage*len(stages) {
		r.Reason = fmt.Sprintf("not fitted: %s and %s for %s; it needs at least %d of each (%d per stage)",
			plural(fails, "failure"), plural(len(x)-fails, "success"), plural(len(stages), "stage"), EventsPerStage*len(stages), EventsPerStage)
		return r
	}
	fit, err := Logistic(x, y)
	if err != nil {
		r.Reason = "not fitted: " + err.Error()
		return r
	}
	r.Fitted = true
	for j, coef := range fit.Coef {
		term := "intercept"
		if j > 0 {
			term = stages[j-1] + " wrong"
		}
		r.Coefficients = append(r.Coefficients, Coefficient{Term: term, Estimate: stats.Round4(coef), SE: stats.Round4(fit.SE[j]),
			CI: fit.CI[j], OddsRatio: stats.Round4(math.Exp(coef))})
	}
	return r
}

// oracleLifts pairs each oracle run's tasks with the same tasks of a plain
// run — the plain run of the same name, else the one sharing most tasks —
// and pools the pairs of each oracle set.
func oracleLifts(runs []kb.EvalRunInfo, outcomes []kb.EvalOutcome) []OracleLift {
	success := map[int64]map[string]bool{}
	for _, o := range outcomes {
		if f, ok := failed(o); ok {
			if success[o.EvalRunID] == nil {
				success[o.EvalRunID] = map[string]bool{}
			}
			success[o.EvalRunID][o.TaskID] = !f
		}
	}
	type pool struct {
		cells [4]int // both, oracle only, plain only, neither
		names map[string]bool
	}
	pools := map[string]*pool{}
	for _, r := range runs {
		if len(r.Oracle) == 0 {
			continue
		}
		base := pairedRun(r, runs, success)
		if base == 0 {
			continue
		}
		key := strings.Join(r.Oracle, ",")
		p := pools[key]
		if p == nil {
			p = &pool{names: map[string]bool{}}
			pools[key] = p
		}
		p.names[r.Name] = true
		for task, withOracle := range success[r.ID] {
			without, ok := success[base][task]
			if !ok {
				continue
			}
			switch {
			case withOracle && without:
				p.cells[0]++
			case withOracle:
				p.cells[1]++
			case without:
				p.cells[2]++
			default:
				p.cells[3]++
			}
		}
	}
	out := []OracleLift{}
	for _, key := range sortedKeys(pools) {
		p := pools[key]
		n := p.cells[0] + p.cells[1] + p.cells[2] + p.cells[3]
		if n == 0 {
			continue
		}
		lift, ci := stats.PairedDifference(p.cells[0], p.cells[1], p.cells[2], p.cells[3])
		out = append(out, OracleLift{Oracle: strings.Split(key, ","), EvalName: strings.Join(sortedKeys(p.names), ","), Pairs: n,
			WithOracle: newRate(p.cells[0]+p.cells[1], n), Without: newRate(p.cells[0]+p.cells[2], n), Lift: stats.Round4(lift), CI: ci})
	}
	return out
}

// pairedRun is the plain run an oracle run is compared with: the newest
// of the same name sharing tasks, else the one sharing most tasks; 0 if
// none shares any.
func pairedRun(o kb.EvalRunInfo, runs []kb.EvalRunInfo, success map[int64]map[string]bool) int64 {
	shared := func(id int64) int {
		n := 0
		for task := range success[o.ID] {
			if _, ok := success[id][task]; ok {
				n++
			}
		}
		return n
	}
	var best int64
	bestSame, bestN := false, 0
	for _, r := range runs {
		n := 0
		if len(r.Oracle) == 0 {
			n = shared(r.ID)
		}
		if n == 0 {
			continue
		}
		// Runs are oldest first, so a later run wins a tie.
		if same := r.Name == o.Name; (same && !bestSame) || (same == bestSame && (same || n >= bestN)) {
			best, bestSame, bestN = r.ID, same, n
		}
	}
	return best
}

// repoFailures is each repository's failure rate, worst first. With one
// repository there is no interval: its rate is the overall one (whose
// interval the scores give), and a per-repository interval would suggest
// a comparison there is nothing to make with.
func repoFailures(obs []kb.EvalOutcome) []RepoFailure {
	type count struct{ fail, n int }
	by := map[string]*count{}
	for _, o := range obs {
		f, ok := failed(o)
		if !ok {
			continue
		}
		c := by[o.RepoPath]
		if c == nil {
			c = &count{}
			by[o.RepoPath] = c
		}
		c.n++
		if f {
			c.fail++
		}
	}
	out := []RepoFailure{}
	for repo, c := range by {
		out = append(out, RepoFailure{Repo: repo, Failure: newRate(c.fail, c.n)})
	}
	if len(out) == 1 {
		out[0].Failure.CI, out[0].Note = stats.NoInterval(), NoteOneRepository
	}
	slices.SortFunc(out, func(a, b RepoFailure) int {
		return cmp.Or(cmp.Compare(b.Failure.Value, a.Failure.Value), cmp.Compare(a.Repo, b.Repo))
	})
	return out
}

// trend is each plain run's per-stage scores, oldest first, each over
// the tasks sep pools for it.
func trend(runs []kb.EvalRunInfo, obs []kb.EvalOutcome, sep separation) []TrendPoint {
	out := []TrendPoint{}
	for _, r := range runs {
		if len(r.Oracle) > 0 {
			continue
		}
		p := TrendPoint{EvalRunID: r.ID, Name: r.Name, StartedAt: r.StartedAt, Correct: map[string]Rate{}}
		right, scored := map[string]int{}, map[string]int{}
		ok, known := 0, 0
		for _, o := range obs {
			if o.EvalRunID != r.ID {
				continue
			}
			for _, stage := range Stages {
				if w, s := wrong(o, stage); s && sep.stage(o, stage) {
					scored[stage]++
					if !w {
						right[stage]++
					}
				}
			}
			if f, k := failed(o); k && sep.full(o) {
				known++
				if !f {
					ok++
				}
			}
		}
		for stage, n := range scored {
			p.Correct[stage] = newRate(right[stage], n)
		}
		if known > 0 {
			s := newRate(ok, known)
			p.Success = &s
		}
		if len(scored) > 0 || known > 0 {
			out = append(out, p)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
