package kb

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// FileDependency is a file at the other end of a dependency edge.
type FileDependency struct {
	File      File      `json:"file"`
	Kind      string    `json:"kind"`      // import, type_ref
	Direction Direction `json:"direction"` // Outgoing: the file asked about imports this one
}

// GetDependencies lists the files a file imports (Outgoing), the files
// importing it (Incoming) or both: outgoing first, then by path and kind.
func (k *KnowledgeBase) GetDependencies(ctx context.Context, fileID int64, dir Direction) ([]FileDependency, error) {
	if err := dir.check(); err != nil {
		return nil, err
	}
	var parts []string
	var args []any
	if dir.out() {
		parts = append(parts, `SELECT DISTINCT target_file_id AS id, kind, 'outgoing' AS dir FROM dependencies WHERE source_file_id = ?`)
		args = append(args, fileID)
	}
	if dir.in() {
		parts = append(parts, `SELECT DISTINCT source_file_id, kind, 'incoming' FROM dependencies WHERE target_file_id = ?`)
		args = append(args, fileID)
	}
	query := "WITH d(id, kind, dir) AS (" + strings.Join(parts, " UNION ") + ")\nSELECT " + fileCols + `, d.kind, d.dir
		FROM d JOIN files f ON f.id = d.id ORDER BY d.dir = 'outgoing' DESC, f.path, d.kind`
	ds, err := queryList(ctx, k.q, func(d *FileDependency) []any {
		return append(d.File.dest(), &d.Kind, &d.Direction)
	}, query, args...)
	if err != nil {
		return nil, fmt.Errorf("kb: %s dependencies of file %d: %w", dir, fileID, err)
	}
	return ds, nil
}

// SubgraphFile is a file of a dependency subgraph.
type SubgraphFile struct {
	File     File `json:"file"`
	Distance int  `json:"distance"` // fewest dependency edges from a seed, either way
}

// DependencyEdge is one dependency between two files.
type DependencyEdge struct {
	SourceFileID int64  `json:"source_file_id"` // the importer
	TargetFileID int64  `json:"target_file_id"` // the imported
	Kind         string `json:"kind"`
}

// DependencySubgraph is the neighbourhood of some seed files.
type DependencySubgraph struct {
	Files []SubgraphFile   `json:"files"` // by distance, then path
	Edges []DependencyEdge `json:"edges"` // by source id, target id, kind
}

// GetDependencySubgraph returns the files within depth dependency edges of
// the seeds, following edges both ways (the seeds at distance 0; unknown ids
// are ignored), and the edges among them.
func (k *KnowledgeBase) GetDependencySubgraph(ctx context.Context, fileIDs []int64, depth int) (*DependencySubgraph, error) {
	if depth < 0 {
		return nil, errors.New("kb: dependency subgraph: negative depth")
	}
	g := &DependencySubgraph{Files: []SubgraphFile{}, Edges: []DependencyEdge{}}
	if len(fileIDs) == 0 {
		return g, nil
	}
	// A plain recursive CTE capped at depth: UNION keeps one row per (file,
	// distance), so it holds at most files × (depth+1) rows, and min() picks
	// the shortest. On 10,000-file chains and stars it measured faster than
	// a USING KEY breadth-first search that skips files already reached.
	var err error
	g.Files, err = queryList(ctx, k.q, func(s *SubgraphFile) []any {
		return append(s.File.dest(), &s.Distance)
	}, `WITH RECURSIVE edges AS (
			SELECT source_file_id AS a, target_file_id AS b FROM dependencies
			UNION ALL SELECT target_file_id, source_file_id FROM dependencies
		),
		walk(file_id, distance) AS (
			SELECT id, 0 FROM files WHERE list_contains(?::BIGINT[], id)
			UNION
			SELECT e.b, w.distance + 1 FROM walk w JOIN edges e ON e.a = w.file_id WHERE w.distance < ?
		),
		reach AS (SELECT file_id, min(distance) AS distance FROM walk GROUP BY file_id)
		SELECT `+fileCols+`, r.distance FROM reach r JOIN files f ON f.id = r.file_id
		ORDER BY r.distance, f.path`, fileIDs, depth)
	if err != nil {
		return nil, fmt.Errorf("kb: dependency subgraph of %d files at depth %d: %w", len(fileIDs), depth, err)
	}
	ids := make([]int64, len(g.Files))
	for i, f := range g.Files {
		ids[i] = f.File.ID
	}
	g.Edges, err = queryList(ctx, k.q, func(e *DependencyEdge) []any {
		return []any{&e.SourceFileID, &e.TargetFileID, &e.Kind}
	}, `WITH ids AS (SELECT unnest(?::BIGINT[]) AS id)
		SELECT DISTINCT source_file_id, target_file_id, kind FROM dependencies
		WHERE source_file_id IN (FROM ids) AND target_file_id IN (FROM ids)
		ORDER BY source_file_id, target_file_id, kind`, ids)
	if err != nil {
		return nil, fmt.Errorf("kb: dependency subgraph edges: %w", err)
	}
	return g, nil
}

// CoChangeNeighbor is a file that changed in the same commits as another.
type CoChangeNeighbor struct {
	File           File   `json:"file"`
	Count          int    `json:"count"` // commits that changed both
	LastCommitHash string `json:"last_commit_hash,omitempty"`
}

// GetCoChangeNeighbors lists the files that changed together with a file in
// at least minCount commits, by count (most first), then path.
func (k *KnowledgeBase) GetCoChangeNeighbors(ctx context.Context, fileID int64, minCount int) ([]CoChangeNeighbor, error) {
	// co_changes holds each pair once, the smaller id as file_a_id.
	cs, err := queryList(ctx, k.q, func(c *CoChangeNeighbor) []any {
		return append(c.File.dest(), &c.Count, &c.LastCommitHash)
	}, `WITH c AS (
			SELECT file_b_id AS id, count, last_commit_hash FROM co_changes WHERE file_a_id = ?
			UNION ALL
			SELECT file_a_id, count, last_commit_hash FROM co_changes WHERE file_b_id = ?
		)
		SELECT `+fileCols+`, c.count, coalesce(c.last_commit_hash, '')
		FROM c JOIN files f ON f.id = c.id WHERE c.count >= ?
		ORDER BY c.count DESC, f.path`, fileID, fileID, minCount)
	if err != nil {
		return nil, fmt.Errorf("kb: co-change neighbors of file %d: %w", fileID, err)
	}
	return cs, nil
}
