package prompt

import (
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// StageOf names the stage whose prompt has this system prompt ("" for
// none): what an oracle standing in for a model (cra eval's
// substitution, the test server's oracle mode) needs to answer a request
// it only sees as text.
func StageOf(system string) string {
	switch system {
	case taskSystem:
		return schema.StageTaskAnalysis
	case scopeSystem:
		return schema.StageScope
	case precisionSystem:
		return schema.StagePrecision
	case implementSystem:
		return schema.StageImplement
	case enrichSystem:
		return "enrichment"
	}
	for kind, s := range planSystems {
		if s == system {
			return kind
		}
	}
	return ""
}

// TaskOf is the task a prompt rendered here states ("" when it states
// none): the text after "Task:" up to the first blank line.
func TaskOf(user string) string {
	_, rest, ok := strings.Cut(user, "Task:\n")
	if !ok {
		return ""
	}
	task, _, _ := strings.Cut(rest, "\n\n")
	return strings.TrimSpace(task)
}

// StepFiles are the files an implement prompt's step targets, as
// ImplementPrompt wrote them; nil when the prompt has no step.
func StepFiles(user string) []string {
	_, step, ok := strings.Cut(user, " to implement now:\n")
	if !ok {
		return nil
	}
	// The step ends where the prompt's next section starts; its Files line
	// is the last one in it (a description may have blank lines).
	for _, next := range []string{"\nContext (read only):\n", "\nFile ", "\n<prior_changes>", "\n<previous_attempt_failed>"} {
		step, _, _ = strings.Cut(step, next)
	}
	var files []string
	for _, line := range strings.Split(step, "\n") {
		if f, ok := strings.CutPrefix(line, "Files: "); ok {
			files = strings.Split(f, ", ")
		}
	}
	return files
}

// RemainingSteps are the ids of the steps an adjustment prompt lists as
// left to do, in order.
func RemainingSteps(user string) []string {
	_, rest, ok := strings.Cut(user, "\nRemaining steps:\n")
	if !ok {
		return nil
	}
	var ids []string
	for _, line := range strings.Split(rest, "\n") {
		item, ok := strings.CutPrefix(line, "- ")
		if !ok {
			break
		}
		id, _, _ := strings.Cut(item, ":")
		ids = append(ids, id)
	}
	return ids
}

// ContextPaths are the files of a plan prompt's context package, in the
// order it shows them: what a model answering it was shown.
func ContextPaths(user string) []string {
	_, rest, ok := strings.Cut(user, "\n\nFiles:\n")
	if !ok {
		return nil
	}
	var paths []string
	for _, line := range strings.Split(rest, "\n") {
		if line == "" || strings.HasPrefix(line, " ") {
			continue // a symbol's text (which may have blank lines), a note
		}
		for _, next := range []string{"Part ", "Completed steps:", "Remaining steps:", "<test_results>", "<prior_changes>"} {
			if strings.HasPrefix(line, next) {
				return paths // the next section of PlanPrompt
			}
		}
		paths = append(paths, line)
	}
	return paths
}
