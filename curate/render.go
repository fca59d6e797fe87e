package curate

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// Task is one synthetic task with the ground truth of every stage, as the
// renderers need it (the plan stage's context comes from the precision
// stage's symbols; the implement stage follows the plan).
type Task struct {
	ID, Repo, Commit, Task string
	Targets                map[string]json.RawMessage // stage → target
	TargetIDs              map[string]string          // stage → synthetic_targets.id
}

// rendered is one chat example before filtering.
type rendered struct {
	system, user, assistant string
	// trimmed says how many low-priority context items were left out to
	// fit the budget.
	trimmed int
}

// renderer turns one stage's ground truth into a chat example; trim asks
// it to leave out that many of its lowest-priority context items, and ok
// is false when it has no more to leave out.
type renderer func(t *Task, trim int) (r rendered, ok bool, err error)

var renderers = map[string]renderer{
	schema.StageScope:     renderScope,
	schema.StagePrecision: renderPrecision,
	schema.StagePlan:      renderPlan,
	schema.StageMetaPlan:  renderMetaPlan,
	schema.StagePartPlan:  renderPartPlan,
	schema.StageImplement: renderImplement,
}

// DecodeTarget is the ground truth of stage in t, as type T (the stage's
// schema type: schema.ScopeTarget for scope, ...).
func DecodeTarget[T any](t *Task, stage string) (T, error) {
	var v T
	raw, ok := t.Targets[stage]
	if !ok {
		return v, fmt.Errorf("task %s has no %s target", t.ID, stage)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("task %s: %s target: %w", t.ID, stage, err)
	}
	return v, nil
}

// renderScope: every candidate in expansion order; the answer lists the
// relevant ones. Trimming drops irrelevant candidates from the end (the
// highest tier and rank: the least likely to matter).
func renderScope(t *Task, trim int) (rendered, bool, error) {
	s, err := DecodeTarget[schema.ScopeTarget](t, schema.StageScope)
	if err != nil {
		return rendered{}, false, err
	}
	cands := dropLast(s.Candidates, trim, func(c schema.ScopeCandidate) bool { return !c.Relevant })
	if cands == nil && trim > 0 {
		return rendered{}, false, nil
	}
	in := prompt.ScopeInput{Task: t.Task}
	resp := prompt.ScopeResponse{Relevant: []string{}}
	for _, c := range cands {
		in.Candidates = append(in.Candidates, prompt.ScopeCandidate{Path: c.Path, Tier: c.Tier, Reason: c.Reason, Symbols: c.Symbols})
		if c.Relevant {
			resp.Relevant = append(resp.Relevant, c.Path)
		}
	}
	p := prompt.ScopePrompt(in)
	return rendered{p.System, p.User, prompt.RenderScope(resp), trim}, true, nil
}

// renderPrecision: every symbol of the touched files, the files in the
// order inference keeps them (scopeOrder); the answer tiers the ones that
// matter. Trimming drops excluded symbols from the end.
func renderPrecision(t *Task, trim int) (rendered, bool, error) {
	syms, ok, err := trimmedSymbols(t, trim)
	if err != nil || !ok {
		return rendered{}, ok, err
	}
	in := prompt.PrecisionInput{Task: t.Task}
	resp := prompt.PrecisionResponse{Symbols: map[string]string{}}
	for _, s := range syms {
		ps := prompt.PrecisionSymbol{File: s.File, QualifiedName: s.QualifiedName, Kind: s.Kind, Signature: s.Signature}
		in.Symbols = append(in.Symbols, ps)
		resp.Symbols[ps.Key()] = s.Tier
	}
	p := prompt.PrecisionPrompt(in)
	return rendered{p.System, p.User, prompt.RenderPrecision(resp), trim}, true, nil
}

// renderPlan: the context package of the touched files as cra plan
// assembles it (prompt.BuildContext over the precision target's tiers
// and the files' parent text: primary symbols in full, supporting ones as
// signatures, type definitions), the files in the order expansion proposed
// them (files it did not reach last, by path); the answer is the plan.
// Trimming cuts items in the order assembly does (prompt.CutOrder).
func renderPlan(t *Task, trim int) (rendered, bool, error) {
	plan, err := DecodeTarget[schema.PlanArtifact](t, schema.StagePlan)
	if err != nil {
		return rendered{}, false, err
	}
	files, ok, err := planContext(t, trim)
	if err != nil || !ok {
		return rendered{}, ok, err
	}
	p := prompt.PlanPrompt(prompt.PlanAtomic, prompt.PlanInput{Task: t.Task, Files: files})
	return rendered{p.System, p.User, prompt.RenderPlan(plan), trim}, true, nil
}

// renderMetaPlan: cra solve's first pass over the same context package as
// the plan stage; the answer is the task in parts (one for a commit).
func renderMetaPlan(t *Task, trim int) (rendered, bool, error) {
	meta, err := DecodeTarget[schema.MetaPlan](t, schema.StageMetaPlan)
	if err != nil {
		return rendered{}, false, err
	}
	files, ok, err := planContext(t, trim)
	if err != nil || !ok {
		return rendered{}, ok, err
	}
	p := prompt.PlanPrompt(prompt.PlanMeta, prompt.PlanInput{Task: t.Task, Files: files})
	return rendered{p.System, p.User, prompt.RenderMetaPlan(meta), trim}, true, nil
}

// renderPartPlan: the part plan of the meta plan's first part, over the
// same context package; the answer is its steps.
func renderPartPlan(t *Task, trim int) (rendered, bool, error) {
	meta, err := DecodeTarget[schema.MetaPlan](t, schema.StageMetaPlan)
	if err != nil {
		return rendered{}, false, err
	}
	part, err := DecodeTarget[schema.PartPlan](t, schema.StagePartPlan)
	if err != nil {
		return rendered{}, false, err
	}
	if len(meta.Parts) == 0 {
		return rendered{}, false, fmt.Errorf("task %s: a meta plan without parts", t.ID)
	}
	files, ok, err := planContext(t, trim)
	if err != nil || !ok {
		return rendered{}, ok, err
	}
	p := prompt.PlanPrompt(prompt.PlanPart, prompt.PlanInput{Task: t.Task, Files: files, Part: &meta.Parts[0]})
	return rendered{p.System, p.User, prompt.RenderPartPlan(part), trim}, true, nil
}

// planContext is the context package of the touched files as cra plan
// assembles it (prompt.BuildContext over the precision target's tiers and
// the files' parent text: primary symbols in full, supporting ones as
// signatures, type definitions), the files in the order expansion
// proposed them (files it did not reach last, by path), trim items cut in
// the order assembly cuts them (prompt.CutOrder).
func planContext(t *Task, trim int) ([]prompt.ContextFile, bool, error) {
	pt, err := DecodeTarget[schema.PrecisionTarget](t, schema.StagePrecision)
	if err != nil {
		return nil, false, err
	}
	content := map[string]string{}
	if im, err := DecodeTarget[schema.ImplementTarget](t, schema.StageImplement); err == nil {
		for _, f := range im.Files {
			content[f.Path] = f.Content
		}
	}
	var facts []prompt.FileFacts
	at := map[string]int{}
	for _, s := range pt.Symbols {
		i, ok := at[s.File]
		if !ok {
			i = len(facts)
			at[s.File] = i
			facts = append(facts, prompt.FileFacts{Path: s.File, Content: content[s.File]})
		}
		facts[i].Symbols = append(facts[i].Symbols, prompt.FactSymbol{Key: s.File + ":" + s.QualifiedName, Tier: s.Tier,
			Signature: s.Signature, StartLine: s.StartLine, EndLine: s.EndLine})
	}
	before := scopeOrder(t)
	sort.SliceStable(facts, func(i, j int) bool { return before(facts[i].Path, facts[j].Path) })
	pkg, ok := prompt.BuildContext(facts, "", trim)
	return pkg.Files, ok, nil
}

// scopeOrder orders files as inference keeps them: in the order expansion
// proposed them (the scope target's candidates), files it did not reach
// last, by path.
func scopeOrder(t *Task) func(a, b string) bool {
	rank := map[string]int{}
	if s, err := DecodeTarget[schema.ScopeTarget](t, schema.StageScope); err == nil {
		for i, c := range s.Candidates {
			rank[c.Path] = i + 1
		}
	}
	return func(a, b string) bool {
		ra, rb := rank[a], rank[b]
		if (ra == 0) != (rb == 0) {
			return rb == 0
		}
		if ra != rb {
			return ra < rb
		}
		return a < b
	}
}

// trimmedSymbols is the precision target's symbols, their files in scope
// order, without the last trim excluded ones; ok is false when fewer can
// go.
func trimmedSymbols(t *Task, trim int) ([]schema.PrecisionSymbol, bool, error) {
	pt, err := DecodeTarget[schema.PrecisionTarget](t, schema.StagePrecision)
	if err != nil {
		return nil, false, err
	}
	before := scopeOrder(t)
	sort.SliceStable(pt.Symbols, func(i, j int) bool {
		a, b := pt.Symbols[i].File, pt.Symbols[j].File
		return a != b && before(a, b)
	})
	syms := dropLast(pt.Symbols, trim, func(s schema.PrecisionSymbol) bool { return s.Tier == schema.TierExcluded })
	return syms, syms != nil || trim == 0, nil
}

// renderImplement: the plan and the parent content of every changed file;
// the answer is the verified edits. Nothing can be trimmed: the model must
// see what it edits.
func renderImplement(t *Task, trim int) (rendered, bool, error) {
	if trim > 0 {
		return rendered{}, false, nil
	}
	im, err := DecodeTarget[schema.ImplementTarget](t, schema.StageImplement)
	if err != nil {
		return rendered{}, false, err
	}
	plan, err := DecodeTarget[schema.PlanArtifact](t, schema.StagePlan)
	if err != nil {
		return rendered{}, false, err
	}
	in := prompt.ImplementInput{Task: t.Task, Plan: prompt.RenderPlan(plan)}
	for _, f := range im.Files {
		if !f.Created {
			in.Files = append(in.Files, prompt.File{Path: f.Path, Content: f.Content})
		}
	}
	p := prompt.ImplementPrompt(in)
	return rendered{p.System, p.User, prompt.RenderEdits(im.Edits), 0}, true, nil
}

// dropLast removes the last n items that droppable accepts; nil when
// fewer than n can go.
func dropLast[T any](items []T, n int, droppable func(T) bool) []T {
	out := append([]T(nil), items...)
	for ; n > 0; n-- {
		i := lastIndex(out, droppable)
		if i < 0 {
			return nil
		}
		out = append(out[:i], out[i+1:]...)
	}
	if out == nil {
		out = []T{}
	}
	return out
}

func lastIndex[T any](items []T, match func(T) bool) int {
	for i := len(items) - 1; i >= 0; i-- {
		if match(items[i]) {
			return i
		}
	}
	return -1
}
