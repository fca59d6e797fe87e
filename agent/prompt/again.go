package prompt

import (
	"fmt"
	"strings"
)

// maxAnswerShown is how much of a refused answer the prompt that asks
// again shows the model: enough to see what went wrong with its format,
// never so much that the second ask cannot fit the window (a JSON bomb,
// a rambling answer) and fails for the size of the first answer.
const maxAnswerShown = 4 << 10

// AskAgain is the prompt that asks once more after an answer the stage's
// parser refused: the same prompt, the answer (its first maxAnswerShown
// bytes), and why it could not be used.
func AskAgain(p Prompt, answer string, problem error) Prompt {
	p.User = fmt.Sprintf("%s\nYour previous answer:\n%s\n\nIt could not be used: %v. Answer again, exactly in the format asked, and nothing else.\n",
		p.User, shownAnswer(strings.TrimSpace(answer)), shorten(problem.Error()))
	return p
}

// shownAnswer is answer cut to maxAnswerShown bytes (on a rune boundary),
// saying how much was left out.
func shownAnswer(answer string) string {
	if len(answer) <= maxAnswerShown {
		return answer
	}
	return fmt.Sprintf("%s\n… (%d more bytes not shown)", strings.ToValidUTF8(answer[:maxAnswerShown], ""), len(answer)-maxAnswerShown)
}

// shorten bounds a parser's message, which may quote the answer.
func shorten(msg string) string {
	if len(msg) <= maxAnswerShown/4 {
		return msg
	}
	return strings.ToValidUTF8(msg[:maxAnswerShown/4], "") + "…"
}
