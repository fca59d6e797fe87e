package kb

import "time"

// SyntheticTask is one qualifying commit: the task it stands for and where it
// comes from (raw.synthetic_tasks).
type SyntheticTask struct {
	ID           string    `json:"id"`
	RunID        int64     `json:"run_id"`
	RepoPath     string    `json:"repo_path"`
	Commit       string    `json:"commit"`
	Parent       string    `json:"parent"`
	Author       string    `json:"author"`
	CommittedAt  time.Time `json:"committed_at"`
	Message      string    `json:"message"`
	Task         string    `json:"task"`
	FilesChanged int       `json:"files_changed"`
	Insertions   int       `json:"insertions"`
	Deletions    int       `json:"deletions"`
}
