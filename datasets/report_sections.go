package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/kb"
)

// maxRepoRows keeps the repository table readable; the rest are summed.
const maxRepoRows = 30

func (r *versionReport) title() string {
	return fmt.Sprintf("Dataset %s@%d", r.info.Name, r.info.Version)
}

// byline says what the version is and what built it.
func (r *versionReport) byline() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Built on %s", r.created.UTC().Format("2006-01-02 15:04 MST"))
	if r.info.CraVersion != "" {
		fmt.Fprintf(&b, " by cra %s", r.info.CraVersion)
	}
	fmt.Fprintf(&b, " for training plan %d: **%s**", r.planID, reportPlural(r.total, "example"))
	if r.source != "" {
		// curate records several sources comma-separated.
		src := strings.Split(r.source, ",")
		if n := len(src); n > 1 {
			src = append(src[:n-2], src[n-2]+" and "+src[n-1])
		}
		fmt.Fprintf(&b, " from %s data", strings.Join(src, ", "))
	}
	if r.window > 0 {
		fmt.Fprintf(&b, ", for a context window of %s tokens", reportCount(r.window))
	}
	b.WriteString(".")
	return b.String()
}

// sections is the report's content, in order.
func (r *versionReport) sections() []report.Section {
	out := []report.Section{r.warningsSection(), r.examplesSection(), r.sourcesSection(), r.reposSection(), r.dropsSection()}
	out = append(out, r.signalSections()...)
	out = append(out, r.tokensSection(), r.changesSection())
	crit := "null"
	var b bytes.Buffer
	if json.Indent(&b, r.info.Criteria, "", "  ") == nil {
		crit = b.String()
	}
	return append(out, report.Section{Title: "Selection criteria", Level: 2, Code: crit,
		Paras: []string{"As `cra curate-data` recorded them in `dataset_versions.criteria`."}})
}

// charts lists the ids of the charts the sections draw, in order.
func (r *versionReport) charts() []string {
	var ids []string
	for _, s := range r.sections() {
		for _, f := range s.Figures {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// Chart ids; each stage's token histogram is chartTokens + stage.
const (
	chartExamples = "examples"
	chartRepos    = "repos"
	chartDrops    = "drops"
	chartSignals  = "signals"
	chartKTO      = "kto"
	chartTokens   = "tokens-"
)

func (r *versionReport) examplesSection() report.Section {
	s := report.Section{Title: "Examples", Level: 2, Figures: r.figures(chartExamples)}
	var train, val int
	t := report.Table{Head: []string{"stage", "kind", "train", "validation", "total"}}
	for _, c := range r.stageKinds {
		t.Rows = append(t.Rows, []string{c.stage, c.kind, reportCount(c.train), reportCount(c.val), reportCount(c.total())})
		train, val = train+c.train, val+c.val
	}
	t.Rows = append(t.Rows, []string{"**all**", "", reportCount(train), reportCount(val), reportCount(train + val)})
	s.Paras = []string{fmt.Sprintf("%s in train, %s in validation, per stage and kind "+
		"(sft: a whole conversation; preference: a prompt with a chosen and a rejected answer; kto: a completion labelled positive or negative).",
		reportCount(train), reportCount(val))}
	s.Tables = []report.Table{t}
	return s
}

func (r *versionReport) sourcesSection() report.Section {
	t := report.Table{Head: []string{"source", "train", "validation", "total"}}
	for _, c := range r.sources {
		t.Rows = append(t.Rows, []string{c.key, reportCount(c.train), reportCount(c.val), reportCount(c.total())})
	}
	return report.Section{Title: "By source", Level: 3, Tables: []report.Table{t},
		Paras: []string{"synthetic: mined from history; logged: from `cra solve` and `cra eval` runs; distilled: a teacher's answers."}}
}

func (r *versionReport) reposSection() report.Section {
	s := report.Section{Title: "By repository", Level: 3, Figures: r.figures(chartRepos),
		Paras: []string{fmt.Sprintf("%s, most examples first.", reportPlural(len(r.repos), "repository"))}}
	t := report.Table{Head: []string{"repository", "train", "validation", "total"}}
	var rest splitCount
	for i, c := range r.repos {
		if i >= maxRepoRows {
			rest.train, rest.val = rest.train+c.train, rest.val+c.val
			continue
		}
		t.Rows = append(t.Rows, []string{"`" + c.key + "`", reportCount(c.train), reportCount(c.val), reportCount(c.total())})
	}
	if n := len(r.repos) - maxRepoRows; n > 0 {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%s more", reportPlural(n, "repository")), reportCount(rest.train), reportCount(rest.val), reportCount(rest.total())})
	}
	s.Tables = []report.Table{t}
	return s
}

func (r *versionReport) dropsSection() report.Section {
	s := report.Section{Title: "Drops", Level: 2}
	reasons := r.dropReasons()
	if len(reasons) == 0 {
		s.Paras = []string{"Nothing was dropped."}
		return s
	}
	total := 0
	t := report.Table{Head: []string{"reason", "dropped"}}
	for _, reason := range reasons {
		total += r.info.Dropped[reason]
		t.Rows = append(t.Rows, []string{reason, reportCount(r.info.Dropped[reason])})
	}
	s.Paras = []string{fmt.Sprintf("%s left out while the version was built, per reason (`dataset_versions.dropped`).", reportPlural(total, "candidate"))}
	s.Figures, s.Tables = r.figures(chartDrops), []report.Table{t}
	return s
}

// dropReasons are the reasons anything was dropped for, most first.
func (r *versionReport) dropReasons() []string {
	reasons := slices.Sorted(maps.Keys(r.info.Dropped))
	slices.SortStableFunc(reasons, func(a, b string) int { return r.info.Dropped[b] - r.info.Dropped[a] })
	return slices.DeleteFunc(reasons, func(k string) bool { return r.info.Dropped[k] == 0 })
}

func (r *versionReport) signalSections() []report.Section {
	pairs := report.Section{Title: "Pair signals", Level: 2,
		Paras: []string{"Preference pairs per stage and the signal that chose between their two answers (`training_examples.signal`)."}}
	pt := report.Table{Head: []string{"stage", "signal", "pairs"}}
	for _, l := range r.labels {
		if l.kind == kb.KindPreference {
			pt.Rows = append(pt.Rows, []string{l.stage, reportOrNone(l.signal), reportCount(l.n)})
		}
	}
	if len(pt.Rows) == 0 {
		pairs.Paras = append(pairs.Paras, "No preference pairs in this version.")
	} else {
		pairs.Figures, pairs.Tables = r.figures(chartSignals), []report.Table{pt}
	}

	kto := report.Section{Title: "KTO balance", Level: 2,
		Paras: []string{"KTO rows per stage by label: whether the completion was right."}}
	kt := report.Table{Head: []string{"stage", "positive", "negative", "positive share"}}
	for _, b := range r.ktoBalance() {
		kt.Rows = append(kt.Rows, []string{b.stage, reportCount(b.pos), reportCount(b.neg), reportPct(b.pos, b.pos+b.neg)})
	}
	if len(kt.Rows) == 0 {
		kto.Paras = append(kto.Paras, "No KTO rows in this version.")
	} else {
		kto.Figures, kto.Tables = r.figures(chartKTO), []report.Table{kt}
	}

	logged := report.Section{Title: "Where logged labels came from", Level: 3,
		Paras: []string{"SFT and KTO rows by the signal behind their label (`training_examples.signal`; none for synthetic rows, whose label is ground truth)."}}
	lt := report.Table{Head: []string{"stage", "kind", "signal", "label", "rows"}}
	for _, l := range r.labels {
		if l.kind != kb.KindPreference && l.signal != "" {
			lt.Rows = append(lt.Rows, []string{l.stage, l.kind, l.signal, l.label, reportCount(l.n)})
		}
	}
	out := []report.Section{pairs, kto}
	if len(lt.Rows) > 0 {
		logged.Tables = []report.Table{lt}
		out = append(out, logged)
	}
	return out
}

type ktoBalance struct {
	stage    string
	pos, neg int
}

func (r *versionReport) ktoBalance() []ktoBalance {
	var out []ktoBalance
	for _, l := range r.labels {
		if l.kind != kb.KindKTO {
			continue
		}
		if n := len(out); n == 0 || out[n-1].stage != l.stage {
			out = append(out, ktoBalance{stage: l.stage})
		}
		switch b := &out[len(out)-1]; l.label {
		case kb.LabelPositive:
			b.pos += l.n
		case kb.LabelNegative:
			b.neg += l.n
		}
	}
	return out
}

func (r *versionReport) tokensSection() report.Section {
	s := report.Section{Title: "Token lengths", Level: 2}
	estimate := fmt.Sprintf("Prompt plus completion tokens per example: curate's estimate, %s. "+
		"Median and 95th percentile are nearest-rank (an example's own length, not interpolated). "+
		"Each stage's histogram spans that stage's own lengths", r.tokenEstimate())
	if r.window > 0 {
		s.Paras = []string{fmt.Sprintf("%s; the context window of %s tokens is its dashed line where it falls among them (or just past the longest), "+
			"and is named above the chart otherwise. Over 90 %%: longer than %s tokens.", estimate, reportCount(r.window), reportCount(r.window*9/10))}
	} else {
		s.Paras = []string{estimate + ". The criteria record no context window to compare them with."}
	}
	t := report.Table{Head: []string{"stage", "examples", "median", "95th percentile", "longest", "over 90 % of the window", "over the window"}}
	for _, st := range r.tokens {
		over90, over := "—", "—"
		if r.window > 0 {
			over90, over = fmt.Sprintf("%s (%s)", reportCount(st.Over90), reportPct(st.Over90, st.N)), reportCount(st.Over)
		}
		t.Rows = append(t.Rows, []string{st.Stage, reportCount(st.N), reportCount(st.Median), reportCount(st.P95), reportCount(st.Max), over90, over})
		s.Figures = append(s.Figures, r.figures(chartTokens+st.Stage)...)
	}
	if len(r.tokens) > 0 {
		s.Tables = []report.Table{t}
	}
	return s
}

// tokenEstimate is how curate estimated tokens (llm.Budget.Estimate),
// with the safety margin the criteria recorded.
func (r *versionReport) tokenEstimate() string {
	if r.safetyMargin == nil {
		return "characters / 4 × (1 + the budget's safety margin, not recorded)"
	}
	return fmt.Sprintf("characters / 4 × (1 + %g safety margin)", *r.safetyMargin)
}

func (r *versionReport) changesSection() report.Section {
	c := r.changes
	if c == nil {
		return report.Section{Title: "What changed", Level: 2,
			Paras: []string{fmt.Sprintf("First version of %s: there is no earlier version to compare with.", r.info.Name)}}
	}
	was, now := fmt.Sprintf("v%d", c.previous), fmt.Sprintf("v%d", r.info.Version)
	s := report.Section{Title: fmt.Sprintf("What changed since %s", was), Level: 2, Paras: []string{fmt.Sprintf(
		"Against %s@%d, the newest earlier version in the store: %s added, %s removed. "+
			"Examples are told apart by id, which is fixed per dataset name and source row: an id in both versions is the same example. "+
			"Examples per stage, kind and split then and now, then per stage and kind by id:",
		r.info.Name, c.previous, reportPlural(c.added, "example"), reportPlural(c.removed, "example"))}}
	counts := report.Table{Head: []string{"stage", "kind", "split", was, now, "change"}}
	for _, d := range c.counts {
		counts.Rows = append(counts.Rows, []string{d.Stage, d.Kind, d.Split, reportCount(d.Was), reportCount(d.Now), reportSigned(d.Now - d.Was)})
	}
	churn := report.Table{Head: []string{"stage", "kind", "added", "removed", "kept", "kept, other split"}}
	for _, ch := range c.churn {
		churn.Rows = append(churn.Rows, []string{ch.Stage, ch.Kind, reportCount(ch.Added), reportCount(ch.Removed), reportCount(ch.Kept), reportCount(ch.Moved)})
	}
	s.Tables = []report.Table{counts, churn}
	if len(c.addedIDs) > 0 {
		s.Notes = append(s.Notes, "First ids added: "+reportCodeList(c.addedIDs)+".")
	}
	if len(c.removedIDs) > 0 {
		s.Notes = append(s.Notes, "First ids removed: "+reportCodeList(c.removedIDs)+".")
	}
	return s
}

func reportCodeList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "`" + id + "`"
	}
	return strings.Join(out, ", ")
}

func reportOrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// reportPlural is "1 example", "2 examples", "3 repositories".
func reportPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return reportCount(n) + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return reportCount(n) + " " + noun + "s"
}

// reportCount writes n with thousands separators.
func reportCount(n int) string {
	if n < 0 {
		return "-" + reportCount(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func reportSigned(n int) string {
	if n > 0 {
		return "+" + reportCount(n)
	}
	return reportCount(n)
}

func reportPct(k, n int) string {
	if n == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(k)/float64(n))
}
