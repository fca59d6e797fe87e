package distill

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb/schema"
)

// How an answer was checked.
const (
	CheckedGroundTruth = "ground_truth" // against the stage's ground truth
	CheckedParse       = "parse"        // no ground truth: parsed (and for a plan validated) only
)

// verdict is what verification says of one answer for one item.
type verdict struct {
	ok      bool
	checked string
	reason  string
	score   *float64
	// answer is the answer as the stage's parser reads it back (its
	// renderer's text): what a training example's assistant turn holds.
	answer string
}

// verify parses text with the stage's parser and checks it against the
// ground truth of t (nil: parsing is the check), by the thresholds th:
// scope by recall and precision of the files kept, precision by the F1 of
// its non-excluded symbols and the recall of the primary ones, plan by
// validation against the repository and the F1 of its files, meta_plan
// and part_plan (cra solve's plan passes) by their parser's validation and
// the F1 of the files their parts or steps name, implement by
// applying the edits to the parent content and reproducing the child byte
// for byte.
func verify(stage string, t *curate.Task, text string, th config.TeacherVerify) verdict {
	switch stage {
	case schema.StageScope:
		return verifyScope(t, text, th)
	case schema.StagePrecision:
		return verifyPrecision(t, text, th)
	case schema.StagePlan:
		return verifyPlan(t, text, th)
	case schema.StageMetaPlan:
		return verifyDecomposition(t, text, th, schema.StageMetaPlan, prompt.ParseMetaPlan, prompt.RenderMetaPlan,
			func(m schema.MetaPlan) (files []string) {
				for _, p := range m.Parts {
					files = append(files, p.AffectedFiles...)
				}
				return files
			})
	case schema.StagePartPlan:
		return verifyDecomposition(t, text, th, schema.StagePartPlan, prompt.ParsePartPlan, prompt.RenderPartPlan,
			func(p schema.PartPlan) (files []string) {
				for _, s := range p.Steps {
					files = append(files, s.TargetFiles...)
				}
				return files
			})
	case schema.StageImplement:
		return verifyImplement(t, text)
	}
	return verdict{reason: "no verification for stage " + stage}
}

func rejected(format string, args ...any) verdict {
	return verdict{checked: CheckedGroundTruth, reason: fmt.Sprintf(format, args...)}
}

// unchecked is an answer that parsed, with no ground truth to hold it to.
func unchecked(answer string) verdict {
	return verdict{ok: true, checked: CheckedParse, reason: "parsed; no ground truth to check it against", answer: answer}
}

func verifyScope(t *curate.Task, text string, th config.TeacherVerify) verdict {
	resp, err := prompt.ParseScope(text)
	if err != nil {
		return verdict{checked: CheckedParse, reason: "unparsable: " + err.Error()}
	}
	answer := prompt.RenderScope(resp)
	if t == nil {
		return unchecked(answer)
	}
	truth, err := curate.DecodeTarget[schema.ScopeTarget](t, schema.StageScope)
	if err != nil {
		return rejected("ground truth: %v", err)
	}
	want := map[string]bool{}
	for _, c := range truth.Candidates {
		if c.Relevant {
			want[c.Path] = true
		}
	}
	recall, precision := overlap(resp.Relevant, want)
	v := verdict{checked: CheckedGroundTruth, score: &recall, answer: answer,
		reason: fmt.Sprintf("scope recall %.2f, precision %.2f", recall, precision)}
	switch {
	case recall < th.ScopeMinRecall:
		v.reason += fmt.Sprintf(": recall under %.2f", th.ScopeMinRecall)
	case precision < th.ScopeMinPrecision:
		v.reason += fmt.Sprintf(": precision under %.2f", th.ScopeMinPrecision)
	default:
		v.ok = true
	}
	return v
}

func verifyPrecision(t *curate.Task, text string, th config.TeacherVerify) verdict {
	resp, err := prompt.ParsePrecision(text)
	if err != nil {
		return verdict{checked: CheckedParse, reason: "unparsable: " + err.Error()}
	}
	answer := prompt.RenderPrecision(resp)
	if t == nil {
		return unchecked(answer)
	}
	truth, err := curate.DecodeTarget[schema.PrecisionTarget](t, schema.StagePrecision)
	if err != nil {
		return rejected("ground truth: %v", err)
	}
	want, primary := map[string]bool{}, map[string]bool{}
	for _, s := range truth.Symbols {
		key := prompt.PrecisionSymbol{File: s.File, QualifiedName: s.QualifiedName}.Key()
		if s.Tier != schema.TierExcluded {
			want[key] = true
		}
		if s.Tier == schema.TierPrimary {
			primary[key] = true
		}
	}
	var got []string
	hit := 0
	for k, tier := range resp.Symbols {
		if tier == schema.TierExcluded {
			continue
		}
		got = append(got, k)
		if tier == schema.TierPrimary && primary[k] {
			hit++
		}
	}
	f1 := fOne(overlap(got, want))
	primaryRecall := 1.0
	if len(primary) > 0 {
		primaryRecall = float64(hit) / float64(len(primary))
	}
	v := verdict{checked: CheckedGroundTruth, score: &f1, answer: answer,
		reason: fmt.Sprintf("precision F1 %.2f, primary recall %.2f", f1, primaryRecall)}
	switch {
	case f1 < th.PrecisionMinF1:
		v.reason += fmt.Sprintf(": F1 under %.2f", th.PrecisionMinF1)
	case primaryRecall < th.PrecisionMinPrimaryRecall:
		v.reason += fmt.Sprintf(": primary recall under %.2f", th.PrecisionMinPrimaryRecall)
	default:
		v.ok = true
	}
	return v
}

func verifyPlan(t *curate.Task, text string, th config.TeacherVerify) verdict {
	plan, err := prompt.ParsePlan(text) // parses and validates
	if err != nil {
		return verdict{checked: CheckedParse, reason: "invalid plan: " + err.Error()}
	}
	answer := prompt.RenderPlan(plan)
	if t == nil {
		return unchecked(answer)
	}
	truth, err := curate.DecodeTarget[schema.PlanArtifact](t, schema.StagePlan)
	if err != nil {
		return rejected("ground truth: %v", err)
	}
	if err := plan.Check(parentFiles(t, plan)); err != nil {
		return rejected("plan does not fit the repository: %v", err)
	}
	var got []string
	want := map[string]bool{}
	for _, f := range plan.AffectedFiles {
		got = append(got, f.Path)
	}
	for _, f := range truth.AffectedFiles {
		want[f.Path] = true
	}
	f1 := fOne(overlap(got, want))
	v := verdict{checked: CheckedGroundTruth, score: &f1, answer: answer, reason: fmt.Sprintf("plan file F1 %.2f", f1)}
	if f1 < th.PlanMinFileF1 {
		v.reason += fmt.Sprintf(": under %.2f", th.PlanMinFileF1)
	} else {
		v.ok = true
	}
	return v
}

// verifyDecomposition checks a meta plan or a part plan: it parses (and
// validates), and the files its parts or steps name match the ground
// truth's by F1 at least the plan's threshold.
func verifyDecomposition[T any](t *curate.Task, text string, th config.TeacherVerify, stage string,
	parse func(string) (T, error), render func(T) string, files func(T) []string) verdict {
	got, err := parse(text)
	if err != nil {
		return verdict{checked: CheckedParse, reason: "invalid " + stage + ": " + err.Error()}
	}
	answer := render(got)
	if t == nil {
		return unchecked(answer)
	}
	truth, err := curate.DecodeTarget[T](t, stage)
	if err != nil {
		return rejected("ground truth: %v", err)
	}
	want := map[string]bool{}
	for _, f := range files(truth) {
		want[f] = true
	}
	f1 := fOne(overlap(files(got), want))
	v := verdict{checked: CheckedGroundTruth, score: &f1, answer: answer, reason: fmt.Sprintf("%s file F1 %.2f", stage, f1)}
	if f1 < th.PlanMinFileF1 {
		v.reason += fmt.Sprintf(": under %.2f", th.PlanMinFileF1)
	} else {
		v.ok = true
	}
	return v
}

// parentFiles says which paths exist at the commit's parent, as far as the
// ground truth knows: the scope candidates, the precision symbols' files
// and the implement files (less the ones the commit creates). A path it
// does not know is taken as the plan says (modify or delete: it exists).
func parentFiles(t *curate.Task, plan schema.PlanArtifact) func(string) bool {
	known, created := map[string]bool{}, map[string]bool{}
	if s, err := curate.DecodeTarget[schema.ScopeTarget](t, schema.StageScope); err == nil {
		for _, c := range s.Candidates {
			known[c.Path] = true
		}
		for _, p := range s.Created {
			created[p] = true
		}
	}
	if p, err := curate.DecodeTarget[schema.PrecisionTarget](t, schema.StagePrecision); err == nil {
		for _, s := range p.Symbols {
			known[s.File] = true
		}
	}
	if im, err := curate.DecodeTarget[schema.ImplementTarget](t, schema.StageImplement); err == nil {
		for _, f := range im.Files {
			if f.Created {
				created[f.Path] = true
			} else {
				known[f.Path] = true
			}
		}
	}
	role := map[string]string{}
	for _, f := range plan.AffectedFiles {
		role[f.Path] = f.Role
	}
	return func(p string) bool {
		switch {
		case created[p]:
			return false
		case known[p]:
			return true
		}
		return role[p] != "create"
	}
}

func verifyImplement(t *curate.Task, text string) verdict {
	edits, err := prompt.ParseEdits(text)
	if err != nil {
		return verdict{checked: CheckedParse, reason: "unparsable: " + err.Error()}
	}
	if len(edits) == 0 {
		return verdict{checked: CheckedParse, reason: "no edit in the answer"}
	}
	answer := prompt.RenderEdits(edits)
	if t == nil {
		return unchecked(answer)
	}
	truth, err := curate.DecodeTarget[schema.ImplementTarget](t, schema.StageImplement)
	if err != nil {
		return rejected("ground truth: %v", err)
	}
	if why := reproduces(truth, edits); why != "" {
		return rejected("%s", why)
	}
	one := 1.0
	return verdict{ok: true, checked: CheckedGroundTruth, score: &one, answer: answer, reason: "reproduces the commit byte for byte"}
}

// reproduces applies edits to the parent content of the ground truth's
// files and compares each result with the child (the ground truth's own
// edits applied, schema.ApplyEdits being the one meaning of an edit);
// "" when every file comes out the same, deletions included.
func reproduces(truth schema.ImplementTarget, edits []schema.Edit) string {
	byFile := func(es []schema.Edit) map[string][]schema.Edit {
		m := map[string][]schema.Edit{}
		for _, e := range es {
			m[e.File] = append(m[e.File], e)
		}
		return m
	}
	want, got := byFile(truth.Edits), byFile(edits)
	parents := map[string]bool{}
	for _, f := range truth.Files {
		parents[f.Path] = true
	}
	var extra []string
	for f := range got {
		if !parents[f] {
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Sprintf("edits %v, which the commit did not change", extra)
	}
	for _, f := range truth.Files {
		parent := []byte(f.Content)
		child, err := schema.ApplyEdits(parent, want[f.Path])
		if err != nil {
			return fmt.Sprintf("ground truth of %s does not apply: %v", f.Path, err)
		}
		mine, err := schema.ApplyEdits(parent, got[f.Path])
		if err != nil {
			return err.Error()
		}
		if !bytes.Equal(mine, child) || schema.DeletesFile(parent, got[f.Path]) != schema.DeletesFile(parent, want[f.Path]) {
			return fmt.Sprintf("%s does not come out as the commit has it", f.Path)
		}
	}
	return ""
}

// overlap is the recall and precision of got against want (an empty want
// is met by an empty got).
func overlap(got []string, want map[string]bool) (recall, precision float64) {
	seen := map[string]bool{}
	hit := 0
	for _, g := range got {
		if !seen[g] {
			seen[g] = true
			if want[g] {
				hit++
			}
		}
	}
	recall, precision = 1, 1
	if len(want) > 0 {
		recall = float64(hit) / float64(len(want))
	}
	if len(seen) > 0 {
		precision = float64(hit) / float64(len(seen))
	} else if len(want) > 0 {
		precision = 0
	}
	return recall, precision
}

func fOne(recall, precision float64) float64 {
	if recall+precision == 0 {
		return 0
	}
	return 2 * recall * precision / (recall + precision)
}
