package kb

import (
	"context"
	"fmt"
)

// CallEdges lists the resolved calls between a repository's symbols, by
// caller then callee, each once. cra ask walks them both ways by id: the
// code_index lists name callers and callees by qualified name, which two
// files may share (main, __init__).
func (k *KnowledgeBase) CallEdges(ctx context.Context, repoID int64) ([]SymbolReference, error) {
	rs, err := queryList(ctx, k.q, func(r *SymbolReference) []any { return []any{&r.Caller, &r.Callee, &r.Kind} },
		`SELECT DISTINCT r.caller_symbol_id, r.callee_symbol_id, r.reference_kind
		FROM symbol_references r JOIN symbols s ON s.id = r.caller_symbol_id JOIN files f ON f.id = s.file_id
		WHERE f.repo_id = ? AND r.reference_kind = 'call' ORDER BY 1, 2`, repoID)
	if err != nil {
		return nil, fmt.Errorf("kb: calls of repo %d: %w", repoID, err)
	}
	return rs, nil
}

// RepoDocstring is a docstring with the path of its file.
type RepoDocstring struct {
	Docstring
	Path string `json:"path"`
}

// RepoDocstrings lists every docstring of a repository in one read (cra
// ask ranks them one by one), by path, module docstrings first, then by
// the line of their symbol. Fields is left nil: the text is what is
// ranked and shown.
func (k *KnowledgeBase) RepoDocstrings(ctx context.Context, repoID int64) ([]RepoDocstring, error) {
	ds, err := queryList(ctx, k.q, func(d *RepoDocstring) []any {
		return []any{&d.ID, &d.FileID, &d.Path, &d.SymbolID, &d.SymbolName, &d.Content, &d.Format}
	}, `SELECT d.id, d.file_id, f.path, d.symbol_id, coalesce(s.name, ''), d.content, coalesce(d.format, '')
		FROM docstrings d JOIN files f ON f.id = d.file_id LEFT JOIN symbols s ON s.id = d.symbol_id
		WHERE f.repo_id = ? ORDER BY f.path, d.symbol_id IS NOT NULL, s.start_line, d.id`, repoID)
	if err != nil {
		return nil, fmt.Errorf("kb: docstrings of repo %d: %w", repoID, err)
	}
	return ds, nil
}

// GetCommitsForFileMatching lists the commits that changed a file whose
// message matches pattern (a regular expression, case-insensitive, as
// DuckDB's regexp_matches reads it), newest first (ties by hash); at most
// limit (10 when limit <= 0). cra ask's analytical mode finds bug-fix
// history this way, however old.
func (k *KnowledgeBase) GetCommitsForFileMatching(ctx context.Context, fileID int64, pattern string, limit int) ([]Commit, error) {
	cs, err := queryList(ctx, k.q, func(c *Commit) []any {
		return []any{&c.ID, &c.RepoID, &c.Hash, &c.Author, &c.Message, &c.Timestamp,
			&c.FilesChanged, &c.Insertions, &c.Deletions, stringList{&c.Parents}, &c.IsMerge}
	}, `SELECT c.id, c.repo_id, c.hash, coalesce(c.author, ''), coalesce(c.message, ''), c.timestamp,
			coalesce(c.files_changed, 0), coalesce(c.insertions, 0), coalesce(c.deletions, 0),
			coalesce(c.parents, []::VARCHAR[]), coalesce(c.is_merge, false)
		FROM commits c WHERE c.id IN (SELECT commit_id FROM file_commits WHERE file_id = ?)
			AND regexp_matches(coalesce(c.message, ''), ?, 'i')
		ORDER BY c.timestamp DESC, c.hash LIMIT ?`, fileID, pattern, limitOr(limit, defaultRecentCommits))
	if err != nil {
		return nil, fmt.Errorf("kb: commits of file %d matching %q: %w", fileID, pattern, err)
	}
	return cs, nil
}
