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
		return schema.StageEnrichment
	case askClassifySystem:
		return schema.StageAskClassify
	case askAnswerSystem:
		return schema.StageAskAnswer
	}
	for kind, s := range planSystems {
		if s == system {
			return kind
		}
	}
	return ""
}

// taskEnds are the sections that can follow a prompt's task (which may
// have blank lines of its own).
var taskEnds = []string{"\n\nCandidates:\n", "\n\nSymbols:\n", "\n\nFiles:\n", "\n\nPlan:\n", "\n\nStep ",
	"\n\nContext (read only):\n", "\n\nFile ", "\n\n<prior_changes>", "\n\n<previous_attempt_failed>", "\nYour previous answer:\n"}

// TaskOf is the task a prompt rendered here states ("" when it states
// none): the text after "Task:" up to the section that follows it.
func TaskOf(user string) string {
	_, rest, ok := strings.Cut(user, "Task:\n")
	if !ok {
		return ""
	}
	for _, end := range taskEnds {
		rest, _, _ = strings.Cut(rest, end)
	}
	return strings.TrimSpace(rest)
}

// StepFiles are the files an implement prompt's step targets, as
// ImplementPrompt wrote them; nil when the prompt has no step.
func StepFiles(user string) []string {
	return filesOf(user, " to implement now:\n", "\nContext (read only):\n", "\nFile ", "\n<prior_changes>", "\n<previous_attempt_failed>")
}

// PartFiles are the files a part plan prompt's part affects, as
// PlanPrompt wrote them; nil when the prompt has no part.
func PartFiles(user string) []string {
	_, part, ok := strings.Cut(user, "\nPart ")
	if !ok {
		return nil
	}
	return filesOf(part, " to plan:\n", "\nCompleted steps:", "\nRemaining steps:", "\n<test_results>", "\n<prior_changes>")
}

// filesOf reads the "Files: " line of the section of user that starts
// at marker and ends where one of the next sections starts: the last such
// line in it (a description may hold blank lines).
func filesOf(user, marker string, next ...string) []string {
	_, section, ok := strings.Cut(user, marker)
	if !ok {
		return nil
	}
	for _, n := range next {
		section, _, _ = strings.Cut(section, n)
	}
	var files []string
	for _, line := range strings.Split(section, "\n") {
		if f, ok := strings.CutPrefix(line, "Files: "); ok {
			files = []string{}
			if f != "" {
				files = strings.Split(f, ", ")
			}
		}
	}
	return files
}

// RemainingSteps are the ids of the steps an adjustment prompt lists as
// left to do, in order (a step's indented lines and blank lines within
// the list skipped).
func RemainingSteps(user string) []string {
	_, rest, ok := strings.Cut(user, "\nRemaining steps:\n")
	if !ok {
		return nil
	}
	var ids []string
	for _, line := range strings.Split(rest, "\n") {
		if line == "" || strings.HasPrefix(line, "  ") {
			continue
		}
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
