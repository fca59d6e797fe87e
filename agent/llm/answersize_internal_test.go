package llm

import "testing"

// The answer limit follows max_tokens between its floor and its ceiling,
// whatever the config asks for.
func TestAnswerLimit(t *testing.T) {
	for _, tc := range []struct {
		name           string
		cfgMax, reqMax int
		want           int64
	}{
		{"server default", 0, 0, minAnswerBytes},
		{"small cap: the floor", 100, 0, minAnswerBytes},
		{"just over the floor", minAnswerBytes/bytesPerToken + 1, 0, minAnswerBytes + bytesPerToken},
		{"the request's own", 4096, 8192, 8192 * bytesPerToken},
		{"just under the ceiling", MaxAnswerBytes/bytesPerToken - 1, 0, MaxAnswerBytes - bytesPerToken},
		{"at the ceiling", MaxAnswerBytes / bytesPerToken, 0, MaxAnswerBytes},
		{"huge max_tokens: the ceiling", 10_000_000, 0, MaxAnswerBytes},
		{"huge request: the ceiling", 4096, 1 << 30, MaxAnswerBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (ModelConfig{MaxTokens: tc.cfgMax}).answerLimit(Request{MaxTokens: tc.reqMax}); got != tc.want {
				t.Errorf("answerLimit = %d, want %d", got, tc.want)
			}
		})
	}
}
