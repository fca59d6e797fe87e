package schema

// Kinds of the questions cra ask --eval generates: what a question was made
// from, the eval's reporting group. AskKindModes says the mode each kind's
// questions are written for (the classifier's right answer).
const (
	AskKindDiagnostic  = "diagnostic"  // an error string of the code index: where is it raised?
	AskKindExploratory = "exploratory" // a call chain: trace it
	AskKindConceptual  = "conceptual"  // a module's docstring or description: which file?
	AskKindBugReport   = "bugreport"   // a held-out bug fix's message: which files does it touch?
)

// AskKinds lists the kinds in report order.
var AskKinds = []string{AskKindDiagnostic, AskKindExploratory, AskKindConceptual, AskKindBugReport}

// AskKindModes is the question mode of each kind's questions.
var AskKindModes = map[string]string{
	AskKindDiagnostic: "diagnostic", AskKindExploratory: "exploratory", AskKindConceptual: "conceptual", AskKindBugReport: "diagnostic",
}

// AskStages are the stages an ask eval scores (eval_runs.stages of its
// row): the classification, the retrieval before any model choice, the
// answer.
var AskStages = []string{StageAskClassify, StageAskRetrieval, StageAskAnswer}

// An ask eval's metrics, beside MetricCorrect.
const (
	// MetricRecallAt5 is the share of the expected files among the first 5
	// distinct files (of the retrieval, or of what the answer cites), out
	// of at most 5: a question whose answer spans 7 files is fully
	// recalled by 5 of them.
	MetricRecallAt5 = "recall_at_5"
	// MetricSymbolHit is 1 when a cited source names an expected symbol or
	// its line range overlaps one's; scored only for questions with
	// expected symbols.
	MetricSymbolHit = "symbol_hit"
	// MetricAnswered is 1 when the ask gave an answer citing something.
	MetricAnswered = "answered"
)
