package prompt

import (
	"fmt"
	"regexp"
	"strings"
)

const askClassifySystem = `You are a query classifier for a codebase Q&A system. Decide the best retrieval strategy for answering the user's question.

DIAGNOSTIC: the question holds error messages, exception types or stack traces; describes unexpected behaviour ("X happens when it should Y"); asks why something fails or is broken; names error or status codes. Error sites are found in the code and the call graph is walked backward to the state changes that cause them.
EXPLORATORY: the question asks to trace or walk through a code path, how components call each other, execution order or data flow. Entry points are found and the call graph is walked forward.
ANALYTICAL: the question asks about architecture, structure, design, code quality, flaws, dependencies, coupling or cohesion. Structure is examined: imports, hotspots, bug-fix history.
CONCEPTUAL: the question asks what something does or how to use it, explains a feature or module, or fits none of the above. Descriptions and docstrings are searched.

Respond with a JSON object only:
{"mode": "DIAGNOSTIC" | "EXPLORATORY" | "ANALYTICAL" | "CONCEPTUAL", "reasoning": "<one sentence>", "scope": "<the part of the codebase named, or null>"}`

// AskClassification is the classifier's answer.
type AskClassification struct {
	Mode      string `json:"mode"` // lower-cased
	Reasoning string `json:"reasoning"`
	Scope     string `json:"scope"`
}

// AskModes are the modes the classifier may answer, lower-cased.
var AskModes = []string{"diagnostic", "exploratory", "analytical", "conceptual"}

// AskClassifyPrompt asks for a question's mode.
func AskClassifyPrompt(question string) Prompt {
	return Prompt{System: askClassifySystem, User: "Classify this question:\n" + question}
}

// ParseAskClassification reads the classifier's JSON; a mode that is not
// one of the four is an error.
func ParseAskClassification(text string) (AskClassification, error) {
	var raw struct {
		Mode      string  `json:"mode"`
		Reasoning string  `json:"reasoning"`
		Scope     *string `json:"scope"`
	}
	if err := decodeJSON(text, &raw); err != nil {
		return AskClassification{}, err
	}
	c := AskClassification{Mode: strings.ToLower(strings.TrimSpace(raw.Mode)), Reasoning: strings.TrimSpace(raw.Reasoning)}
	if raw.Scope != nil && !strings.EqualFold(strings.TrimSpace(*raw.Scope), "null") {
		c.Scope = strings.TrimSpace(*raw.Scope)
	}
	for _, m := range AskModes {
		if c.Mode == m {
			return c, nil
		}
	}
	return AskClassification{}, fmt.Errorf("mode %q is not one of DIAGNOSTIC, EXPLORATORY, ANALYTICAL, CONCEPTUAL", raw.Mode)
}

// AskQuestionOf is the question an ask prompt (classify or answer) states.
func AskQuestionOf(user string) string {
	user, _, _ = strings.Cut(user, "\nYour previous answer:\n") // AskAgain's
	if q, ok := strings.CutPrefix(user, "Classify this question:\n"); ok {
		return strings.TrimSpace(q)
	}
	_, rest, ok := strings.Cut(user, "Question:\n")
	if !ok {
		return ""
	}
	q, _, _ := strings.Cut(rest, "\n\nMode: ")
	return strings.TrimSpace(q)
}

const askAnswerSystem = `You answer questions about a code repository from the context given: source line ranges, file descriptions and structure, each headed by "### <path>:<start>-<end>" and the symbol it holds.

Answer in this form:
<answer>
Your answer. Cite what supports each claim as [path:start-end].
</answer>
<sources>
- path:start-end symbol
</sources>
<missing>
- One line per piece of context you still need and were not shown: name the file or the function (for example "parse_args in src/click/core.py"). Leave the section empty when the context suffices.
</missing>

Cite only what the context shows. When the context cannot answer the question, say so in <answer> and list what is missing.`

// AskSource is one piece of context as an answer prompt shows it.
type AskSource struct {
	Path       string
	Start, End int // 0 for a whole file
	Symbol     string
	Why        string
	Text       string
}

// Cite is the source as the prompt heads it and a model cites it.
func (s AskSource) Cite() string {
	if s.Start <= 0 {
		return s.Path
	}
	return fmt.Sprintf("%s:%d-%d", s.Path, s.Start, s.End)
}

// AskAnswerInput is an answer pass's input.
type AskAnswerInput struct {
	Question   string
	Mode       string
	Pass       int // 1-based
	Sources    []AskSource
	Unresolved []string // gaps asked for before that no lookup found
}

// AskAnswerPrompt asks for an answer with its sources and what is missing.
func AskAnswerPrompt(in AskAnswerInput) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "Question:\n%s\n\nMode: %s (pass %d)\n\nContext:\n", strings.TrimSpace(in.Question), in.Mode, in.Pass)
	if len(in.Sources) == 0 {
		b.WriteString("(nothing was found)\n")
	}
	for _, s := range in.Sources {
		fmt.Fprintf(&b, "\n### %s", s.Cite())
		if s.Symbol != "" {
			fmt.Fprintf(&b, " %s", s.Symbol)
		}
		if s.Why != "" {
			fmt.Fprintf(&b, " (%s)", s.Why)
		}
		b.WriteString("\n")
		b.WriteString(strings.TrimRight(s.Text, "\n"))
		b.WriteString("\n")
	}
	if len(in.Unresolved) > 0 {
		b.WriteString("\nAsked for before and not found (do not ask again):\n")
		for _, g := range in.Unresolved {
			fmt.Fprintf(&b, "- %s\n", g)
		}
	}
	return Prompt{System: askAnswerSystem, User: b.String()}
}

// AskContextCites are the citations of the sources an answer prompt shows,
// in its order: what a model answering it was shown.
func AskContextCites(user string) []string {
	user, _, _ = strings.Cut(user, "\nYour previous answer:\n") // AskAgain's
	var out []string
	for _, line := range strings.Split(user, "\n") {
		if rest, ok := strings.CutPrefix(line, "### "); ok {
			cite, _, _ := strings.Cut(rest, " ")
			out = append(out, cite)
		}
	}
	return out
}

// AskAnswer is an answer pass's parsed answer.
type AskAnswer struct {
	Answer  string
	Cited   []AskCitation
	Missing []string
}

// AskCitation is one source an answer cites.
type AskCitation struct {
	Path       string
	Start, End int
	Symbol     string
}

var (
	askCiteRe = regexp.MustCompile(`^([^\s:\[\]]+?)(?::(\d+)(?:-(\d+))?)?(?:\s+(\S+))?$`)
	askInline = regexp.MustCompile(`\[([^\s\[\]]+?:\d+(?:-\d+)?)\]`)
)

// ParseAskAnswer reads <answer>, <sources> and <missing>. An answer
// without an <answer> section is an error; citations come from <sources>
// and, when it is empty, from the [path:start-end] marks in the answer.
func ParseAskAnswer(text string) (AskAnswer, error) {
	answer, ok := section(text, "answer")
	if !ok || strings.TrimSpace(answer) == "" {
		return AskAnswer{}, fmt.Errorf("no <answer>...</answer> section")
	}
	a := AskAnswer{Answer: strings.TrimSpace(answer)}
	src, _ := section(text, "sources")
	for _, item := range listItems(src) {
		if c, ok := parseCitation(item); ok {
			a.Cited = append(a.Cited, c)
		}
	}
	if len(a.Cited) == 0 {
		for _, m := range askInline.FindAllStringSubmatch(a.Answer, -1) {
			if c, ok := parseCitation(m[1]); ok {
				a.Cited = append(a.Cited, c)
			}
		}
	}
	missing, _ := section(text, "missing")
	for _, item := range listItems(missing) {
		if !isNone(item) {
			a.Missing = append(a.Missing, item)
		}
	}
	return a, nil
}

func parseCitation(item string) (AskCitation, bool) {
	m := askCiteRe.FindStringSubmatch(strings.Trim(strings.TrimSpace(item), "`[]"))
	if m == nil {
		return AskCitation{}, false
	}
	c := AskCitation{Path: m[1], Symbol: m[4]}
	fmt.Sscan(m[2], &c.Start)
	c.End = c.Start
	if m[3] != "" {
		fmt.Sscan(m[3], &c.End)
	}
	return c, true
}

// section is the text between <name> and </name> (to the end when the
// closing tag is missing).
func section(text, name string) (string, bool) {
	_, rest, ok := strings.Cut(text, "<"+name+">")
	if !ok {
		return "", false
	}
	body, _, _ := strings.Cut(rest, "</"+name+">")
	return body, true
}

// listItems are the non-empty lines of a list section, bullets removed.
func listItems(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimLeft(line, "-*•"))
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

func isNone(item string) bool {
	switch strings.ToLower(strings.Trim(item, ". ()")) {
	case "none", "nothing", "n/a", "empty":
		return true
	}
	return false
}
