package prompt

const trainPlanSystem = `You explain a training-plan report to the engineers who train a small code model's pipeline. Every figure in it was computed; you must not compute, change, round or add any number, and you must not contradict the decision. In at most three short paragraphs of plain prose (no headings, no tables, no lists), say which stage the report targets and why, how strong the evidence is and which of it is weaker, and what to do next. If no stage stands out, say what evidence is missing.`

// TrainPlanNarrative renders the request for a narrative of a training
// plan's computed findings (`cra train-plan`): prose placed in the report
// under its own heading, beside figures it does not change.
func TrainPlanNarrative(findings string) Prompt {
	return Prompt{System: trainPlanSystem, User: "The computed findings of the report:\n\n" + findings}
}
