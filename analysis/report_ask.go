package analysis

import (
	"fmt"

	"github.com/cra-dev/cra/internal/report"
	"github.com/cra-dev/cra/kb"
)

// askEvalsSections report cra ask --eval's scores per kind of question,
// beside the pipeline's: an ask eval scores no pipeline stage, so none of
// it is attributed.
func askEvalsSections(evals []kb.AskReport) []report.Section {
	sec := report.Section{Title: "Questions (cra ask --eval)", Level: 2, Paras: []string{
		"The newest run of each ask eval: questions generated from the repositories with known answers. " +
			"Classified: the classifier gave the question's mode. Retrieval R@5: share of the expected files among the first five " +
			"files the mode's retrieval found, before any model choice. Answer R@5: the same of the files the answer cites. " +
			"Symbol hit: a cited source names or covers an expected function. Answered: an answer citing something. " +
			"These are reported, not attributed: the stages above are the pipeline's."}}
	out := []report.Section{sec}
	for _, ev := range evals {
		t := report.Table{Head: []string{"kind", "mode", "questions", "classified", "retrieval R@5", "answer R@5", "symbol hit", "answered"}}
		for _, k := range ev.Kinds {
			q := fmt.Sprint(k.Questions)
			if k.Errors > 0 {
				q += fmt.Sprintf(" (%d not answered)", k.Errors)
			}
			t.Rows = append(t.Rows, []string{k.Kind, k.Mode, q, askMean(k.Classification), askMean(k.RetrievalRecall),
				askMean(k.AnswerRecall), askMean(k.SymbolHit), askMean(k.Answered)})
		}
		oracle := ""
		if len(ev.Oracle) > 0 {
			oracle = fmt.Sprintf(", oracle %v", ev.Oracle)
		}
		out = append(out, report.Section{Title: ev.Name, Level: 3, Tables: []report.Table{t},
			Paras: []string{fmt.Sprintf("%s%s, started %s: %d questions, %d scored.", upperFirst(ev.Status), oracle,
				ev.Started.UTC().Format("2006-01-02 15:04"), ev.Questions, ev.Scored)}})
	}
	return out
}

// askMean is a mean over n questions as the report shows it ("—" for
// none).
func askMean(m kb.AskMean) string {
	if m.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f (n %d)", m.Mean, m.N)
}
