// Package execute owns the execute passes of the agent: the plan pass (a
// PlanArtifact from the task and its assembled context, checked against
// the repository) and, with the solve issue, the implement pass and patch
// application. Prompts come from agent/prompt; asking a model goes through
// retrieval.Ask, so a malformed answer is asked for once more everywhere
// the same way.
package execute
