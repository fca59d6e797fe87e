package datasets

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	stage                    string
	n, min, median, p95, max int
	over90, over             int   // over 90 % of the window, over the window
	lo, width                int   // the histogram's first bin edge and bin width
	bins                     []int // bins[i] counts lengths in [lo+i*width, lo+(i+1)*width)
}

// hi is the histogram's last bin edge.
func (s tokenStats) hi() int { return s.lo + len(s.bins)*s.width }

// binStage cuts the stage's own range, from its shortest example to its
// longest, into at most histogramBins bins of a round width starting at a
// multiple of it: a stage of short examples fills its chart whatever the
// context window.
func (s *tokenStats) binStage() {
	s.width = int(charts.NiceWidth(float64(s.max-s.min), histogramBins))
	s.lo = s.min / s.width * s.width
	s.bins = make([]int, (s.max-s.lo)/s.width+1)
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
	counts               []countDelta
	churn                []churn
	added, removed       int      // examples by id, over every stage
	addedIDs, removedIDs []string // the first ids in order, changedSample at most
}

// countDelta is one stage, kind and split's examples then and now.
type countDelta struct {
	stage, kind, split string
	was, now           int
}

// churn is one stage and kind's examples by id: in this version only, in
// the previous one only, in both, and in both under another split.
type churn struct {
	stage, kind                 string
	added, removed, kept, moved int
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
	if err := q.QueryRowContext(ctx, `SELECT training_plan_id, created_at FROM dataset_versions WHERE name = ? AND version = ?`,
		info.Name, info.Version).Scan(&r.planID, &r.created); err != nil {
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
	rows, err := q.QueryContext(ctx, `SELECT
			CASE WHEN grouping(source) = 0 THEN 'source' WHEN grouping(repo_path) = 0 THEN 'repo'
				WHEN grouping(label) = 0 THEN 'label' ELSE 'stage' END AS facet,
			coalesce(stage, ''), coalesce(kind, ''), coalesce(split, ''), coalesce(source, ''), coalesce(repo_path, ''),
			coalesce(signal, ''), coalesce(label, ''), count(*)
		FROM training_examples WHERE dataset = ? AND version = ?
		GROUP BY GROUPING SETS ((stage, kind, split), (source, split), (repo_path, split), (stage, kind, signal, label))
		ORDER BY ALL`, r.info.Name, r.info.Version)
	if err != nil {
		return err
	}
	defer rows.Close()
	stageKinds, sources, repos := map[[2]string]*splitCount{}, map[string]*splitCount{}, map[string]*splitCount{}
	add := func(c *splitCount, split string, n int) {
		if split == kb.SplitValidation {
			c.val += n
		} else {
			c.train += n
		}
	}
	for rows.Next() {
		var facet, stage, kind, split, source, repo, signal, label string
		var n int
		if err := rows.Scan(&facet, &stage, &kind, &split, &source, &repo, &signal, &label, &n); err != nil {
			return err
		}
		switch facet {
		case "stage":
			k := [2]string{stage, kind}
			if stageKinds[k] == nil {
				stageKinds[k] = &splitCount{stage: stage, kind: kind}
			}
			add(stageKinds[k], split, n)
			r.total += n
		case "source":
			if sources[source] == nil {
				sources[source] = &splitCount{key: source}
			}
			add(sources[source], split, n)
		case "repo":
			if repos[repo] == nil {
				repos[repo] = &splitCount{key: repo}
			}
			add(repos[repo], split, n)
		case "label":
			r.labels = append(r.labels, labelCount{stage: stage, kind: kind, signal: signal, label: label, n: n})
		}
	}
	if err := rows.Err(); err != nil {
		return err
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
	rows, err := q.QueryContext(ctx, `SELECT stage, count(*), min(n), quantile_disc(n, 0.5), quantile_disc(n, 0.95), max(n),
			count(*) FILTER (WHERE n > 0.9 * ?), count(*) FILTER (WHERE n > ?)
		FROM (SELECT stage, prompt_tokens + completion_tokens AS n FROM training_examples WHERE dataset = ? AND version = ?)
		GROUP BY stage ORDER BY stage`, r.window, r.window, r.info.Name, r.info.Version)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s tokenStats
		if err := rows.Scan(&s.stage, &s.n, &s.min, &s.median, &s.p95, &s.max, &s.over90, &s.over); err != nil {
			rows.Close()
			return err
		}
		if r.window <= 0 {
			s.over90, s.over = 0, 0
		}
		s.binStage()
		r.tokens = append(r.tokens, s)
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	if len(r.tokens) == 0 {
		return nil
	}
	// One scan for every stage's bins: each stage's width joined in.
	values, args := make([]string, len(r.tokens)), []any{}
	for i, s := range r.tokens {
		values[i] = "(?::VARCHAR, ?::BIGINT, ?::BIGINT)"
		args = append(args, s.stage, s.lo, s.width)
	}
	args = append(args, r.info.Name, r.info.Version)
	rows, err = q.QueryContext(ctx, `SELECT e.stage, (e.prompt_tokens + e.completion_tokens - w.lo) // w.width, count(*)
		FROM training_examples e JOIN (VALUES `+strings.Join(values, ", ")+`) w(stage, lo, width) ON w.stage = e.stage
		WHERE e.dataset = ? AND e.version = ? GROUP BY ALL`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var stage string
		var bin, n int
		if err := rows.Scan(&stage, &bin, &n); err != nil {
			return err
		}
		i := slices.IndexFunc(r.tokens, func(s tokenStats) bool { return s.stage == stage })
		if s := &r.tokens[i]; bin >= 0 && bin < len(s.bins) {
			s.bins[bin] = n
		}
	}
	return rows.Err()
}

// readChanges compares the version with the newest earlier one of the
// same name still in the store: counts per stage, kind and split, and
// examples by id (ids are deterministic per dataset name and source row,
// so an id in both is the same example).
func (r *versionReport) readChanges(ctx context.Context, q kb.Querier) error {
	var prev sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(version) FROM dataset_versions WHERE name = ? AND version < ?`,
		r.info.Name, r.info.Version).Scan(&prev); err != nil {
		return err
	}
	if !prev.Valid {
		return nil
	}
	c := &changes{previous: int(prev.Int64)}
	name, was, now := r.info.Name, c.previous, r.info.Version
	rows, err := q.QueryContext(ctx, `SELECT stage, kind, split, count(*) FILTER (WHERE version = ?), count(*) FILTER (WHERE version = ?)
		FROM training_examples WHERE dataset = ? AND version IN (?, ?)
		GROUP BY ALL ORDER BY ALL`, was, now, name, was, now)
	if err != nil {
		return err
	}
	for rows.Next() {
		var d countDelta
		if err := rows.Scan(&d.stage, &d.kind, &d.split, &d.was, &d.now); err != nil {
			rows.Close()
			return err
		}
		c.counts = append(c.counts, d)
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	slices.SortStableFunc(c.counts, func(a, b countDelta) int {
		return cmp.Or(cmp.Compare(a.stage, b.stage), cmp.Compare(kindOrder(a.kind), kindOrder(b.kind)))
	})

	// One full join by id gives each example's fate, and the first ids
	// each stage and kind gained and lost (merged below).
	rows, err = q.QueryContext(ctx, `WITH cur AS (SELECT id, stage, kind, split FROM training_examples WHERE dataset = ? AND version = ?),
			prev AS (SELECT id, stage, kind, split FROM training_examples WHERE dataset = ? AND version = ?)
		SELECT coalesce(c.stage, p.stage), coalesce(c.kind, p.kind),
			count(*) FILTER (WHERE p.id IS NULL), count(*) FILTER (WHERE c.id IS NULL),
			count(*) FILTER (WHERE c.id IS NOT NULL AND p.id IS NOT NULL), count(*) FILTER (WHERE c.split <> p.split),
			coalesce(min(c.id, ?) FILTER (WHERE p.id IS NULL), []), coalesce(min(p.id, ?) FILTER (WHERE c.id IS NULL), [])
		FROM cur c FULL JOIN prev p ON c.id = p.id AND c.stage = p.stage AND c.kind = p.kind
		GROUP BY ALL`, name, now, name, was, changedSample, changedSample)
	if err != nil {
		return err
	}
	for rows.Next() {
		var ch churn
		var added, removed any
		if err := rows.Scan(&ch.stage, &ch.kind, &ch.added, &ch.removed, &ch.kept, &ch.moved, &added, &removed); err != nil {
			rows.Close()
			return err
		}
		c.churn = append(c.churn, ch)
		c.added += ch.added
		c.removed += ch.removed
		c.addedIDs, c.removedIDs = appendIDs(c.addedIDs, added), appendIDs(c.removedIDs, removed)
	}
	if err := closeRows(rows); err != nil {
		return err
	}
	slices.SortFunc(c.churn, func(a, b churn) int {
		return cmp.Or(cmp.Compare(a.stage, b.stage), cmp.Compare(kindOrder(a.kind), kindOrder(b.kind)))
	})
	for _, ids := range []*[]string{&c.addedIDs, &c.removedIDs} {
		slices.Sort(*ids)
		*ids = (*ids)[:min(len(*ids), changedSample)]
	}
	r.changes = c
	return nil
}

// appendIDs appends a list of ids as the driver scans a VARCHAR[].
func appendIDs(ids []string, list any) []string {
	l, _ := list.([]any)
	for _, id := range l {
		if s, ok := id.(string); ok {
			ids = append(ids, s)
		}
	}
	return ids
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}
