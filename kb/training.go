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
	ID       string `json:"id"`
	Dataset  string `json:"dataset"`
	Version  int    `json:"version"`
	Stage    string `json:"stage"`
	Source   string `json:"source"`
	Split    string `json:"split"`
	Kind     string `json:"kind"`  // sft, preference, kto (KindSFT, ...)
	Label    string `json:"label"` // positive, negative (kto), pair (preference)
	RepoPath string `json:"repo_path"`
	Commit   string `json:"commit,omitempty"`
	TargetID string `json:"target_id"`
	// Messages is the conversation (sft), the prompt (preference), or the
	// prompt and its completion, assistant last (kto).
	Messages []Message `json:"messages"`
	// Chosen and Rejected are a preference pair's answers to Messages.
	Chosen   []Message `json:"chosen,omitempty"`
	Rejected []Message `json:"rejected,omitempty"`
	// Signal is where a logged row's label came from (Signal*); Evidence
	// the ids and outcomes behind it, JSON; TaskID the synthetic task it
	// was made from or scored against ("" for none).
	Signal           string    `json:"signal,omitempty"`
	Evidence         string    `json:"evidence,omitempty"`
	TaskID           string    `json:"task_id,omitempty"`
	PromptTokens     int       `json:"prompt_tokens"`
	CompletionTokens int       `json:"completion_tokens"`
	CreatedAt        time.Time `json:"created_at"`
}

// Size is about how many bytes of text the example holds: its messages,
// both answers and its evidence.
func (e TrainingExample) Size() int {
	n := len(e.Evidence)
	for _, msgs := range [][]Message{e.Messages, e.Chosen, e.Rejected} {
		for _, m := range msgs {
			n += len(m.Content)
		}
	}
	return n
}

// Kinds of training example.
const (
	KindSFT        = "sft"
	KindPreference = "preference"
	KindKTO        = "kto"
)

// ExampleKinds lists the kinds in the order datasets store and export them.
var ExampleKinds = []string{KindSFT, KindPreference, KindKTO}

// Labels of training examples.
const (
	LabelPositive = "positive"
	LabelNegative = "negative"
	LabelPair     = "pair"
)

// Splits of a dataset.
const (
	SplitTrain      = "train"
	SplitValidation = "validation"
)
