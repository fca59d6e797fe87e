package llm

import "testing"

func TestSplitThinking(t *testing.T) {
	for _, tc := range []struct {
		name, text, separate, answer, thinking string
	}{
		{"none: the text untouched, spaces and all", "<edit file=\"a\">\n  x\n", "", "<edit file=\"a\">\n  x\n", ""},
		{"separate field", "{}", " thought ", "{}", "thought"},
		{"block", "<think>a</think>\n{}", "", "{}", "a"},
		{"two blocks and a field", "<think>a</think>x<think>b</think>", "f", "x", "f\n\na\n\nb"},
		{"cut off while thinking", "<think>still going", "", "", "still going"},
		{"empty block", "<think></think>\n\nok", "", "ok", ""},
	} {
		a, th := splitThinking(tc.text, tc.separate)
		if a != tc.answer || th != tc.thinking {
			t.Errorf("%s: (%q, %q), want (%q, %q)", tc.name, a, th, tc.answer, tc.thinking)
		}
	}
}
