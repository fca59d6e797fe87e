package prompt

import (
	"fmt"
	"strings"
)

// TaskAnalysis is what the first stage extracts from a task: a summary and
// the names that seed retrieval.
type TaskAnalysis struct {
	Summary  string   `json:"summary"`
	Files    []string `json:"files"`
	Symbols  []string `json:"symbols"`
	Keywords []string `json:"keywords"`
}

const taskSystem = `You read a coding task and extract what retrieval needs: a one-sentence summary, the file paths and code symbols it names, and keywords for the concepts it involves. Answer with a JSON object {"summary": "...", "files": [...], "symbols": [...], "keywords": [...]}.`

// TaskAnalysisPrompt renders the task analysis stage's prompt.
func TaskAnalysisPrompt(task string) Prompt {
	return Prompt{System: taskSystem, User: fmt.Sprintf("Task:\n%s\n", strings.TrimSpace(task))}
}

// RenderTaskAnalysis is the exact response text ParseTaskAnalysis accepts.
func RenderTaskAnalysis(a TaskAnalysis) string {
	for _, l := range []*[]string{&a.Files, &a.Symbols, &a.Keywords} {
		if *l == nil {
			*l = []string{}
		}
	}
	return encodeJSON(a)
}

// ParseTaskAnalysis reads a task analysis response.
func ParseTaskAnalysis(text string) (TaskAnalysis, error) {
	var a TaskAnalysis
	if err := decodeJSON(text, &a); err != nil {
		return a, fmt.Errorf("task analysis: %w", err)
	}
	return a, nil
}
