// Package eval replays the agent on held-out history (cra eval): tasks are
// bootstrap's synthetic tasks that curate-data never puts in a train split
// (kb.SplitRule); each runs the real pipeline and orchestrator in a worktree
// at the commit's parent, over a knowledge base of that parent revision,
// and is scored stage by stage against the commit's ground truth. A named
// stage can be replaced by its ground truth (oracle substitution), so the
// difference in end-to-end success with and without it, on the same
// tasks, is that stage's causal lift.
//
// It owns task selection (held-out rule, stratified sample), the scratch
// knowledge bases of past revisions (<home>/eval/kb, removed when the eval
// ends), the oracle client, scoring, and the eval_runs, eval_tasks and
// eval_results rows with their scoreboard and comparison. It must not
// write anything of a train-split task, nor change the user's knowledge
// base or checkout: every run is a normal logged cra solve run.
package eval
