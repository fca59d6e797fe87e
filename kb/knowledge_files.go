package kb

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Repo is one indexed repository.
type Repo struct {
	ID         int64     `json:"id"`
	Path       string    `json:"path"`
	RemoteURL  string    `json:"remote_url,omitempty"`
	IndexedAt  time.Time `json:"indexed_at"`
	TreeRev    string    `json:"tree_rev,omitempty"`    // "worktree" or the commit whose tree was indexed
	HeadCommit string    `json:"head_commit,omitempty"` // newest commit whose history is loaded
	IsGit      bool      `json:"is_git"`
	// DerivedStale is true while dependencies, references and co-changes
	// lag behind the files and commits.
	DerivedStale bool `json:"derived_stale"`
}

const repoCols = `r.id, r.path, coalesce(r.remote_url, ''), r.indexed_at, coalesce(r.tree_rev, ''),
	coalesce(r.head_commit, ''), coalesce(r.is_git, false), coalesce(r.derived_stale, false)`

func (r *Repo) dest() []any {
	return []any{&r.ID, &r.Path, &r.RemoteURL, &r.IndexedAt, &r.TreeRev, &r.HeadCommit, &r.IsGit, &r.DerivedStale}
}

// File is one indexed file.
type File struct {
	ID          int64  `json:"id"`
	RepoID      int64  `json:"repo_id"`
	Path        string `json:"path"` // relative to the repo root, '/' separated
	Language    string `json:"language"`
	ContentHash string `json:"content_hash"`
	SizeBytes   int64  `json:"size_bytes"`
	ErrorNodes  int    `json:"error_nodes"` // tree-sitter ERROR/MISSING nodes
}

// fileCols selects a File from files aliased f.
const fileCols = `f.id, f.repo_id, f.path, f.language, f.content_hash, f.size_bytes, coalesce(f.error_nodes, 0)`

func (f *File) dest() []any {
	return []any{&f.ID, &f.RepoID, &f.Path, &f.Language, &f.ContentHash, &f.SizeBytes, &f.ErrorNodes}
}

// Repos lists the indexed repositories by path.
func (k *KnowledgeBase) Repos(ctx context.Context) ([]Repo, error) {
	rs, err := queryList(ctx, k.q, (*Repo).dest, "SELECT "+repoCols+" FROM repos r ORDER BY r.path")
	if err != nil {
		return nil, fmt.Errorf("kb: list repos: %w", err)
	}
	return rs, nil
}

// RepoByPath finds the repository indexed from path, as stored (absolute).
func (k *KnowledgeBase) RepoByPath(ctx context.Context, path string) (*Repo, error) {
	var r Repo
	err := queryOne(ctx, k.q, r.dest(), fmt.Sprintf("repo %s", path),
		"SELECT "+repoCols+" FROM repos r WHERE r.path = ?", path)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// RepoByID finds the repository with id.
func (k *KnowledgeBase) RepoByID(ctx context.Context, id int64) (*Repo, error) {
	var r Repo
	err := queryOne(ctx, k.q, r.dest(), fmt.Sprintf("repo %d", id),
		"SELECT "+repoCols+" FROM repos r WHERE r.id = ?", id)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// GetFiles lists the files of a repository in language ("" for all), by path.
func (k *KnowledgeBase) GetFiles(ctx context.Context, repoID int64, language string) ([]File, error) {
	fs, err := queryList(ctx, k.q, (*File).dest, "SELECT "+fileCols+` FROM files f
		WHERE f.repo_id = ? AND (? = '' OR f.language = ?) ORDER BY f.path`, repoID, language, language)
	if err != nil {
		return nil, fmt.Errorf("kb: files of repo %d: %w", repoID, err)
	}
	return fs, nil
}

// GetFileByPath finds a file by its repo-relative path.
func (k *KnowledgeBase) GetFileByPath(ctx context.Context, repoID int64, path string) (*File, error) {
	var f File
	err := queryOne(ctx, k.q, f.dest(), fmt.Sprintf("file %s in repo %d", path, repoID),
		"SELECT "+fileCols+" FROM files f WHERE f.repo_id = ? AND f.path = ?", repoID, path)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// GetFileByID finds a file by id.
func (k *KnowledgeBase) GetFileByID(ctx context.Context, fileID int64) (*File, error) {
	var f File
	err := queryOne(ctx, k.q, f.dest(), fmt.Sprintf("file %d", fileID),
		"SELECT "+fileCols+" FROM files f WHERE f.id = ?", fileID)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// FileMetadata is what `cra enrich --promote` recorded about a file.
type FileMetadata struct {
	Purpose          string   `json:"purpose,omitempty"`
	Module           string   `json:"module,omitempty"`
	Domain           string   `json:"domain,omitempty"`
	Concepts         []string `json:"concepts"`
	PublicAPISurface []string `json:"public_api_surface"`
	ComplexityNotes  string   `json:"complexity_notes,omitempty"`
}

// MetadataQuery selects files by their metadata. Empty fields are ignored;
// the given ones must all hold. Domain and Module compare case-insensitively
// and whole; Concepts match when any of them is among the file's concepts
// (case-insensitive).
type MetadataQuery struct {
	Domain   string
	Module   string
	Concepts []string
}

// MetadataMatch is a file found by SearchFilesByMetadata.
type MetadataMatch struct {
	File     File         `json:"file"`
	Metadata FileMetadata `json:"metadata"`
	// ConceptOverlap counts the query's concepts the file has.
	ConceptOverlap int `json:"concept_overlap"`
}

// SearchFilesByMetadata finds the files of a repository whose metadata
// matches q, by concept overlap (most first), then path. An empty query
// matches every file with metadata. The result is empty, not an error, when
// enrichment has not been promoted.
func (k *KnowledgeBase) SearchFilesByMetadata(ctx context.Context, repoID int64, q MetadataQuery) ([]MetadataMatch, error) {
	overlap, args := "0", []any{}
	if len(q.Concepts) > 0 {
		overlap = `(SELECT count(DISTINCT lower(c)) FROM unnest(m.concepts) AS t(c)
			WHERE lower(c) IN (SELECT lower(unnest(?::VARCHAR[]))))`
		args = append(args, q.Concepts)
	}
	where := []string{"f.repo_id = ?"}
	args = append(args, repoID)
	if q.Domain != "" {
		where, args = append(where, "lower(m.domain) = lower(?)"), append(args, q.Domain)
	}
	if q.Module != "" {
		where, args = append(where, "lower(m.module) = lower(?)"), append(args, q.Module)
	}
	if len(q.Concepts) > 0 {
		where = append(where, "m.overlap > 0")
	}
	query := `WITH m AS (SELECT *, ` + overlap + ` AS overlap FROM file_metadata m)
		SELECT ` + fileCols + `, coalesce(m.purpose, ''), coalesce(m.module, ''), coalesce(m.domain, ''),
			coalesce(m.concepts, []::VARCHAR[]), coalesce(m.public_api_surface, []::VARCHAR[]), coalesce(m.complexity_notes, ''), m.overlap
		FROM m JOIN files f ON f.id = m.file_id
		WHERE ` + strings.Join(where, " AND ") + `
		ORDER BY m.overlap DESC, f.path`
	ms, err := queryList(ctx, k.q, func(m *MetadataMatch) []any {
		md := &m.Metadata
		return append(m.File.dest(), &md.Purpose, &md.Module, &md.Domain, stringList{&md.Concepts},
			stringList{&md.PublicAPISurface}, &md.ComplexityNotes, &m.ConceptOverlap)
	}, query, args...)
	if err != nil {
		return nil, fmt.Errorf("kb: search file metadata of repo %d: %w", repoID, err)
	}
	return ms, nil
}
