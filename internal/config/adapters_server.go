package config

import (
	"fmt"
	"strings"
)

// ServerFor is the server that loads the adapters of a [models] provider:
// [adapters] server when set, else Ollama for the ollama provider ("" is
// ollama too) and vLLM for openai_compat; "" for remote_api, whose APIs
// load no adapters of ours. The router shapes a routed request by it and
// `cra adapters serve-config` prints how to start it.
func (a Adapters) ServerFor(provider string) string {
	if a.Server != "" {
		return a.Server
	}
	switch provider {
	case "", "ollama":
		return ServerOllama
	case "openai_compat":
		return ServerVLLM
	}
	return ""
}

// validate checks [adapters] server against the provider: each server is
// reached through one provider (Ollama's native API, or the OpenAI API of
// vLLM and llama.cpp's server).
func (a Adapters) validate(bad badFunc, provider string) {
	if a.Server == "" {
		return
	}
	if !contains(Servers(), a.Server) {
		bad("adapters.server", fmt.Sprintf("%q is not a server that loads adapters", a.Server),
			"use one of "+strings.Join(Servers(), ", ")+", or leave it empty (ollama for the ollama provider, vllm for openai_compat)")
		return
	}
	want := "openai_compat"
	if a.Server == ServerOllama {
		want = "ollama"
	}
	if provider != want {
		bad("adapters.server", fmt.Sprintf("%s serves adapters through the %s provider, but models.provider is %q", a.Server, want, provider),
			fmt.Sprintf("set models.provider = %q, or adapters.server to the server models.base_url points at", want))
	}
}
