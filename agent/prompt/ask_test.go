package prompt_test

import (
	"reflect"
	"testing"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

func TestParseAskAnswer(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    prompt.AskAnswer
		wantErr bool
	}{
		{name: "sources and missing",
			text: "<answer>\nRaised in parse [src/core.py:10-20].\n</answer>\n<sources>\n- src/core.py:10-20 Parser.parse\n- `src/util.py`\n</sources>\n<missing>\n- get_db in api/deps.py\n- None\n</missing>",
			want: prompt.AskAnswer{Answer: "Raised in parse [src/core.py:10-20].",
				Cited:   []prompt.AskCitation{{Path: "src/core.py", Start: 10, End: 20, Symbol: "Parser.parse"}, {Path: "src/util.py"}},
				Missing: []string{"get_db in api/deps.py"}}},
		{name: "inline citations when no sources section",
			text: "<answer>See [a.py:3] and [b/c.go:4-9].</answer>",
			want: prompt.AskAnswer{Answer: "See [a.py:3] and [b/c.go:4-9].", Cited: []prompt.AskCitation{{Path: "a.py", Start: 3, End: 3}, {Path: "b/c.go", Start: 4, End: 9}}}},
		{name: "empty missing", text: "<answer>x</answer><sources></sources><missing>\n</missing>", want: prompt.AskAnswer{Answer: "x"}},
		{name: "no answer", text: "Here is what I think: it fails.", wantErr: true},
		{name: "empty answer", text: "<answer>  </answer>", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := prompt.ParseAskAnswer(tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseAskClassification(t *testing.T) {
	got, err := prompt.ParseAskClassification("Sure:\n```json\n{\"mode\": \"ANALYTICAL\", \"reasoning\": \"asks about flaws\", \"scope\": \"frontend\"}\n```")
	if err != nil || got != (prompt.AskClassification{Mode: "analytical", Reasoning: "asks about flaws", Scope: "frontend"}) {
		t.Errorf("got %+v, %v", got, err)
	}
	if got, err := prompt.ParseAskClassification(`{"mode": "conceptual", "reasoning": "r", "scope": null}`); err != nil || got.Scope != "" {
		t.Errorf("null scope: got %+v, %v", got, err)
	}
	if _, err := prompt.ParseAskClassification(`{"mode": "DEBUG", "reasoning": "r"}`); err == nil {
		t.Error("a fifth mode is no error")
	}
}

// What an oracle reads back from the prompts: the stage, the question
// (also from a prompt asked again) and the sources shown.
func TestAskPromptsReadBack(t *testing.T) {
	q := "Why do I get UsageError?\nIn click 8."
	c := prompt.AskClassifyPrompt(q)
	if prompt.StageOf(c.System) != schema.StageAskClassify || prompt.AskQuestionOf(c.User) != q {
		t.Errorf("classify prompt: stage %q question %q", prompt.StageOf(c.System), prompt.AskQuestionOf(c.User))
	}
	again := prompt.AskAgain(c, "nonsense", errString("no JSON"))
	if prompt.AskQuestionOf(again.User) != q {
		t.Errorf("asked again: question %q", prompt.AskQuestionOf(again.User))
	}
	a := prompt.AskAnswerPrompt(prompt.AskAnswerInput{Question: q, Mode: "diagnostic", Pass: 2,
		Sources: []prompt.AskSource{{Path: "src/core.py", Start: 3, End: 9, Symbol: "parse", Why: "raises UsageError", Text: "def parse():\n    raise UsageError('x')\n"},
			{Path: "src/README.md", Text: "docs"}},
		Unresolved: []string{"the requests library"}})
	if prompt.StageOf(a.System) != schema.StageAskAnswer || prompt.AskQuestionOf(a.User) != q {
		t.Errorf("answer prompt: stage %q question %q", prompt.StageOf(a.System), prompt.AskQuestionOf(a.User))
	}
	if got := prompt.AskContextCites(a.User); !reflect.DeepEqual(got, []string{"src/core.py:3-9", "src/README.md"}) {
		t.Errorf("cites %v", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
