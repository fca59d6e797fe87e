// Package stats holds the interval statistics train-plan's evidence
// (analysis) and cra eval's scoreboards (agent/eval) both report: the
// Interval type and how it is written to JSON, Wilson's interval of a
// rate, Newcombe's of a paired difference, and the mean of repository
// means with its bootstrap interval, under one resampling setting. A
// figure and its interval are computed once here, so the scoreboard and
// the report never disagree.
//
// It must not import any cra package. Modelling that only train-plan does
// (its tests of association, regression, sample sizes) stays in analysis.
package stats
