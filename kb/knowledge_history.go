package kb

import (
	"context"
	"fmt"
	"time"
)

// Commit is one commit of a repository's history.
type Commit struct {
	ID           int64     `json:"id"`
	RepoID       int64     `json:"repo_id"`
	Hash         string    `json:"hash"`
	Author       string    `json:"author,omitempty"`
	Message      string    `json:"message,omitempty"`
	Timestamp    time.Time `json:"timestamp"`
	FilesChanged int       `json:"files_changed"`
	Insertions   int       `json:"insertions"`
	Deletions    int       `json:"deletions"`
	Parents      []string  `json:"parents"`
	IsMerge      bool      `json:"is_merge"`
}

// defaultRecentCommits is how many commits GetRecentCommitsForFile returns when
// asked for none, and how many GetFileContext includes.
const defaultRecentCommits = 10

// GetRecentCommitsForFile lists the newest commits that changed a file,
// newest first (ties by hash); at most limit (10 when limit <= 0).
func (k *KnowledgeBase) GetRecentCommitsForFile(ctx context.Context, fileID int64, limit int) ([]Commit, error) {
	cs, err := queryList(ctx, k.q, func(c *Commit) []any {
		return []any{&c.ID, &c.RepoID, &c.Hash, &c.Author, &c.Message, &c.Timestamp,
			&c.FilesChanged, &c.Insertions, &c.Deletions, stringList{&c.Parents}, &c.IsMerge}
	}, `SELECT c.id, c.repo_id, c.hash, coalesce(c.author, ''), coalesce(c.message, ''), c.timestamp,
			coalesce(c.files_changed, 0), coalesce(c.insertions, 0), coalesce(c.deletions, 0),
			coalesce(c.parents, []::VARCHAR[]), coalesce(c.is_merge, false)
		FROM commits c WHERE c.id IN (SELECT commit_id FROM file_commits WHERE file_id = ?)
		ORDER BY c.timestamp DESC, c.hash LIMIT ?`, fileID, limitOr(limit, defaultRecentCommits))
	if err != nil {
		return nil, fmt.Errorf("kb: recent commits of file %d: %w", fileID, err)
	}
	return cs, nil
}
