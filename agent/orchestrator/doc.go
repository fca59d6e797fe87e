// Package orchestrator owns cra solve's loop around the agent's passes:
// the validator that runs a repository's test, lint and type-check
// commands in the worktree (Validate), the worktrees themselves (who owns
// one, and SweepStale, which removes what killed runs left), the sessions
// and their resume.
//
// Tests are mandatory: only the test command decides whether a step
// succeeded; lint and type check are recorded for information.
package orchestrator
