package ingest

import (
	"context"
	"database/sql/driver"

	"github.com/cra-dev/cra/ingest/resolve"
)

// derive recomputes what depends on the whole repository — dependencies,
// symbol_references, file_commits, co_changes — when files or commits
// changed since it last ran (repos.derived_stale), in one transaction that
// also clears the flag. Edges are resolved from the stored facts, so an
// incremental run derives exactly what a full one would.
func derive(ctx context.Context, w *writer, src *source, opts Options) error {
	var stale bool
	if err := w.conn.QueryRowContext(ctx, "SELECT derived_stale FROM repos WHERE id = ?", w.repoID).Scan(&stale); err != nil {
		return err
	}
	if !stale {
		return nil
	}
	opts.Progress.Phase("edges", 0)
	facts, err := w.loadFacts(ctx)
	if err != nil {
		return err
	}
	facts.repo.GoModules = w.goModules
	deps := resolve.Dependencies(&facts.repo)
	refs := resolve.References(&facts.repo)
	return w.Tx(ctx, func() error {
		if err := w.replaceEdges(ctx, facts, deps, refs); err != nil {
			return err
		}
		if err := w.deriveHistory(ctx, opts.CoChangeMaxFiles); err != nil {
			return err
		}
		return w.exec(ctx, "UPDATE repos SET derived_stale = false WHERE id = ?", w.repoID)
	})
}

func (w *writer) replaceEdges(ctx context.Context, f *repoFacts, deps []resolve.FileEdge, refs []resolve.SymbolEdge) error {
	if err := w.exec(ctx, `DELETE FROM dependencies WHERE source_file_id IN (SELECT id FROM files WHERE repo_id = $1)
		OR target_file_id IN (SELECT id FROM files WHERE repo_id = $1)`, w.repoID); err != nil {
		return err
	}
	if err := w.exec(ctx, `DELETE FROM symbol_references WHERE caller_symbol_id IN
		(SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = ?)`, w.repoID); err != nil {
		return err
	}
	depRows := make([][]driver.Value, 0, len(deps))
	for _, d := range deps {
		depRows = append(depRows, []driver.Value{f.fileIDs[d.From], f.fileIDs[d.To], d.Kind})
	}
	if err := w.AppendAll("dependencies", []string{"source_file_id", "target_file_id", "kind"}, depRows); err != nil {
		return err
	}
	refRows := make([][]driver.Value, 0, len(refs))
	for _, r := range refs {
		refRows = append(refRows, []driver.Value{f.symbolIDs[r.FromFile][r.FromSymbol], f.symbolIDs[r.ToFile][r.ToSymbol], r.Kind})
	}
	return w.AppendAll("symbol_references", []string{"caller_symbol_id", "callee_symbol_id", "reference_kind"}, refRows)
}

// deriveHistory maps the per-path history onto the files of the indexed
// tree. Merge commits and commits touching more than maxFiles paths do not
// count toward co-change; last_commit_hash is the newest commit of a pair.
// Bootstrap applies the same rule in Go, backwards in time
// (bootstrap/cochange.go); a test holds the two together.
func (w *writer) deriveHistory(ctx context.Context, maxFiles int) error {
	steps := []struct {
		query string
		args  []any
	}{
		{`DELETE FROM file_commits WHERE file_id IN (SELECT id FROM files WHERE repo_id = ?)`, []any{w.repoID}},
		{`INSERT INTO file_commits (file_id, commit_id)
		 SELECT DISTINCT f.id, cf.commit_id
		 FROM commits c JOIN commit_files cf ON cf.commit_id = c.id
		 JOIN files f ON f.repo_id = c.repo_id AND f.path = cf.path
		 WHERE c.repo_id = ?`, []any{w.repoID}},
		{`DELETE FROM co_changes WHERE file_a_id IN (SELECT id FROM files WHERE repo_id = ?)`, []any{w.repoID}},
		{`INSERT INTO co_changes (file_a_id, file_b_id, count, last_commit_hash)
		 WITH touched AS (
		     SELECT c.id AS commit_id, c.hash, c.timestamp, f.id AS file_id
		     FROM commits c JOIN commit_files cf ON cf.commit_id = c.id
		     JOIN files f ON f.repo_id = c.repo_id AND f.path = cf.path
		     WHERE c.repo_id = ? AND NOT c.is_merge AND c.files_changed BETWEEN 2 AND ?
		 )
		 SELECT a.file_id, b.file_id, count(*),
		        max_by(a.hash, struct_pack(t := a.timestamp, h := a.hash))
		 FROM touched a JOIN touched b ON a.commit_id = b.commit_id AND a.file_id < b.file_id
		 GROUP BY a.file_id, b.file_id`, []any{w.repoID, maxFiles}},
	}
	for _, s := range steps {
		if err := w.exec(ctx, s.query, s.args...); err != nil {
			return err
		}
	}
	return nil
}
