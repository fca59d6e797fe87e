package eval

import (
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb/schema"
)

// ScoredStages are the stages an eval scores, in pipeline order.
var ScoredStages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision,
	schema.StageMetaPlan, schema.StagePartPlan, schema.StageImplement}

// StageEndToEnd is the stage of the whole run's outcome.
const StageEndToEnd = schema.StageEndToEnd

// Metric names. Every scored stage has MetricCorrect: 1 when its output is
// right by the stage's rule (see README), which failure attribution reads.
const (
	MetricCorrect    = schema.MetricCorrect
	MetricRecall     = "recall"
	MetricPrecision  = "precision"
	MetricF1         = "f1"
	MetricReach      = "reach"
	MetricAccuracy   = "accuracy"
	MetricMacroF1    = "macro_f1"
	MetricOrder      = "order"
	MetricRoles      = "roles"
	MetricActions    = "actions"
	MetricParts      = "parts"
	MetricApply      = "edits_apply"
	MetricReproduce  = "reproduce"
	MetricSimilarity = "similarity"
	MetricTests      = "tests"
	MetricSuccess    = schema.MetricSuccess
)

// Score is one metric of one stage for one task.
type Score struct {
	Stage, Metric string
	Value         float64
}

// runView is what a finished run did, read back from its rows, sessions
// and branch.
type runView struct {
	Seeds   []retrieval.Mention // the meta-plan pass's task analysis merged with the mentions
	Context *retrieval.Context  // the meta-plan pass's retrieval
	Meta    *schema.MetaPlan
	Parts   []schema.PartPlan // in the order the run planned them
	Applied []bool            // per implement attempt, whether its patch applied
	Status  string            // the orchestrator's: complete, partial, failed
	// Final is each file the run or the commit changed, as the run left it
	// (nil: absent); Changed the paths the run changed.
	Final   map[string]*string
	Changed []string
}

// score scores a run against the task's ground truth, stage by stage.
// A stage the run never reached gets 0 on each of its metrics. End-to-end
// success is judged as j says (runPassed: the commit's tests on the run's
// result passed); a run that changed nothing never succeeds, and an
// undecidable task gets no success, right or wrong.
func score(t Task, v runView, j judgement, runPassed bool) []Score {
	var out []Score
	add := func(stage, metric string, x float64) { out = append(out, Score{stage, metric, x}) }
	flag := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	touched := t.Truth.Touched()

	// Task analysis: did its seeds find the files the commit touched?
	if len(touched) > 0 {
		var seeds []string
		for _, s := range v.Seeds {
			seeds = append(seeds, s.Files...)
		}
		r := recall(seeds, touched)
		add(schema.StageTaskAnalysis, MetricRecall, r)
		add(schema.StageTaskAnalysis, MetricCorrect, flag(r == 1))
	}

	// Scope: the files kept against the files touched.
	if len(touched) > 0 {
		var kept, cands []string
		if v.Context != nil {
			kept = v.Context.KeptPaths()
			for _, c := range v.Context.Candidates {
				cands = append(cands, c.Path)
			}
		}
		r, p := recall(kept, touched), recall(touched, kept)
		add(schema.StageScope, MetricRecall, r)
		add(schema.StageScope, MetricPrecision, p)
		add(schema.StageScope, MetricF1, f1(p, r))
		add(schema.StageScope, MetricReach, flag(recall(cands, touched) == 1))
		add(schema.StageScope, MetricCorrect, flag(r == 1))
	}

	// Precision: the tiers of the touched files' symbols.
	if syms := t.Truth.Precision.Symbols; len(syms) > 0 {
		got := map[string]string{}
		if v.Context != nil {
			got = v.Context.Symbols
		}
		var truth, pred []string
		primaryRight := true
		for _, s := range syms {
			tier, ok := got[s.File+":"+s.QualifiedName]
			if !ok {
				tier = schema.TierExcluded
			}
			truth, pred = append(truth, s.Tier), append(pred, tier)
			if s.Tier == schema.TierPrimary && tier != schema.TierPrimary {
				primaryRight = false
			}
		}
		acc, mf1 := accuracyAndMacroF1(truth, pred)
		add(schema.StagePrecision, MetricAccuracy, acc)
		add(schema.StagePrecision, MetricMacroF1, mf1)
		add(schema.StagePrecision, MetricCorrect, flag(primaryRight))
	}

	// The plan passes: the files the meta plan's parts and the part plans'
	// steps name, and the order the steps take them in.
	want := t.Truth.MetaPlan.Parts
	if len(want) > 0 {
		var wantFiles, metaFiles []string
		for _, p := range want {
			wantFiles = append(wantFiles, p.AffectedFiles...)
		}
		if v.Meta != nil {
			for _, p := range v.Meta.Parts {
				metaFiles = appendNew(metaFiles, p.AffectedFiles...)
			}
			add(schema.StageMetaPlan, MetricParts, flag(len(v.Meta.Parts) == len(want)))
		} else {
			add(schema.StageMetaPlan, MetricParts, 0)
		}
		mf := f1(recall(wantFiles, metaFiles), recall(metaFiles, wantFiles))
		add(schema.StageMetaPlan, MetricF1, mf)
		add(schema.StageMetaPlan, MetricCorrect, flag(mf == 1))

	}
	if len(t.Truth.PartPlan.Steps) > 0 { // a merged branch's task has no one part plan
		var stepFiles, order []string
		for _, p := range v.Parts {
			for _, s := range p.Steps {
				stepFiles = appendNew(stepFiles, s.TargetFiles...)
			}
		}
		for _, p := range t.Truth.PartPlan.Steps {
			order = appendNew(order, p.TargetFiles...)
		}
		pf := f1(recall(order, stepFiles), recall(stepFiles, order))
		ord := orderAgreement(stepFiles, order)
		add(schema.StagePartPlan, MetricF1, pf)
		add(schema.StagePartPlan, MetricOrder, ord)
		add(schema.StagePartPlan, MetricCorrect, flag(pf == 1 && ord == 1))
	}
	if roles, ok := roleAccuracy(t.Truth, v); ok {
		add(schema.StagePartPlan, MetricRoles, roles)
	}
	if actions, ok := actionAccuracy(t.Truth, v); ok {
		add(schema.StagePartPlan, MetricActions, actions)
	}

	// Implement: the edits applied, the files reproduce the commit, the
	// change is like the commit's, the tests pass.
	applied := 0
	for _, a := range v.Applied {
		if a {
			applied++
		}
	}
	if len(v.Applied) > 0 {
		add(schema.StageImplement, MetricApply, float64(applied)/float64(len(v.Applied)))
	} else {
		add(schema.StageImplement, MetricApply, 0)
	}
	exact, sim := reproduction(t.Truth.Implement, v)
	add(schema.StageImplement, MetricReproduce, flag(exact))
	add(schema.StageImplement, MetricSimilarity, sim)
	changed := len(v.Changed) > 0
	var success bool
	switch j.JudgedBy {
	case JudgedUndecidable:
		return out
	case JudgedByTests:
		success = runPassed && changed
		add(schema.StageImplement, MetricTests, flag(success))
	default:
		success = exact && changed
	}
	add(schema.StageImplement, MetricCorrect, flag(success))
	add(StageEndToEnd, MetricSuccess, flag(success))
	return out
}

// roleAccuracy is the share of the plan's files whose role (create,
// modify, delete) the run gave them: a part plan's steps name files but
// no roles, so the role a file got is read from what the run did to it
// (absent at the parent and there at the end: created; there and gone:
// deleted; changed: modified; untouched: none). ok is false without a
// plan.
func roleAccuracy(tr prompt.Truth, v runView) (float64, bool) {
	if len(tr.Plan.AffectedFiles) == 0 {
		return 0, false
	}
	atParent := map[string]bool{}
	for _, f := range tr.Implement.Files {
		atParent[f.Path] = !f.Created
	}
	right := 0
	for _, f := range tr.Plan.AffectedFiles {
		final, known := v.Final[f.Path]
		role := "none"
		switch {
		case !slices.Contains(v.Changed, f.Path):
		case !atParent[f.Path] && known && final != nil:
			role = "create"
		case atParent[f.Path] && final == nil:
			role = "delete"
		default:
			role = "modify"
		}
		if role == f.Role {
			right++
		}
	}
	return float64(right) / float64(len(tr.Plan.AffectedFiles)), true
}

// actionAccuracy is the share of the plan's symbol changes the run
// carried out, read from the text it left (a part plan's steps carry no
// actions either): an added symbol's name is in the file and was not at
// the parent; for a modified, renamed or deleted one, the file changed
// and the symbol's text at the parent (its lines, from the precision
// ground truth) survived in the run's file exactly when it survived in
// the commit's (a method appended to a class keeps the class's old lines;
// a body rewritten does not). Module-level changes and symbols the ground
// truth has no lines for are not counted; ok is false when none is.
func actionAccuracy(tr prompt.Truth, v runView) (float64, bool) {
	parent := map[string]string{}
	for _, f := range tr.Implement.Files {
		parent[f.Path] = f.Content
	}
	child := childContents(tr.Implement)
	lines := map[string]string{} // file NUL qualified name → its text at the parent
	for _, s := range tr.Precision.Symbols {
		ls := strings.Split(parent[s.File], "\n")
		if s.StartLine >= 1 && s.EndLine >= s.StartLine && s.EndLine <= len(ls) {
			lines[s.File+"\x00"+s.QualifiedName] = strings.Join(ls[s.StartLine-1:s.EndLine], "\n")
		}
	}
	right, counted := 0, 0
	for _, f := range tr.Plan.AffectedFiles {
		final, want := "", ""
		if p := v.Final[f.Path]; p != nil {
			final = *p
		}
		if p := child[f.Path]; p != nil {
			want = *p
		}
		changed := slices.Contains(v.Changed, f.Path)
		for _, c := range f.Changes {
			name := c.Symbol[strings.LastIndexByte(c.Symbol, '.')+1:]
			switch text, known := lines[f.Path+"\x00"+c.Symbol]; {
			case strings.HasPrefix(c.Symbol, "<"):
				continue
			case c.Action == "add":
				counted++
				if strings.Contains(final, name) && !strings.Contains(parent[f.Path], name) {
					right++
				}
			case known && strings.TrimSpace(text) != "":
				counted++
				if changed && strings.Contains(final, text) == strings.Contains(want, text) {
					right++
				}
			}
		}
	}
	if counted == 0 {
		return 0, false
	}
	return float64(right) / float64(counted), true
}

// childContents is each file of the commit as the commit left it (nil:
// deleted), its edits applied to the parent's content.
func childContents(im schema.ImplementTarget) map[string]*string {
	byFile := map[string][]schema.Edit{}
	for _, e := range im.Edits {
		byFile[e.File] = append(byFile[e.File], e)
	}
	out := map[string]*string{}
	for _, f := range im.Files {
		after, err := schema.ApplyEdits([]byte(f.Content), byFile[f.Path])
		if err != nil || schema.DeletesFile([]byte(f.Content), byFile[f.Path]) {
			out[f.Path] = nil
			continue
		}
		s := string(after)
		out[f.Path] = &s
	}
	return out
}

// reproduction says whether the run left exactly the commit's files, and
// how alike its change is to the commit's: the Dice coefficient of the
// changed lines (whitespace-normalised, per file, added and removed
// apart), 1 when both changed nothing.
func reproduction(im schema.ImplementTarget, v runView) (bool, float64) {
	child := childContents(im)
	parent := map[string]string{}
	exact := true
	for _, f := range im.Files {
		parent[f.Path] = f.Content
		if got, want := v.Final[f.Path], child[f.Path]; (got == nil) != (want == nil) || got != nil && *got != *want {
			exact = false
		}
	}
	for _, p := range v.Changed {
		if _, ok := child[p]; !ok {
			exact = false // a file the commit did not change
		}
	}
	var real, run []string
	for p, after := range child {
		real = append(real, changedLines(p, parent[p], after)...)
	}
	for p, after := range v.Final {
		base, ok := parent[p]
		if !ok && !slices.Contains(v.Changed, p) {
			continue
		}
		run = append(run, changedLines(p, base, after)...)
	}
	return exact, dice(real, run)
}

// changedLines are the lines removed from before and added in after, as
// "path -line" and "path +line", whitespace-normalised (a multiset
// difference: moved lines do not count).
func changedLines(path, before string, after *string) []string {
	count := map[string]int{}
	for _, l := range strings.Split(before, "\n") {
		count[norm(l)]--
	}
	if after != nil {
		for _, l := range strings.Split(*after, "\n") {
			count[norm(l)]++
		}
	}
	var out []string
	for l, n := range count {
		sign := "+"
		if n < 0 {
			sign, n = "-", -n
		}
		for range n {
			out = append(out, path+" "+sign+l)
		}
	}
	return out
}

func norm(line string) string { return strings.Join(strings.Fields(line), " ") }

// dice is 2|A∩B|/(|A|+|B|) over multisets; 1 for two empty ones.
func dice(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, x := range a {
		count[x]++
	}
	common := 0
	for _, x := range b {
		if count[x] > 0 {
			count[x]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// recall is the share of want found in got (1 when want is empty).
func recall(got, want []string) float64 {
	if len(want) == 0 {
		return 1
	}
	n := 0
	for _, w := range want {
		if slices.Contains(got, w) {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// orderAgreement is the share of pairs of files both orders hold that
// they put the same way round (1 with fewer than two in common).
func orderAgreement(got, want []string) float64 {
	var common []string
	for _, w := range want {
		if slices.Contains(got, w) {
			common = append(common, w)
		}
	}
	pairs, same := 0, 0
	for i := range common {
		for j := i + 1; j < len(common); j++ {
			pairs++
			if slices.Index(got, common[i]) < slices.Index(got, common[j]) {
				same++
			}
		}
	}
	if pairs == 0 {
		return 1
	}
	return float64(same) / float64(pairs)
}

// accuracyAndMacroF1 compares predicted labels with true ones: the share
// right, and the mean F1 over the labels that occur in either.
func accuracyAndMacroF1(truth, pred []string) (float64, float64) {
	if len(truth) == 0 {
		return 1, 1
	}
	right := 0
	var labels []string
	for i := range truth {
		if truth[i] == pred[i] {
			right++
		}
		labels = appendNew(labels, truth[i], pred[i])
	}
	var sum float64
	for _, l := range labels {
		tp, fp, fn := 0, 0, 0
		for i := range truth {
			switch {
			case truth[i] == l && pred[i] == l:
				tp++
			case pred[i] == l:
				fp++
			case truth[i] == l:
				fn++
			}
		}
		if tp > 0 {
			p, r := float64(tp)/float64(tp+fp), float64(tp)/float64(tp+fn)
			sum += f1(p, r)
		}
	}
	return float64(right) / float64(len(truth)), sum / float64(len(labels))
}

func appendNew(dst []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(dst, x) {
			dst = append(dst, x)
		}
	}
	return dst
}
