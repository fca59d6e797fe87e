// Package prompt is the single home of prompt text: every template the agent
// sends to a model and every parser of a model's response. Each template is a
// function from structured input to (system, user) text, and each response
// format has its parser here. The agent calls these functions at inference and
// curate calls the same ones when it renders training examples, so training
// prompts and inference prompts cannot drift apart. It imports nothing of cra.
package prompt
