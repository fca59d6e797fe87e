package datasets

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cra-dev/cra/internal/charts"
	"github.com/cra-dev/cra/kb"
)

// The files WriteReport writes.
const (
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
)

const (
	// histogramBins is how many bins at most a token histogram cuts its
	// range into.
	histogramBins = 24
	// changedSample is how many added and removed ids "what changed" names.
	changedSample = 5
)

// WriteReport writes the report of dataset version ref — examples per
// stage, kind, source, split and repository, drops, pair signals, KTO
// balance, token lengths against the context window, and what changed
// since the previous version — as dir/report.md and a self-contained
// dir/report.html, creating dir, and returns the two paths. Every figure is
// an aggregate computed by the store, so the size of the dataset costs
// scans, not memory.
func WriteReport(ctx context.Context, q kb.Querier, ref kb.DatasetRef, dir string) ([]string, error) {
	r, err := buildReport(ctx, q, ref)
	if err != nil {
		return nil, err
	}
	page, err := reportHTML(r)
	if err != nil {
		return nil, fmt.Errorf("report %s@%d: %w", r.info.Name, r.info.Version, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct {
		name string
		body []byte
	}{{ReportMarkdown, []byte(reportMarkdown(r))}, {ReportHTML, page}} {
		p := filepath.Join(dir, f.name)
		if err := writeFileAtomic(p, f.body); err != nil {
			return paths, fmt.Errorf("report %s@%d: %w", r.info.Name, r.info.Version, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// writeFileAtomic writes a file whole or not at all: a report read while
// it is rewritten is the old one or the new one.
func writeFileAtomic(path string, body []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp's 0600 is for secrets
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// versionReport is what the report of one dataset version shows.
type versionReport struct {
	info    kb.DatasetInfo
	planID  int64
	created time.Time
	total   int
	source  string // criteria.source: synthetic, logged, distilled, mix
	window  int    // criteria.context_window in tokens; 0 when not recorded
	// criteria.validation_fraction, holdout_repos and safety_margin, for
	// the warnings and the token estimate; zero when not recorded.
	validationFraction float64
	holdout            []string
	safetyMargin       *float64

	stageKinds []splitCount // key: stage, kind
	sources    []splitCount // key: source
	repos      []splitCount // key: repository, most examples first
	labels     []labelCount
	tokens     []tokenStats
	changes    *changes // nil for the first version
}

// splitCount is the examples of one group by split.
type splitCount struct {
	stage, kind string // for stageKinds
	key         string // the source or repository
	train, val  int
}

func (c splitCount) total() int { return c.train + c.val }

// labelCount is the rows of one stage, kind, signal and label.
type labelCount struct {
	stage, kind, signal, label string
	n                          int
}

// tokenStats is the prompt plus completion tokens of one stage's examples.
type tokenStats struct {
	kb.TokenLengths
	lo, width int   // the histogram's first bin edge and bin width
	bins      []int // bins[i] counts lengths in [lo+i*width, lo+(i+1)*width)
}

// hi is the histogram's last bin edge.
func (s tokenStats) hi() int { return s.lo + len(s.bins)*s.width }

// binStage cuts the stage's own range, from its shortest example to its
// longest, into at most histogramBins bins of a round width starting at a
// multiple of it: a stage of short examples fills its chart whatever the
// context window.
func (s *tokenStats) binStage() {
	s.width = int(charts.NiceWidth(float64(s.Max-s.Min), histogramBins))
	s.lo = s.Min / s.width * s.width
	s.bins = make([]int, (s.Max-s.lo)/s.width+1)
}

// windowShown says whether a stage's histogram draws the context window
// as a line (charts.LimitInReach): further out, a line would squeeze the
// stage's lengths into a few bars at one end, so the legend names it.
func (r *versionReport) windowShown(s tokenStats) bool {
	return r.window > 0 && charts.LimitInReach(float64(s.lo), float64(s.hi()), float64(r.window))
}

// changes is what differs from the previous version.
type changes struct {
	previous             int
	counts               []kb.ExampleDelta
	churn                []kb.ExampleChurn
	added, removed       int      // examples by id, over every stage
	addedIDs, removedIDs []string // the first ids in order, changedSample at most
}

func buildReport(ctx context.Context, q kb.Querier, ref kb.DatasetRef) (*versionReport, error) {
	info, err := kb.ResolveDataset(ctx, q, ref)
	if err != nil {
		return nil, err
	}
	r := &versionReport{info: info}
	fail := func(what string, err error) error {
		return fmt.Errorf("report %s@%d: %s: %w", info.Name, info.Version, what, err)
	}
	var criteria struct {
		Source             string   `json:"source"`
		ContextWindow      int      `json:"context_window"`
		ValidationFraction float64  `json:"validation_fraction"`
		HoldoutRepos       []string `json:"holdout_repos"`
		SafetyMargin       *float64 `json:"safety_margin"`
	}
	if len(info.Criteria) > 0 {
		if err := json.Unmarshal(info.Criteria, &criteria); err != nil {
			return nil, fail("criteria", err)
		}
	}
	r.source, r.window = criteria.Source, criteria.ContextWindow
	r.validationFraction, r.holdout, r.safetyMargin = criteria.ValidationFraction, criteria.HoldoutRepos, criteria.SafetyMargin
	// created_at is read as an instant: kb.DatasetInfo.Created is written
	// in the store session's time zone.
	if r.planID, r.created, err = kb.DatasetOrigin(ctx, q, info.Name, info.Version); err != nil {
		return nil, fail("version", err)
	}
	if err := r.readCounts(ctx, q); err != nil {
		return nil, fail("counts", err)
	}
	if err := r.readTokens(ctx, q); err != nil {
		return nil, fail("token lengths", err)
	}
	if err := r.readChanges(ctx, q); err != nil {
		return nil, fail("what changed", err)
	}
	return r, nil
}

// readCounts reads every count of the version in one scan: per stage, kind
// and split; per source and split; per repository and split; per stage,
// kind, signal and label.
func (r *versionReport) readCounts(ctx context.Context, q kb.Querier) error {
	groups, err := kb.ExampleGroups(ctx, q, r.info.Name, r.info.Version)
	if err != nil {
		return err
	}
	stageKinds, sources, repos := map[[2]string]*splitCount{}, map[string]*splitCount{}, map[string]*splitCount{}
	add := func(c *splitCount, split string, n int) {
		if split == kb.SplitValidation {
			c.val += n
		} else {
			c.train += n
		}
	}
	for _, g := range groups {
		stage, kind, split, n := g.Stage, g.Kind, g.Split, g.N
		switch g.Facet {
		case "stage":
			k := [2]string{stage, kind}
			if stageKinds[k] == nil {
				stageKinds[k] = &splitCount{stage: stage, kind: kind}
			}
			add(stageKinds[k], split, n)
			r.total += n
		case "source":
			if sources[g.Source] == nil {
				sources[g.Source] = &splitCount{key: g.Source}
			}
			add(sources[g.Source], split, n)
		case "repo":
			if repos[g.Repo] == nil {
				repos[g.Repo] = &splitCount{key: g.Repo}
			}
			add(repos[g.Repo], split, n)
		case "label":
			r.labels = append(r.labels, labelCount{stage: stage, kind: kind, signal: g.Signal, label: g.Label, n: n})
		}
	}
	for _, c := range stageKinds {
		r.stageKinds = append(r.stageKinds, *c)
	}
	slices.SortFunc(r.stageKinds, func(a, b splitCount) int {
		return cmp.Or(cmp.Compare(a.stage, b.stage), cmp.Compare(kindOrder(a.kind), kindOrder(b.kind)))
	})
	r.sources = sortedCounts(sources, func(a, b splitCount) int { return cmp.Compare(a.key, b.key) })
	r.repos = sortedCounts(repos, func(a, b splitCount) int { return cmp.Or(cmp.Compare(b.total(), a.total()), cmp.Compare(a.key, b.key)) })
	return nil
}

func sortedCounts(m map[string]*splitCount, order func(a, b splitCount) int) []splitCount {
	out := make([]splitCount, 0, len(m))
	for _, c := range m {
		out = append(out, *c)
	}
	slices.SortFunc(out, order)
	return out
}

// kindOrder puts kinds in the order datasets store them, unknown ones last.
func kindOrder(kind string) int {
	if i := slices.Index(kb.ExampleKinds, kind); i >= 0 {
		return i
	}
	return len(kb.ExampleKinds)
}

// readTokens reads each stage's token lengths — the shortest, quantiles,
// the longest, how many sit over 90 % of the window and over it — then
// counts them into histogram bins cut from that stage's own range.
func (r *versionReport) readTokens(ctx context.Context, q kb.Querier) error {
	lengths, err := kb.ExampleTokenLengths(ctx, q, r.info.Name, r.info.Version, r.window)
	if err != nil {
		return err
	}
	bins := make([]kb.TokenBins, len(lengths))
	for i, l := range lengths {
		s := tokenStats{TokenLengths: l}
		if r.window <= 0 {
			s.Over90, s.Over = 0, 0
		}
		s.binStage()
		r.tokens = append(r.tokens, s)
		bins[i] = kb.TokenBins{Stage: s.Stage, Lo: s.lo, Width: s.width}
	}
	counts, err := kb.ExampleTokenBins(ctx, q, r.info.Name, r.info.Version, bins)
	if err != nil {
		return err
	}
	for _, c := range counts {
		i := slices.IndexFunc(r.tokens, func(s tokenStats) bool { return s.Stage == c.Stage })
		if s := &r.tokens[i]; c.Bin >= 0 && c.Bin < len(s.bins) {
			s.bins[c.Bin] = c.N
		}
	}
	return nil
}

// readChanges compares the version with the newest earlier one of the
// same name still in the store: counts per stage, kind and split, and
// examples by id (ids are deterministic per dataset name and source row,
// so an id in both is the same example).
func (r *versionReport) readChanges(ctx context.Context, q kb.Querier) error {
	prev, ok, err := kb.PreviousDatasetVersion(ctx, q, r.info.Name, r.info.Version)
	if err != nil || !ok {
		return err
	}
	c := &changes{previous: prev}
	if c.counts, err = kb.ExampleDeltas(ctx, q, r.info.Name, prev, r.info.Version); err != nil {
		return err
	}
	slices.SortStableFunc(c.counts, func(a, b kb.ExampleDelta) int {
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)))
	})
	// Each example's fate by id, and the first ids each stage and kind
	// gained and lost (merged below).
	if c.churn, err = kb.ExampleChurns(ctx, q, r.info.Name, prev, r.info.Version, changedSample); err != nil {
		return err
	}
	slices.SortFunc(c.churn, func(a, b kb.ExampleChurn) int {
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)))
	})
	for _, ch := range c.churn {
		c.added += ch.Added
		c.removed += ch.Removed
		c.addedIDs, c.removedIDs = append(c.addedIDs, ch.AddedIDs...), append(c.removedIDs, ch.RemovedIDs...)
	}
	for _, ids := range []*[]string{&c.addedIDs, &c.removedIDs} {
		slices.Sort(*ids)
		*ids = (*ids)[:min(len(*ids), changedSample)]
	}
	r.changes = c
	return nil
}
