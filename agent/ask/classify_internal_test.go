package ask

import (
	"context"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/fakellm"
)

// The model's mode is taken; answers unusable twice give the keyword
// rule's, saying why.
func TestClassify(t *testing.T) {
	q := "Why do I get UsageError: Missing parameter?"
	tests := []struct {
		name    string
		replies []fakellm.Reply
		want    Classification
	}{
		{"the model's", []fakellm.Reply{{Text: `{"mode": "EXPLORATORY", "reasoning": "r", "scope": "src/click"}`}},
			Classification{Mode: Exploratory, Reasoning: "r", Scope: "src/click", By: ByModel}},
		{"asked again", []fakellm.Reply{{Text: "it is a bug"}, {Text: `{"mode": "diagnostic", "reasoning": "r", "scope": null}`}},
			Classification{Mode: Diagnostic, Reasoning: "r", By: ByModel}},
		{"unusable twice", []fakellm.Reply{{Text: `{"mode": "DEBUGGING"}`}, {Text: "no idea"}},
			Classification{Mode: Diagnostic, By: ByFallback}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, tt.replies...)
			got, err := classify(context.Background(), client(t, srv), "ask-1", q)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want.By == ByFallback {
				if got.Mode != tt.want.Mode || got.By != ByFallback || !strings.Contains(got.Reasoning, "unusable") {
					t.Errorf("got %+v, want the fallback's diagnostic saying the answer was unusable", got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
