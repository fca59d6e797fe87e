package kb

import "time"

// Message is one chat turn of a training example.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// TrainingExample is one row of raw.training_examples: a rendered chat
// example of one dataset, with where it came from and which split it is in.
type TrainingExample struct {
	ID               string    `json:"id"`
	Dataset          string    `json:"dataset"`
	Version          int       `json:"version"`
	Stage            string    `json:"stage"`
	Source           string    `json:"source"`
	Split            string    `json:"split"`
	Label            string    `json:"label"`
	RepoPath         string    `json:"repo_path"`
	Commit           string    `json:"commit,omitempty"`
	TargetID         string    `json:"target_id"`
	Messages         []Message `json:"messages"`
	PromptTokens     int       `json:"prompt_tokens"`
	CompletionTokens int       `json:"completion_tokens"`
	CreatedAt        time.Time `json:"created_at"`
}

// Splits of a dataset.
const (
	SplitTrain      = "train"
	SplitValidation = "validation"
)
