package curate

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Signals: where a logged example's label comes from.
const (
	SignalImplementTests = "implement_tests" // an implement attempt, labelled by its tests
	SignalCompleteRun    = "complete_run"    // a plan pass of a run whose parts all completed
	SignalEvalCorrect    = "eval_correct"    // a stage answer an eval scored against ground truth
	SignalSolveKept      = "solve_kept"      // a scope or precision answer of a solve run that succeeded, by whether it kept every file the diff touched
	SignalCoderRetry     = "coder_retry"     // pair: the failed first attempt against the retry that passed
	SignalAdjustment     = "adjustment"      // pair: the remaining steps as planned against the adjustment that then succeeded
	SignalEval           = "eval"            // pair: a wrong stage answer against the ground truth
	SignalTeacherStudent = "teacher_student" // pair: the student's failed answer against the teacher's verified one
	SignalDistilled      = "distilled"       // a teacher's verified answer
)

// example is one example of logged or distilled data before the filters: its
// text, its kind and label, and the evidence behind the label.
type example struct {
	target                     string // unique among the dataset's sources: what its id is made from
	kind, signal, stage, label string
	source                     string
	repo, commit, taskID       string
	run                        string // the logged run it came from, split by when there is no commit
	validation                 bool   // made by a run of cra eval: never in train
	system, user               string
	completion                 string // sft, kto
	chosen, rejected           string // preference
	evidence                   map[string]any
}

// items are the examples of one run, of the kinds asked for.
func (r *loggedRun) items(kinds map[string]bool) []example {
	var out []example
	add := func(it example) {
		if !kinds[it.kind] {
			return
		}
		it.source, it.repo, it.run, it.taskID, it.commit, it.validation = SourceLogged, r.repo, r.id, r.evalTask, r.commit, r.evalTask != ""
		if it.evidence == nil {
			it.evidence = map[string]any{}
		}
		it.evidence["run"] = r.id
		if r.evalTask != "" {
			it.evidence["eval_run_id"], it.evidence["eval_task_id"] = r.evalRun, r.evalTask
		}
		out = append(out, it)
	}
	// labelled answers: SFT when right, KTO either way.
	answer := func(c *loggedCall, stage, signal string, right bool, ev map[string]any) {
		ev["call_id"] = c.id
		label := kb.LabelNegative
		if right {
			label = kb.LabelPositive
			add(example{target: "sft:" + signal + ":" + itoa(c.id), kind: kb.KindSFT, signal: signal, stage: stage, label: kb.LabelPositive,
				system: c.system, user: c.user, completion: c.completion, evidence: ev})
		}
		add(example{target: "kto:" + signal + ":" + itoa(c.id), kind: kb.KindKTO, signal: signal, stage: stage, label: label,
			system: c.system, user: c.user, completion: c.completion, evidence: maps.Clone(ev)})
	}
	for i := range r.passes {
		p := &r.passes[i]
		if c := p.calls[schema.StageImplement]; c != nil && p.attempt != nil {
			answer(c, schema.StageImplement, SignalImplementTests, p.attempt.passed(), map[string]any{"pass_task_id": p.taskID,
				"attempt_id": p.attempt.id, "attempt": p.attempt.attempt, "patch_applied": p.attempt.applied,
				"tests_passed": p.attempt.testsPassed, "failing_tests": p.attempt.failingTests})
		}
		// An eval's verdict labels its plans instead (evalItems).
		if r.evalTask == "" && r.status == "complete" && p.success && (p.passType == schema.PassMetaPlan || p.passType == schema.PassPartPlan) {
			if c := p.calls[p.passType]; c != nil {
				answer(c, p.passType, SignalCompleteRun, true, map[string]any{"pass_task_id": p.taskID, "run_status": r.status})
			}
		}
	}
	r.retryPairs(add)
	r.adjustmentPairs(add)
	if r.evalTask != "" {
		r.evalItems(answer, add)
	} else if r.status == "complete" && r.success {
		r.keptItems(answer)
	}
	return out
}

// retryPairs adds a pair per step whose first attempt failed its tests and
// whose retry passed: the prompt is the first attempt's (the retry's
// failure context is not what the pair trains).
func (r *loggedRun) retryPairs(add func(example)) {
	first := map[string]*loggedPass{}
	for i := range r.passes {
		p := &r.passes[i]
		base := retrySuffix.ReplaceAllString(p.taskID, "")
		if p.taskID == base && p.calls[schema.StageImplement] != nil && p.attempt != nil {
			first[base] = p
			continue
		}
		f := first[base]
		c := p.calls[schema.StageImplement]
		if f == nil || c == nil || f.attempt.passed() || !p.attempt.passed() {
			continue
		}
		fc := f.calls[schema.StageImplement]
		add(example{target: "pair:" + SignalCoderRetry + ":" + itoa(fc.id) + ":" + itoa(c.id), kind: kb.KindPreference, signal: SignalCoderRetry,
			stage: schema.StageImplement, label: kb.LabelPair, system: fc.system, user: fc.user, chosen: c.completion, rejected: fc.completion,
			evidence: map[string]any{"rejected_call_id": fc.id, "chosen_call_id": c.id, "rejected_attempt_id": f.attempt.id,
				"chosen_attempt_id": p.attempt.id, "failing_tests": f.attempt.failingTests, "tests_passed": true, "retry": p.attempt.attempt}})
		delete(first, base) // one pair per step: its first passing retry
	}
}

var retrySuffix = regexp.MustCompile(`:retry_\d+$`)

// adjustmentPairs replays each part's steps as the orchestrator ran them
// (the part plan's steps, each implemented step taken off the front, each
// adjustment replacing what remained) and adds a pair per adjustment that
// changed the remaining steps when every step it led to then passed: its
// revised steps chosen, the steps as they were rejected.
func (r *loggedRun) adjustmentPairs(add func(example)) {
	type state struct {
		remaining []schema.PlanStep
		done      []string
		planned   bool
	}
	parts := map[string]*state{}
	for i := range r.passes {
		p := &r.passes[i]
		st := parts[p.partID]
		if st == nil {
			st = &state{}
			parts[p.partID] = st
		}
		switch p.passType {
		case schema.PassPartPlan:
			if c := p.calls[schema.StagePartPlan]; c != nil && p.success {
				if pp, err := prompt.ParsePartPlan(c.completion); err == nil {
					st.remaining, st.planned = pp.Steps, true
				}
			}
		case schema.PassStepImplement:
			if retrySuffix.MatchString(p.taskID) {
				continue
			}
			st.done = append(st.done, p.stepID)
			st.remaining = slices.DeleteFunc(slices.Clone(st.remaining), func(s schema.PlanStep) bool { return s.ID == p.stepID })
		case schema.PassAdjustment:
			c := p.calls[schema.StageAdjustment]
			if c == nil || !p.success || !st.planned {
				continue
			}
			adj, err := prompt.ParseAdjustment(c.completion, st.done, st.remaining)
			if err != nil {
				continue
			}
			// Both sides as a model that keeps what it does not change
			// writes them: the steps as planned are all kept by id, and
			// the chosen answer keeps each step it left as it was rather
			// than restating (teaching to guess) its files and symbols.
			var asPlanned []schema.AdjustedStep
			for _, s := range st.remaining {
				asPlanned = append(asPlanned, schema.Kept(s))
			}
			before := prompt.RenderAdjustment(schema.PlanAdjustment{RevisedSteps: asPlanned})
			chosen := adj.KeepUnchanged(st.remaining)
			after := prompt.RenderAdjustment(schema.PlanAdjustment{RevisedSteps: chosen.RevisedSteps, Rationale: adj.Rationale, ChangesMade: adj.ChangesMade})
			// A pair only where the steps changed: a new rationale alone
			// is no other plan.
			changed := prompt.RenderAdjustment(schema.PlanAdjustment{RevisedSteps: chosen.RevisedSteps}) != before
			if ok, later := r.thenPassed(i, p.partID); ok && changed {
				add(example{target: "pair:" + SignalAdjustment + ":" + itoa(c.id), kind: kb.KindPreference, signal: SignalAdjustment,
					stage: schema.StageAdjustment, label: kb.LabelPair, system: c.system, user: c.user, chosen: after, rejected: before,
					evidence: map[string]any{"call_id": c.id, "pass_task_id": p.taskID, "later_steps": later, "tests_passed": true}})
			}
			st.remaining = adj.Steps()
		}
	}
}

// thenPassed says whether every step of part implemented after pass i
// passed (by any of its attempts), and which; with none, whether the run
// completed.
func (r *loggedRun) thenPassed(i int, part string) (bool, []string) {
	passed := map[string]bool{}
	var order []string
	for _, p := range r.passes[i+1:] {
		if p.partID != part || p.passType != schema.PassStepImplement {
			continue
		}
		if _, seen := passed[p.stepID]; !seen {
			order = append(order, p.stepID)
			passed[p.stepID] = false
		}
		passed[p.stepID] = passed[p.stepID] || p.attempt.passed()
	}
	if len(order) == 0 {
		return r.status == "complete", []string{}
	}
	for _, ok := range passed {
		if !ok {
			return false, order
		}
	}
	return true, order
}

// evalItems labels the answers an eval scored: the meta-plan pass's task
// analysis, scope, precision and meta plan, and every part plan, by the
// stage's verdict; a wrong one also makes a pair with the ground truth.
func (r *loggedRun) evalItems(answer func(*loggedCall, string, string, bool, map[string]any), add func(example)) {
	for i := range r.passes {
		p := &r.passes[i]
		var stages []string
		switch p.passType {
		case schema.PassMetaPlan:
			stages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision, schema.StageMetaPlan}
		case schema.PassPartPlan:
			stages = []string{schema.StagePartPlan}
		}
		for _, stage := range stages {
			right, scored := r.scores[stage]
			c := p.calls[stage]
			if !scored || c == nil {
				continue
			}
			answer(c, stage, SignalEvalCorrect, right, map[string]any{"pass_task_id": p.taskID, "metric": "correct", "value": b2f(right)})
			if right || r.truth == nil {
				continue
			}
			truth, ok := r.truth.Answer(stage, c.user)
			if !ok {
				continue
			}
			add(example{target: "pair:" + SignalEval + ":" + itoa(c.id), kind: kb.KindPreference, signal: SignalEval, stage: stage,
				label: kb.LabelPair, system: c.system, user: c.user, chosen: truth, rejected: normalAnswer(stage, c.completion),
				evidence: map[string]any{"call_id": c.id, "pass_task_id": p.taskID, "metric": "correct", "value": 0}})
		}
	}
}

// keptItems labels the scope and precision answers of a solve run that
// succeeded by whether the files its scope kept include every file the
// final diff touched.
func (r *loggedRun) keptItems(answer func(*loggedCall, string, string, bool, map[string]any)) {
	touched := diffFiles(r.finalDiff)
	if len(touched) == 0 {
		return
	}
	for i := range r.passes {
		p := &r.passes[i]
		if p.passType != schema.PassMetaPlan {
			continue
		}
		sc := p.calls[schema.StageScope]
		if sc == nil {
			continue
		}
		s, err := prompt.ParseScope(sc.completion)
		if err != nil {
			continue
		}
		var missed []string
		for _, f := range touched {
			if !slices.Contains(s.Relevant, f) {
				missed = append(missed, f)
			}
		}
		for _, stage := range []string{schema.StageScope, schema.StagePrecision} {
			if c := p.calls[stage]; c != nil {
				answer(c, stage, SignalSolveKept, len(missed) == 0, map[string]any{"pass_task_id": p.taskID,
					"diff_files": touched, "missed": nonNilStrings(missed)})
			}
		}
	}
}

// normalAnswer is a stage's answer as its renderer writes it (so a pair's
// two sides differ in content, not in layout); the text itself when it
// does not parse.
func normalAnswer(stage, text string) string {
	switch stage {
	case schema.StageTaskAnalysis:
		if a, err := prompt.ParseTaskAnalysis(text); err == nil {
			return prompt.RenderTaskAnalysis(a)
		}
	case schema.StageScope:
		if s, err := prompt.ParseScope(text); err == nil {
			return prompt.RenderScope(s)
		}
	case schema.StagePrecision:
		if p, err := prompt.ParsePrecision(text); err == nil {
			return prompt.RenderPrecision(p)
		}
	case schema.StageMetaPlan:
		if m, err := prompt.ParseMetaPlan(text); err == nil {
			return prompt.RenderMetaPlan(m)
		}
	case schema.StagePartPlan:
		if p, err := prompt.ParsePartPlan(text); err == nil {
			return prompt.RenderPartPlan(p)
		}
	}
	return text
}

// diffFiles are the files a git diff touches, in order.
func diffFiles(diff string) []string {
	var files []string
	for _, line := range strings.Split(diff, "\n") {
		rest, ok := strings.CutPrefix(line, "diff --git a/")
		if !ok {
			continue
		}
		if _, b, ok := strings.Cut(rest, " b/"); ok && !slices.Contains(files, b) {
			files = append(files, b)
		}
	}
	return files
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
