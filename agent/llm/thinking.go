package llm

import (
	"regexp"
	"strings"
)

// thinkBlock is a <think>…</think> block a thinking model writes into its
// answer when the server does not separate it (an unclosed one runs to the
// end: the model was cut off while thinking).
var thinkBlock = regexp.MustCompile(`(?s)<think>(.*?)(?:</think>|$)`)

// splitThinking separates what a thinking model thought from its answer:
// the server's own thinking field (separate) plus every <think> block of
// text. The answer is the text without them, trimmed.
func splitThinking(text, separate string) (answer, thinking string) {
	var parts []string
	if s := strings.TrimSpace(separate); s != "" {
		parts = append(parts, s)
	}
	if strings.Contains(text, "<think>") {
		for _, m := range thinkBlock.FindAllStringSubmatch(text, -1) {
			if s := strings.TrimSpace(m[1]); s != "" {
				parts = append(parts, s)
			}
		}
		text = strings.TrimSpace(thinkBlock.ReplaceAllString(text, ""))
	}
	return text, strings.Join(parts, "\n\n")
}
