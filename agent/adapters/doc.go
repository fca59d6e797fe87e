// Package adapters is cra's LoRA adapter registry (cra adapters): it reads
// a trained adapter's PEFT directory (adapter_config.json and the weights'
// sha256 and size), registers it as a version of a name with its lineage
// (dataset version, training plan, cra version) after checking that its
// base model is the model its stages are served by, says per stage which
// version is the champion (routed), which are candidates and which are
// retired, prints how to serve them (vLLM, llama.cpp server, Ollama),
// gates a version (Gate: agent/eval's run of the same held-out tasks with
// the current routing and with the version, judged paired), and promotes a version to champion only on a passing gate judged
// against the current champions (or on a forced, recorded override), or
// rolls a stage back.
//
// Routing a stage's calls to its champion is agent/llm's: this package
// only says who the champions are (Champions), which cmd/cra puts into
// config.Models.Champions. The registry's SQL is kb's (kb/adapters.go).
package adapters
