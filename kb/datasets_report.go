package kb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// The readers behind a dataset version's report (datasets.WriteReport):
// its counts, token lengths and what changed since the version before.

// DatasetOrigin reads the training plan a dataset version was built for
// (0 for none) and when it was made, as an instant.
func DatasetOrigin(ctx context.Context, q Querier, name string, version int) (planID int64, created time.Time, err error) {
	err = queryOne(ctx, q, []any{&planID, &created}, fmt.Sprintf("dataset %s@%d", name, version),
		`SELECT training_plan_id, created_at FROM dataset_versions WHERE name = ? AND version = ?`, name, version)
	return planID, created, err
}

// PreviousDatasetVersion is the newest version of name before version
// still in the store; ok is false when there is none.
func PreviousDatasetVersion(ctx context.Context, q Querier, name string, version int) (prev int, ok bool, err error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(version) FROM dataset_versions WHERE name = ? AND version < ?`,
		name, version).Scan(&v); err != nil {
		return 0, false, fmt.Errorf("kb: version of %s before %d: %w", name, version, err)
	}
	return int(v.Int64), v.Valid, nil
}

// ExampleGroup counts one group of a dataset version's examples. Facet
// names the grouping: "stage" (Stage, Kind, Split), "source" (Source,
// Split), "repo" (Repo, Split) or "label" (Stage, Kind, Signal, Label);
// the fields outside it are "".
type ExampleGroup struct {
	Facet                                           string
	Stage, Kind, Split, Source, Repo, Signal, Label string
	N                                               int
}

// ExampleGroups counts a version's examples by each facet, in one scan.
func ExampleGroups(ctx context.Context, q Querier, name string, version int) ([]ExampleGroup, error) {
	gs, err := queryList(ctx, q, func(g *ExampleGroup) []any {
		return []any{&g.Facet, &g.Stage, &g.Kind, &g.Split, &g.Source, &g.Repo, &g.Signal, &g.Label, &g.N}
	}, `SELECT
			CASE WHEN grouping(source) = 0 THEN 'source' WHEN grouping(repo_path) = 0 THEN 'repo'
				WHEN grouping(label) = 0 THEN 'label' ELSE 'stage' END AS facet,
			coalesce(stage, ''), coalesce(kind, ''), coalesce(split, ''), coalesce(source, ''), coalesce(repo_path, ''),
			coalesce(signal, ''), coalesce(label, ''), count(*)
		FROM training_examples WHERE dataset = ? AND version = ?
		GROUP BY GROUPING SETS ((stage, kind, split), (source, split), (repo_path, split), (stage, kind, signal, label))
		ORDER BY ALL`, name, version)
	if err != nil {
		return nil, fmt.Errorf("kb: counts of %s@%d: %w", name, version, err)
	}
	return gs, nil
}

// TokenLengths sums up one stage's examples by prompt plus completion
// tokens: how many, the shortest, the median, the 95th percentile, the
// longest, and how many are over 90 % of the context window and over it.
type TokenLengths struct {
	Stage                    string
	N, Min, Median, P95, Max int
	Over90, Over             int
}

// ExampleTokenLengths reads each stage's token lengths in a version,
// measured against a context window of window tokens.
func ExampleTokenLengths(ctx context.Context, q Querier, name string, version, window int) ([]TokenLengths, error) {
	ls, err := queryList(ctx, q, func(s *TokenLengths) []any {
		return []any{&s.Stage, &s.N, &s.Min, &s.Median, &s.P95, &s.Max, &s.Over90, &s.Over}
	}, `SELECT stage, count(*), min(n), quantile_disc(n, 0.5), quantile_disc(n, 0.95), max(n),
			count(*) FILTER (WHERE n > 0.9 * ?), count(*) FILTER (WHERE n > ?)
		FROM (SELECT stage, prompt_tokens + completion_tokens AS n FROM training_examples WHERE dataset = ? AND version = ?)
		GROUP BY stage ORDER BY stage`, window, window, name, version)
	if err != nil {
		return nil, fmt.Errorf("kb: token lengths of %s@%d: %w", name, version, err)
	}
	return ls, nil
}

// TokenBins cuts one stage's token lengths into bins of Width tokens
// from Lo.
type TokenBins struct {
	Stage     string
	Lo, Width int
}

// TokenBinCount is how many of a stage's examples fall in bin Bin:
// [Lo+Bin*Width, Lo+(Bin+1)*Width).
type TokenBinCount struct {
	Stage  string
	Bin, N int
}

// ExampleTokenBins counts every stage's examples into its bins, in one
// scan; stages not in bins are left out.
func ExampleTokenBins(ctx context.Context, q Querier, name string, version int, bins []TokenBins) ([]TokenBinCount, error) {
	if len(bins) == 0 {
		return []TokenBinCount{}, nil
	}
	values, args := make([]string, len(bins)), []any{}
	for i, b := range bins {
		values[i] = "(?::VARCHAR, ?::BIGINT, ?::BIGINT)"
		args = append(args, b.Stage, b.Lo, b.Width)
	}
	args = append(args, name, version)
	cs, err := queryList(ctx, q, func(c *TokenBinCount) []any { return []any{&c.Stage, &c.Bin, &c.N} },
		`SELECT e.stage, (e.prompt_tokens + e.completion_tokens - w.lo) // w.width, count(*)
		FROM training_examples e JOIN (VALUES `+strings.Join(values, ", ")+`) w(stage, lo, width) ON w.stage = e.stage
		WHERE e.dataset = ? AND e.version = ? GROUP BY ALL`, args...)
	if err != nil {
		return nil, fmt.Errorf("kb: token histogram of %s@%d: %w", name, version, err)
	}
	return cs, nil
}

// ExampleDelta is one stage, kind and split's examples in two versions.
type ExampleDelta struct {
	Stage, Kind, Split string
	Was, Now           int
}

// ExampleDeltas counts the examples of versions was and now of name per
// stage, kind and split, in that order.
func ExampleDeltas(ctx context.Context, q Querier, name string, was, now int) ([]ExampleDelta, error) {
	ds, err := queryList(ctx, q, func(d *ExampleDelta) []any { return []any{&d.Stage, &d.Kind, &d.Split, &d.Was, &d.Now} },
		`SELECT stage, kind, split, count(*) FILTER (WHERE version = ?), count(*) FILTER (WHERE version = ?)
		FROM training_examples WHERE dataset = ? AND version IN (?, ?)
		GROUP BY ALL ORDER BY ALL`, was, now, name, was, now)
	if err != nil {
		return nil, fmt.Errorf("kb: counts of %s@%d against @%d: %w", name, now, was, err)
	}
	return ds, nil
}

// ExampleChurn is one stage and kind's examples by id between two
// versions: in the newer only (Added), in the older only (Removed), in
// both (Kept) and in both under another split (Moved), with the first
// sample ids added and removed.
type ExampleChurn struct {
	Stage, Kind                 string
	Added, Removed, Kept, Moved int
	AddedIDs, RemovedIDs        []string
}

// ExampleChurns joins versions was and now of name by example id (ids
// are deterministic per dataset name and source row, so an id in both is
// the same example), per stage and kind in no set order.
func ExampleChurns(ctx context.Context, q Querier, name string, was, now, sample int) ([]ExampleChurn, error) {
	cs, err := queryList(ctx, q, func(c *ExampleChurn) []any {
		return []any{&c.Stage, &c.Kind, &c.Added, &c.Removed, &c.Kept, &c.Moved, stringList{&c.AddedIDs}, stringList{&c.RemovedIDs}}
	}, `WITH cur AS (SELECT id, stage, kind, split FROM training_examples WHERE dataset = ? AND version = ?),
			prev AS (SELECT id, stage, kind, split FROM training_examples WHERE dataset = ? AND version = ?)
		SELECT coalesce(c.stage, p.stage), coalesce(c.kind, p.kind),
			count(*) FILTER (WHERE p.id IS NULL), count(*) FILTER (WHERE c.id IS NULL),
			count(*) FILTER (WHERE c.id IS NOT NULL AND p.id IS NOT NULL), count(*) FILTER (WHERE c.split <> p.split),
			coalesce(min(c.id, ?) FILTER (WHERE p.id IS NULL), []), coalesce(min(p.id, ?) FILTER (WHERE c.id IS NULL), [])
		FROM cur c FULL JOIN prev p ON c.id = p.id AND c.stage = p.stage AND c.kind = p.kind
		GROUP BY ALL`, name, now, name, was, sample, sample)
	if err != nil {
		return nil, fmt.Errorf("kb: examples of %s@%d against @%d: %w", name, now, was, err)
	}
	return cs, nil
}
