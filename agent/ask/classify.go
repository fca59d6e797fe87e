package ask

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb/schema"
)

// classify asks the ask_classify model for the question's mode; an
// unusable answer is asked for once more (retrieval.Ask), and then the
// keyword rule decides. A model that does not answer at all (a server
// down) is an error: the ask failed, it was not classified.
func classify(ctx context.Context, client llm.Client, taskID, question string) (Classification, error) {
	c, err := retrieval.Ask(ctx, client, taskID, schema.StageAskClassify, prompt.AskClassifyPrompt(question), prompt.ParseAskClassification)
	var unusable *retrieval.UnusableAnswerError
	if errors.As(err, &unusable) {
		fb := Fallback(question)
		fb.Reasoning = fmt.Sprintf("%s (the model's answer was unusable: %v)", fb.Reasoning, unusable.Err)
		return fb, nil
	}
	if err != nil {
		return Classification{}, err
	}
	return Classification{Mode: Mode(c.Mode), Reasoning: c.Reasoning, Scope: c.Scope, By: ByModel}, nil
}

var (
	// errorType is an exception or error type: UsageError, KeyError,
	// ValueException, Go's ErrNotExist.
	errorType = regexp.MustCompile(`\b(\w+(Error|Exception)|Err[A-Z]\w*)\b`)
	// quoted is a quoted message of some length.
	quoted = regexp.MustCompile("\"[^\"]{8,}\"|'[^']{8,}'|`[^`]{8,}`")
	// Words of the other modes, whole words, lower case.
	failureWords     = wordsRe(`why|fail|fails|failing|failed|broken|crash|crashes|crashing|traceback|panic|panics|wrong|unexpected|instead`)
	exploratoryWords = wordsRe(`trace|flow|flows|path|walk|walks|through|sequence|order|calls|call chain|reach|reaches|step by step|what happens|lifecycle`)
	analyticalWords  = wordsRe(`architecture|architectural|design|structure|structured|coupling|coupled|cohesion|dependencies|dependency|flaw|flaws|smell|smells|quality|problems|weakness|weaknesses|assess|hotspot|hotspots|layering|modular`)
)

func wordsRe(alt string) *regexp.Regexp { return regexp.MustCompile(`(?i)\b(` + alt + `)\b`) }

// Fallback classifies a question without a model: error types or quoted
// messages make it diagnostic, and so does asking why something fails;
// trace and flow words make it exploratory; architecture and flaw words
// analytical; anything else conceptual. A question that reads as a bug
// report (IsBugFix: "Fix crash on empty input") is diagnostic too. It is what an ask falls back on
// when the classifier's answers stay unusable, recorded as a decision.
func Fallback(question string) Classification {
	c := Classification{Mode: Conceptual, By: ByFallback, Reasoning: "no error, flow or structure words: a question about what the code does"}
	switch {
	case errorType.MatchString(question):
		c.Mode, c.Reasoning = Diagnostic, fmt.Sprintf("names the error type %s", errorType.FindString(question))
	case quoted.MatchString(question):
		c.Mode, c.Reasoning = Diagnostic, fmt.Sprintf("quotes the message %s", quoted.FindString(question))
	case failureWords.MatchString(question):
		c.Mode, c.Reasoning = Diagnostic, fmt.Sprintf("asks about a failure (%q)", strings.ToLower(failureWords.FindString(question)))
	case IsBugFix(question):
		c.Mode, c.Reasoning = Diagnostic, fmt.Sprintf("reads as a bug report (%q)", strings.ToLower(bugFix.FindString(question)))
	case exploratoryWords.MatchString(question):
		c.Mode, c.Reasoning = Exploratory, fmt.Sprintf("asks to follow a flow (%q)", strings.ToLower(exploratoryWords.FindString(question)))
	case analyticalWords.MatchString(question):
		c.Mode, c.Reasoning = Analytical, fmt.Sprintf("asks about structure (%q)", strings.ToLower(analyticalWords.FindString(question)))
	}
	return c
}
