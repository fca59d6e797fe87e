// Package fakellm is an in-process fake model server for tests.
//
// It owns one thing: an httptest.Server that speaks both wire formats cra's
// model layer talks — Ollama's native API (POST /api/chat, GET /api/tags) and
// the OpenAI API (POST /v1/chat/completions, GET /v1/models) — answers chat
// requests from a script of replies (text, status code, Retry-After, delay,
// malformed body, missing token counts or counts past max_tokens, dropped
// connection), and records every request it receives so tests can assert on
// what was sent. It can also play a paid API (billing.go: prices, a
// tokenizer, a prompt cache, what each request was charged, 429s every n
// requests, requests held until released), the OpenAI Batch API
// (batch.go: files, batches, results by custom_id), and LoRA adapters
// loaded beside the base model (adapters.go: asked for as vLLM, llama.cpp's
// server and Ollama ask, each with its own planted error rates in oracle
// mode).
//
// It is meant for tests (and the standalone oracle of `make e2e`, which
// starts one with Start): it imports package testing, never talks to
// a real model, and knows nothing of cra's own types (tests of agent/llm use
// it through real HTTP on loopback, which keeps it honest about the wire).
//
// A minimal test:
//
//	srv := fakellm.New(t, fakellm.Reply{Status: 429, RetryAfter: "2"}, fakellm.Reply{Text: "ok"})
//	// point a client at srv.OllamaURL() or srv.OpenAIURL(), call it, then
//	reqs := srv.Requests()
//
// Unused scripted replies fail the test at cleanup (like cli/cli's httpmock),
// unless the test calls AllowUnused.
package fakellm
