package datasets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/kb"
)

// What the Warnings section flags, with the thresholds it flags them at.
// They are a reviewer's questions, not rules curate enforces: a version
// that trips one is still written and exported.
const (
	// minTrainShare is the share of a config's rows (a stage and kind) in
	// train under which its split is flagged: under half, validation
	// outweighs what is trained on, which no validation_fraction asks for
	// (eval-derived rows all go to validation, so logged data can end up
	// there wholesale).
	minTrainShare = 0.5
	// minTrainRows is the fewest train rows of a config not flagged as
	// too few to train on; it is also OpenAI fine-tuning's minimum.
	minTrainRows = 10
	// minPairShare is the ratio of a stage's preference pairs to its SFT
	// rows under which the pairs are flagged as far fewer: a preference
	// stage after SFT would rest on a handful of pairs.
	minPairShare = 0.1
)

// warningsSection lists what a reviewer would flag in the version, or
// says what was checked when nothing is.
func (r *versionReport) warningsSection() report.Section {
	s := report.Section{Title: "Warnings", Level: 2}
	split, lopsided := r.splitWarnings()
	s.List = append(split, r.otherWarnings()...)
	if len(s.List) == 0 {
		s.Paras = []string{fmt.Sprintf("Nothing to flag: every config (a stage and kind) has train rows, at least %s of them and at least %.0f %% of its rows in train; "+
			"more than one repository; preference pairs at least %.0f %% of their stage's SFT rows; both KTO labels; no example over the context window.",
			reportCount(minTrainRows), 100*minTrainShare, 100*minPairShare)}
		return s
	}
	s.Paras = []string{fmt.Sprintf("What a reviewer would question before training on this version. "+
		"A config (a stage and kind, as the export's card names them) is flagged with no train rows, with under %.0f %% of its rows in train, "+
		"or with fewer than %s train rows; so is the whole version under %.0f %% in train; a stage whose preference pairs are under %.0f %% of its SFT rows, "+
		"whose KTO rows carry one label only, or with examples over the context window; and a version drawn from one repository.",
		100*minTrainShare, reportCount(minTrainRows), 100*minTrainShare, 100*minPairShare)}
	if lopsided {
		s.Notes = []string{r.splitCause()}
	}
	return s
}

// splitWarnings flags each config's split, then the whole version's, and
// says whether any is lopsided (no train rows or too small a share),
// which splitCause explains.
func (r *versionReport) splitWarnings() (out []string, lopsided bool) {
	var train, total int
	for _, c := range r.stageKinds {
		train, total = train+c.train, total+c.total()
		if w, l := splitWarning(c); w != "" {
			out, lopsided = append(out, w), lopsided || l
		}
	}
	if total > 0 && float64(train) < minTrainShare*float64(total) {
		out = append(out, fmt.Sprintf("Over the whole version only %s of %s examples (%s) are in train.",
			reportCount(train), reportCount(total), reportPct(train, total)))
		lopsided = true
	}
	return out, lopsided
}

// otherWarnings flags repositories, kinds and lengths.
func (r *versionReport) otherWarnings() []string {
	var out []string
	if len(r.repos) == 1 {
		out = append(out, fmt.Sprintf("Every example comes from one repository (`%s`): train and validation share its code and conventions, "+
			"so validation cannot show that the model carries over to another repository.", r.repos[0].key))
	}
	out = append(out, r.pairWarnings()...)
	out = append(out, r.ktoWarnings()...)
	for _, st := range r.tokens {
		if st.Over > 0 {
			out = append(out, fmt.Sprintf("`%s`: %s longer than the context window of %s tokens: a trainer that truncates at the window cuts off the end, where the completion is.",
				st.Stage, reportPlural(st.Over, "example"), reportCount(r.window)))
		}
	}
	return out
}

// splitWarning flags one config's split: no train rows or too small a
// share in train (lopsided), or too few train rows.
func splitWarning(c splitCount) (warning string, lopsided bool) {
	name := "`" + configName(c.stage, c.kind) + "`"
	switch {
	case c.train == 0:
		return fmt.Sprintf("%s has no train rows (%s in validation): nothing to train it on, its export can only evaluate.",
			name, reportCount(c.val)), true
	case float64(c.train) < minTrainShare*float64(c.total()):
		return fmt.Sprintf("%s: %s of %s rows (%s) in train, under the %.0f %% this report flags.",
			name, reportCount(c.train), reportCount(c.total()), reportPct(c.train, c.total()), 100*minTrainShare), true
	case c.train < minTrainRows:
		return fmt.Sprintf("%s: %s in train, fewer than %s: too few to train on (OpenAI's fine-tuning takes no fewer).",
			name, reportPlural(c.train, "row"), reportCount(minTrainRows)), false
	}
	return "", false
}

// splitCause says what decides the split, as the criteria recorded it,
// under the split warnings.
func (r *versionReport) splitCause() string {
	var b strings.Builder
	b.WriteString("The split is curate's: ")
	if r.validationFraction > 0 {
		fmt.Fprintf(&b, "a validation fraction of %g", r.validationFraction)
	} else {
		b.WriteString("no validation fraction recorded")
	}
	if n := len(r.holdout); n > 0 {
		fmt.Fprintf(&b, ", %s held out whole", reportPlural(n, "repository"))
	}
	if strings.Contains(r.source, "logged") || r.source == "mix" {
		b.WriteString(", and rows derived from eval tasks all in validation, so that no evaluated task is trained on")
	}
	b.WriteString(". A config short of train rows needs more data outside what is held out, or less held out.")
	return b.String()
}

// pairWarnings flags stages whose preference pairs are far fewer than
// their SFT rows.
func (r *versionReport) pairWarnings() []string {
	var out []string
	for _, p := range r.stageKinds {
		if p.kind != kb.KindPreference {
			continue
		}
		i := slices.IndexFunc(r.stageKinds, func(c splitCount) bool { return c.stage == p.stage && c.kind == kb.KindSFT })
		if i < 0 {
			continue
		}
		if sft := r.stageKinds[i].total(); float64(p.total()) < minPairShare*float64(sft) {
			out = append(out, fmt.Sprintf("`%s`: %s beside %s (%s): a preference stage after SFT would rest on few pairs.",
				p.stage, reportPlural(p.total(), "preference pair"), reportPlural(sft, "SFT row"), reportPct(p.total(), sft)))
		}
	}
	return out
}

// ktoWarnings flags stages whose KTO rows are all of one label: KTO
// learns from desirable and undesirable completions both.
func (r *versionReport) ktoWarnings() []string {
	var out []string
	for _, b := range r.ktoBalance() {
		switch {
		case b.neg == 0 && b.pos > 0:
			out = append(out, fmt.Sprintf("`%s`: KTO rows all positive (%s): KTO has no undesirable completion to learn from.", b.stage, reportCount(b.pos)))
		case b.pos == 0 && b.neg > 0:
			out = append(out, fmt.Sprintf("`%s`: KTO rows all negative (%s): KTO has no desirable completion to learn from.", b.stage, reportCount(b.neg)))
		}
	}
	return out
}
