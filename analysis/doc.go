// Package analysis owns `cra train-plan`: which pipeline stage fails, and
// what to train.
//
// It reads the raw store through kb.LogAnalysis — eval runs scored stage by
// stage against ground truth, oracle evals that replace stages by ground
// truth, logged solve runs — and computes the evidence (internal/stats:
// Wilson's interval, Newcombe's paired difference, a bootstrap over
// repositories or tasks, shared with cra eval's scoreboard; stats.go:
// Fisher's exact test, odds ratios, Holm, logistic regression with
// gonum/optimize, sample sizes; attribution.go: per-stage scores, association with
// failure, first-error attribution, oracle lift, logged solve runs),
// chooses the target by a stated rule (decide.go), builds the training plan
// (plan.go, plan.schema.json) and writes plan.json, a training_plans row and
// the reports (report.go, report_warnings.go: what a reviewer would flag;
// charts.go: SVG charts drawn by internal/charts; report_md.go and
// report_html.go hand the sections to internal/report, which writes the
// Markdown and the self-contained HTML page). An optional
// narrative by the reasoning model (narrative.go, logged like every model
// call) sits under its own heading and changes no figure.
//
// It must not write datasets (curate does, from the plan) or change any run
// log: its only writes are its own task_runs row, the narrative's call row
// and the training_plans row.
package analysis
