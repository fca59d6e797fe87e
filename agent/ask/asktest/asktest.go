// Package asktest answers cra ask's prompts as a model would, for tests
// and make e2e over the fake model server (internal/fakellm): the
// classifier with a question's known mode, the answer pass citing what
// its prompt shows.
package asktest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/kb/schema"
)

// Cites is how many of the sources shown a right answer cites, first
// first.
const Cites = 5

// Answer is a fakellm.Oracle's Answer for ask prompts. The classifier's
// right answer is the question's mode in modes (the generator's), else
// the keyword rule's (ask.Fallback); its wrong one the next mode. The
// answer pass's right answer cites the first Cites sources its prompt
// shows and names nothing missing; its wrong one cites only the last
// source shown. Any other prompt is not placed (ok false).
func Answer(modes map[string]ask.Mode) func(fakellm.Request) (stage, right, wrong string, ok bool) {
	return func(req fakellm.Request) (string, string, string, bool) {
		system, user := messages(req)
		switch stage := prompt.StageOf(system); stage {
		case schema.StageAskClassify:
			q := prompt.AskQuestionOf(user)
			m, known := modes[q]
			if !known {
				m = ask.Fallback(q).Mode
			}
			return stage, Classify(m), Classify(next(m)), true
		case schema.StageAskAnswer:
			shown := prompt.AskContextCites(user)
			right := shown[:min(Cites, len(shown))]
			var wrong []string
			if len(shown) > 0 {
				wrong = shown[len(shown)-1:]
			}
			return stage, Reply("From the context shown.", right, nil), Reply("From the context shown.", wrong, nil), true
		}
		return "", "", "", false
	}
}

// Classify is a classifier's answer of mode m.
func Classify(m ask.Mode) string {
	b, _ := json.Marshal(struct {
		Mode      string  `json:"mode"`
		Reasoning string  `json:"reasoning"`
		Scope     *string `json:"scope"`
	}{strings.ToUpper(string(m)), "the question's words", nil})
	return string(b)
}

// Reply is an answer pass's answer citing cites, naming missing.
func Reply(answer string, cites, missing []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<answer>\n%s", answer)
	for _, c := range cites {
		fmt.Fprintf(&b, " [%s]", c)
	}
	b.WriteString("\n</answer>\n<sources>\n")
	for _, c := range cites {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	b.WriteString("</sources>\n<missing>\n")
	for _, m := range missing {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	b.WriteString("</missing>\n")
	return b.String()
}

func next(m ask.Mode) ask.Mode {
	return ask.Modes[(slices.Index(ask.Modes, m)+1)%len(ask.Modes)]
}

// messages are a request's system prompt and its last user message.
func messages(req fakellm.Request) (system, user string) {
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "user":
			user = m.Content
		}
	}
	return system, user
}
