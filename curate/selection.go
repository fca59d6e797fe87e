package curate

import (
	"slices"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// checkSelection fills in the defaults of sources, kinds and stages and
// refuses values that name none.
func checkSelection(opts *Options) error {
	if len(opts.Sources) == 0 {
		opts.Sources = []string{SourceSynthetic}
	}
	for _, s := range opts.Sources {
		if !slices.Contains(Sources, s) {
			return usage.Errorf("source %q: use %s or all", s, strings.Join(Sources, ", "))
		}
	}
	if len(opts.Kinds) == 0 {
		opts.Kinds = []string{kb.KindSFT}
	}
	for _, k := range opts.Kinds {
		if !slices.Contains(kb.ExampleKinds, k) {
			return usage.Errorf("kind %q: use %s or all", k, strings.Join(kb.ExampleKinds, ", "))
		}
	}
	if opts.Sources[0] == SourceSynthetic && len(opts.Sources) == 1 && !slices.Contains(opts.Kinds, kb.KindSFT) {
		return usage.Errorf("synthetic ground truth makes SFT examples only: add --source logged or distilled for %s rows", strings.Join(opts.Kinds, " and "))
	}
	if opts.PositiveFraction < 0 || opts.PositiveFraction > 1 {
		return usage.Errorf("positive fraction %g: give a share in [0, 1] (0 keeps every KTO row, 1 keeps the positive ones)", opts.PositiveFraction)
	}
	if opts.LoggedOutcome != "" && opts.LoggedOutcome != "success" {
		return usage.Errorf("logged outcome %q: success (only runs that succeeded) or empty (every finished run)", opts.LoggedOutcome)
	}
	var known []string
	if slices.Contains(opts.Sources, SourceSynthetic) {
		known = append(known, schema.SyntheticStages...)
	}
	if len(opts.Sources) > 1 || opts.Sources[0] != SourceSynthetic {
		for _, s := range schema.LoggedStages {
			if !slices.Contains(known, s) {
				known = append(known, s)
			}
		}
	}
	opts.stagesNamed = len(opts.Stages) > 0
	if len(opts.Stages) == 0 {
		opts.Stages = known
	}
	for _, s := range opts.Stages {
		if !slices.Contains(known, s) {
			return usage.Errorf("stage %q: the stages of %s are %s", s, strings.Join(opts.Sources, " and "), strings.Join(known, ", "))
		}
	}
	return nil
}

// renderable says whether stage has synthetic ground truth to render.
func renderable(stage string) bool { return renderers[stage] != nil }

// count adds a kept record to the summary.
func (s *Summary) count(r *record) {
	if s.Examples[r.stage] == nil {
		s.Examples[r.stage] = map[string]int{}
	}
	s.Examples[r.stage][r.split]++
	if s.Kinds[r.kind] == nil {
		s.Kinds[r.kind] = map[string]map[string]int{}
	}
	if s.Kinds[r.kind][r.stage] == nil {
		s.Kinds[r.kind][r.stage] = map[string]int{}
	}
	s.Kinds[r.kind][r.stage][r.split]++
	if s.Labels[r.kind] == nil {
		s.Labels[r.kind] = map[string]int{}
	}
	s.Labels[r.kind][r.label]++
	if r.kind == kb.KindKTO {
		if s.ktoByStage == nil {
			s.ktoByStage = map[string][2]int{}
		}
		c := s.ktoByStage[r.stage]
		if r.label == kb.LabelPositive {
			c[0]++
		} else {
			c[1]++
		}
		s.ktoByStage[r.stage] = c
	}
	if r.trim > 0 {
		s.Trimmed++
	}
}

// kto is the kept KTO rows' positives and negatives per stage.
func (s *Summary) kto() map[string][2]int { return s.ktoByStage }
