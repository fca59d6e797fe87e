package retrieval

import (
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// Seed sources, as a seed's reason starts.
const (
	SourceMention  = "mention"                // the task text names it (Mentions)
	SourceAnalysis = schema.StageTaskAnalysis // the model's task analysis names it
)

// Seeds merges the deterministic mentions of the task with the model's task
// analysis: the mentions first, in order, then what the analysis adds — the
// files it names (a path, suffix or file name) and the files defining the
// symbols it names, at most limit files per name, as for mentions. Each
// seed's reason says which of the two found it.
func Seeds(task string, analysis prompt.TaskAnalysis, g Graph) []Mention {
	out := Mentions(task, g)
	for i := range out {
		out[i].Reason = SourceMention + ": " + out[i].Reason
	}
	for _, f := range analysis.Files {
		if files := g.FilesNamed(f); len(files) > 0 && len(files) <= maxMentionMatches {
			out = append(out, Mention{Files: files, Reason: SourceAnalysis + ": names " + f})
		}
	}
	for _, s := range analysis.Symbols {
		if files := g.Definers(s, maxMentionMatches); len(files) > 0 && len(files) <= maxMentionMatches {
			out = append(out, Mention{Files: files, Reason: SourceAnalysis + ": defines " + s, Symbol: s})
		}
	}
	return out
}
