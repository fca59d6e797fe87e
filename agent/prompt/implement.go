package prompt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/kb/schema"
)

// File is a file's content as the implement stage sees it.
type File struct {
	Path    string
	Content string
}

// ImplementInput is the implement stage's input: the task, the plan it
// follows if any (rendered), and the files to edit, whole. An orchestrated
// pass also gets its step, the context package retrieval assembled (the
// code around the change), the run's changes so far and, on a retry, why
// the previous attempt failed.
type ImplementInput struct {
	Task         string
	Plan         string
	Step         *schema.PlanStep
	Context      []ContextFile
	Files        []File
	PriorChanges string
	Failure      string
}

const implementSystem = `You implement a code change as search/replace edits. For each edit write exactly:
<edit file="path">
<search>
text copied verbatim from the file, enough lines to occur exactly once</search>
<replacement>
the new text</replacement>
</edit>
Edits of one file apply in order, each to the result of the previous one. An empty search creates a new file with the replacement as content; a search of the whole file with an empty replacement deletes its content. Write nothing else.`

// ImplementPrompt renders the implement stage's prompt.
func ImplementPrompt(in ImplementInput) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "Task:\n%s\n", strings.TrimSpace(in.Task))
	if in.Plan != "" {
		fmt.Fprintf(&b, "\nPlan:\n%s\n", strings.TrimSpace(in.Plan))
	}
	if s := in.Step; s != nil {
		fmt.Fprintf(&b, "\nStep %s to implement now:\n%s\n", s.ID, strings.TrimSpace(s.Description))
		if len(s.TargetFiles) > 0 {
			fmt.Fprintf(&b, "Files: %s\n", strings.Join(s.TargetFiles, ", "))
		}
		if len(s.TargetSymbols) > 0 {
			fmt.Fprintf(&b, "Symbols: %s\n", strings.Join(s.TargetSymbols, ", "))
		}
	}
	if len(in.Context) > 0 {
		b.WriteString("\nContext (read only):\n")
		writeContext(&b, in.Context)
	}
	for _, f := range in.Files {
		fmt.Fprintf(&b, "\nFile %s:\n```\n%s", f.Path, f.Content)
		if f.Content != "" && !strings.HasSuffix(f.Content, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("```\n")
	}
	if in.PriorChanges != "" {
		fmt.Fprintf(&b, "\n<prior_changes>\n%s\n</prior_changes>\n", strings.TrimSpace(in.PriorChanges))
	}
	if in.Failure != "" {
		fmt.Fprintf(&b, "\n<previous_attempt_failed>\n%s\n</previous_attempt_failed>\nFix it: answer with edits to the files as they are above.\n", strings.TrimSpace(in.Failure))
	}
	return Prompt{System: implementSystem, User: b.String()}
}

// RenderEdits is the exact response text ParseEdits accepts for edits. The
// search and replacement texts go in verbatim: no escaping, so a model
// copies the file as it is.
func RenderEdits(edits []schema.Edit) string {
	var b strings.Builder
	for i, e := range edits {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "<edit file=%q>\n<search>\n%s</search>\n<replacement>\n%s</replacement>\n</edit>", e.File, e.Search, e.Replace)
	}
	return b.String()
}

var editStart = regexp.MustCompile(`(?m)^<edit file="((?:[^"\\]|\\.)*)">\n`)

const (
	searchOpen  = "<search>\n"
	searchClose = "</search>\n<replacement>\n"
	editClose   = "</replacement>\n</edit>"
)

// ParseEdits reads an implement response. Texts are verbatim, so the
// delimiters are found from the outside in: an edit runs to the next line
// starting `<edit file=` (or the end), ends with </replacement></edit>, and
// its search ends at the last </search><replacement> inside it. A search
// text may thus hold anything but a line starting `<edit file="`.
func ParseEdits(text string) ([]schema.Edit, error) {
	locs := editStart.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		if strings.TrimSpace(text) == "" {
			return nil, nil
		}
		return nil, fmt.Errorf("implement: no <edit file=...> block in the response")
	}
	var out []schema.Edit
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		file, err := strconv.Unquote(`"` + text[loc[2]:loc[3]] + `"`)
		if err != nil {
			return nil, fmt.Errorf("implement: edit %d: file name: %w", i+1, err)
		}
		body := strings.TrimRight(text[loc[1]:end], " \t\n")
		if !strings.HasPrefix(body, searchOpen) || !strings.HasSuffix(body, editClose) {
			return nil, fmt.Errorf("implement: edit %d of %s: want <search>...</search><replacement>...</replacement></edit>", i+1, file)
		}
		body = body[len(searchOpen) : len(body)-len(editClose)]
		mid := strings.LastIndex(body, searchClose)
		if mid < 0 {
			return nil, fmt.Errorf("implement: edit %d of %s: no </search> before <replacement>", i+1, file)
		}
		out = append(out, schema.Edit{File: file, Search: body[:mid], Replace: body[mid+len(searchClose):]})
	}
	return out, nil
}
