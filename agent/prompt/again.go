package prompt

import (
	"fmt"
	"strings"
)

// AskAgain is the prompt that asks once more after an answer the stage's
// parser refused: the same prompt, the answer, and why it could not be used.
func AskAgain(p Prompt, answer string, problem error) Prompt {
	p.User = fmt.Sprintf("%s\nYour previous answer:\n%s\n\nIt could not be used: %v. Answer again, exactly in the format asked, and nothing else.\n",
		p.User, strings.TrimSpace(answer), problem)
	return p
}
