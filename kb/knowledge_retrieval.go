package kb

import (
	"context"
	"fmt"
)

// RepoContents is what retrieval reads of one indexed repository in one
// go: its files, the names and texts lexical search matches, its import
// edges and how often files changed together. Every list is in a stable
// order, so a graph built from it is the same on every read.
type RepoContents struct {
	Files        []ContentFile // by path
	Symbols      []ContentText // a symbol's name; by path, start line, id
	Docstrings   []ContentText // by path, id
	Descriptions []ContentText // promoted domain, module and concepts (cra enrich --promote); by path
	Imports      []PathEdge    // import dependencies, by importer then imported path
	CoChanges    []CoChange    // each pair once, in no set order
}

// ContentFile is an indexed file: its path, language and id.
type ContentFile struct {
	Path     string
	Language string
	ID       int64
}

// ContentText is a piece of text found in a file. TopLevel is set for a
// symbol with no parent.
type ContentText struct {
	Path     string
	Text     string
	TopLevel bool
}

// PathEdge is a dependency from one file to another, by path.
type PathEdge struct{ From, To string }

// CoChange is how many commits changed both files.
type CoChange struct {
	A, B  string
	Count int
}

// RepoContents reads repository repoID for retrieval.
func (k *KnowledgeBase) RepoContents(ctx context.Context, repoID int64) (*RepoContents, error) {
	c := &RepoContents{}
	var err error
	if c.Files, err = queryList(ctx, k.q, func(f *ContentFile) []any { return []any{&f.Path, &f.Language, &f.ID} },
		`SELECT path, language, id FROM files WHERE repo_id = ? ORDER BY path`, repoID); err != nil {
		return nil, fmt.Errorf("kb: files of repository %d: %w", repoID, err)
	}
	texts := []struct {
		dst   *[]ContentText
		what  string
		query string
	}{
		{&c.Symbols, "symbols", `SELECT f.path, s.name, s.parent_symbol_id IS NULL FROM symbols s JOIN files f ON f.id = s.file_id
			WHERE f.repo_id = ? ORDER BY f.path, s.start_line, s.id`},
		{&c.Docstrings, "docstrings", `SELECT f.path, d.content, false FROM docstrings d JOIN files f ON f.id = d.file_id
			WHERE f.repo_id = ? ORDER BY f.path, d.id`},
		{&c.Descriptions, "descriptions", `SELECT f.path, concat_ws(' ', m.domain, m.module, array_to_string(m.concepts, ' ')), false
			FROM file_metadata m JOIN files f ON f.id = m.file_id WHERE f.repo_id = ? ORDER BY f.path`},
	}
	for _, t := range texts {
		if *t.dst, err = queryList(ctx, k.q, func(x *ContentText) []any { return []any{&x.Path, &x.Text, &x.TopLevel} },
			t.query, repoID); err != nil {
			return nil, fmt.Errorf("kb: %s of repository %d: %w", t.what, repoID, err)
		}
	}
	if c.Imports, err = queryList(ctx, k.q, func(e *PathEdge) []any { return []any{&e.From, &e.To} },
		`SELECT a.path, b.path FROM dependencies d JOIN files a ON a.id = d.source_file_id
			JOIN files b ON b.id = d.target_file_id WHERE a.repo_id = ? AND d.kind = 'import' ORDER BY 1, 2`, repoID); err != nil {
		return nil, fmt.Errorf("kb: imports of repository %d: %w", repoID, err)
	}
	if c.CoChanges, err = queryList(ctx, k.q, func(x *CoChange) []any { return []any{&x.A, &x.B, &x.Count} },
		`SELECT a.path, b.path, c.count FROM co_changes c JOIN files a ON a.id = c.file_a_id
			JOIN files b ON b.id = c.file_b_id WHERE a.repo_id = ?`, repoID); err != nil {
		return nil, fmt.Errorf("kb: co-changes of repository %d: %w", repoID, err)
	}
	return c, nil
}

// DescribedFiles counts a repository's indexed files and those with a
// promoted description.
func (k *KnowledgeBase) DescribedFiles(ctx context.Context, repoID int64) (files, described int, err error) {
	err = k.q.QueryRowContext(ctx, `SELECT count(*), count(m.file_id) FROM files f
		LEFT JOIN file_metadata m ON m.file_id = f.id WHERE f.repo_id = ?`, repoID).Scan(&files, &described)
	if err != nil {
		err = fmt.Errorf("kb: described files of repository %d: %w", repoID, err)
	}
	return files, described, err
}
