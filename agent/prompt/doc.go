// Package prompt is the single home of prompt text: every template the agent
// sends to a model and every parser of a model's response. Each template is a
// function from structured input to (system, user) text, and each response
// format has its renderer (the exact text of an ideal answer) and its parser
// here. The agent calls these functions at inference and curate calls the
// same ones when it renders training examples, so training prompts and
// inference prompts cannot drift apart.
//
// The answers are the stored types of kb/schema (plans, plan passes, edits,
// tiers): prompt renders and parses them, it does not define its own. It
// imports nothing else of cra, does no I/O and calls no model.
package prompt
