package fakellm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/fakellm"
)

const (
	ollamaChat = `{"model":"m1","stream":false,"format":"json","options":{"temperature":0,"num_predict":64,"num_ctx":4096},` +
		`"messages":[{"role":"system","content":"sys"},{"role":"user","content":"hello there"}]}`
	openAIChat = `{"model":"m1","temperature":0.5,"max_tokens":64,"response_format":{"type":"json_object"},` +
		`"messages":[{"role":"system","content":"sys"},{"role":"user","content":"hello there"}]}`
)

func post(t *testing.T, url, body string, header ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		out = map[string]any{"raw": string(raw)}
	}
	return resp, out
}

func TestChatWireFormats(t *testing.T) {
	tests := []struct {
		name, path, body string
		format           string
		temperature      float64
		text             func(map[string]any) any
		usage            func(map[string]any) (any, any)
	}{
		{
			name: "ollama", path: "/api/chat", body: ollamaChat, format: fakellm.FormatOllama, temperature: 0,
			text:  func(m map[string]any) any { return m["message"].(map[string]any)["content"] },
			usage: func(m map[string]any) (any, any) { return m["prompt_eval_count"], m["eval_count"] },
		},
		{
			name: "openai", path: "/v1/chat/completions", body: openAIChat, format: fakellm.FormatOpenAI, temperature: 0.5,
			text: func(m map[string]any) any {
				return m["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]
			},
			usage: func(m map[string]any) (any, any) {
				u, _ := m["usage"].(map[string]any)
				return u["prompt_tokens"], u["completion_tokens"]
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t,
				fakellm.Reply{Text: "scripted", PromptTokens: 7, CompletionTokens: 3},
				fakellm.Reply{Text: "no usage", OmitUsage: true})
			srv.SetDefault(fakellm.Fixed("default"))

			resp, got := post(t, srv.URL+tt.path, tt.body, "Authorization", "Bearer k")
			if resp.StatusCode != 200 || tt.text(got) != "scripted" {
				t.Fatalf("first reply: %d %v", resp.StatusCode, got)
			}
			if p, c := tt.usage(got); p != 7.0 || c != 3.0 {
				t.Errorf("usage = %v, %v; want 7, 3", p, c)
			}
			_, got = post(t, srv.URL+tt.path, tt.body)
			if p, c := tt.usage(got); tt.text(got) != "no usage" || p != nil || c != nil {
				t.Errorf("OmitUsage reply: %v", got)
			}
			_, got = post(t, srv.URL+tt.path, tt.body)
			if tt.text(got) != "default" {
				t.Errorf("after the script: %v, want the default reply", got)
			}

			reqs := srv.Requests()
			if len(reqs) != 3 || srv.Calls() != 3 {
				t.Fatalf("recorded %d requests, %d calls; want 3", len(reqs), srv.Calls())
			}
			r := reqs[0]
			if r.Format != tt.format || r.Path != tt.path || r.Model != "m1" || r.Authorization != "Bearer k" {
				t.Errorf("recorded %+v", r)
			}
			if len(r.Messages) != 2 || r.Messages[0] != (fakellm.Message{Role: "system", Content: "sys"}) ||
				r.Messages[1].Content != "hello there" {
				t.Errorf("messages = %+v", r.Messages)
			}
			if r.Temperature == nil || *r.Temperature != tt.temperature {
				t.Errorf("temperature = %v, want %v", r.Temperature, tt.temperature)
			}
			if r.MaxTokens == nil || *r.MaxTokens != 64 || !r.JSON {
				t.Errorf("max tokens %v, json %v", r.MaxTokens, r.JSON)
			}
		})
	}
}

func TestEchoIsTheDefault(t *testing.T) {
	srv := fakellm.New(t)
	_, got := post(t, srv.URL+"/api/chat", ollamaChat)
	if c := got["message"].(map[string]any)["content"]; c != "hello there" {
		t.Errorf("echo = %v", c)
	}
	if o := srv.Requests()[0].Options; o["num_ctx"] != 4096.0 {
		t.Errorf("options = %v", o)
	}
}

func TestErrorsAndRetryAfter(t *testing.T) {
	tests := []struct {
		name, path, body string
		rep              fakellm.Reply
		wantStatus       int
		wantBody         string
	}{
		{"ollama 404", "/api/chat", ollamaChat, fakellm.Reply{Status: 404}, 404, `model \"m1\" not found`},
		{"openai 404", "/v1/chat/completions", openAIChat, fakellm.Reply{Status: 404}, 404, "The model `m1` does not exist."},
		{"429", "/v1/chat/completions", openAIChat, fakellm.Reply{Status: 429, RetryAfter: "2", Error: "slow down"}, 429, "slow down"},
		{"malformed", "/api/chat", ollamaChat, fakellm.Reply{Malformed: true}, 200, "cut sho"},
		{"raw body", "/api/chat", ollamaChat, fakellm.Reply{Status: 502, Body: "<html>bad gateway</html>"}, 502, "bad gateway"},
		{"unknown path", "/api/generate", ollamaChat, fakellm.Reply{}, 404, "404 page not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, tt.rep)
			if tt.name == "unknown path" {
				srv.AllowUnused()
			}
			resp, got := post(t, srv.URL+tt.path, tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if b, _ := json.Marshal(got); !strings.Contains(string(b), tt.wantBody) {
				t.Errorf("body %s does not contain %q", b, tt.wantBody)
			}
			if resp.Header.Get("Retry-After") != tt.rep.RetryAfter {
				t.Errorf("Retry-After = %q, want %q", resp.Header.Get("Retry-After"), tt.rep.RetryAfter)
			}
		})
	}
}

func TestModelLists(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetModels("a", "b:lora")
	for path, want := range map[string]string{"/api/tags": `"name":"b:lora"`, "/v1/models": `"id":"b:lora"`} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s = %s, want %s", path, b, want)
		}
	}
	if srv.Calls() != 0 || len(srv.Requests()) != 2 {
		t.Errorf("model lists: %d calls, %d requests; want 0, 2", srv.Calls(), len(srv.Requests()))
	}
}

func TestDropClosesTheConnection(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Drop: true})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/chat", strings.NewReader(ollamaChat))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("status %d, want a transport error", resp.StatusCode)
	}
}

func TestDelayEndsWhenTheClientGoesAway(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Delay: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/chat", strings.NewReader(ollamaChat))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	srv.WaitForCalls(t, 1, 5*time.Second)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("want an error after cancel")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("request still held 5s after cancel")
	}
}

func TestConcurrentRequests(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetDefault(func(r fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Text: r.Messages[1].Content, Delay: 20 * time.Millisecond}
	})
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := strings.Replace(ollamaChat, "hello there", fmt.Sprint("q", i), 1)
			resp, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(body))
			if err != nil {
				t.Errorf("q%d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			var got struct{ Message fakellm.Message }
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Message.Content != fmt.Sprint("q", i) {
				t.Errorf("reply %+v (%v) to q%d", got, err, i)
			}
		})
	}
	wg.Wait()
	if srv.Calls() != n || srv.MaxInFlight() < 2 || srv.MaxInFlight() > n {
		t.Errorf("calls %d, max in flight %d", srv.Calls(), srv.MaxInFlight())
	}
}

// cleanupTB captures what New does at cleanup.
type cleanupTB struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (c *cleanupTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }
func (c *cleanupTB) Errorf(format string, args ...any) {
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}

func TestUnusedRepliesFailTheTest(t *testing.T) {
	for _, allow := range []bool{false, true} {
		tb := &cleanupTB{TB: t}
		srv := fakellm.New(tb, fakellm.Reply{Text: "never asked"})
		if allow {
			srv.AllowUnused()
		}
		for _, f := range tb.cleanups {
			f()
		}
		if failed := len(tb.errors) > 0; failed == allow {
			t.Errorf("AllowUnused=%v: cleanup errors %q", allow, tb.errors)
		}
	}
}

// The oracle answers right or wrong at the planted rate, the same way for
// the same prompt, and falls back for what it cannot place.
func TestOracleMode(t *testing.T) {
	srv := fakellm.New(t)
	stats := srv.SetOracle(fakellm.Oracle{
		Answer: func(req fakellm.Request) (string, string, string, bool) {
			stage := req.Messages[0].Content
			return stage, "right", "wrong", stage != "unknown"
		},
		ErrorRate: map[string]float64{"scope": 0.4},
		Fallback:  fakellm.Fixed("fallback"),
	})
	c := &http.Client{}
	ask := func(system, user string) string {
		body := fmt.Sprintf(`{"model": "m", "messages": [{"role": "system", "content": %q}, {"role": "user", "content": %q}]}`, system, user)
		resp, err := c.Post(srv.OpenAIURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message fakellm.Message `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) == 0 {
			t.Fatalf("%v %+v", err, out)
		}
		return out.Choices[0].Message.Content
	}
	for i := range 200 {
		user := fmt.Sprint(i)
		first := ask("scope", user)
		if again := ask("scope", user); again != first {
			t.Fatalf("prompt %d answered %q then %q", i, first, again)
		}
		if got := ask("precision", user); got != "right" {
			t.Fatalf("precision has no error rate, answered %q", got)
		}
	}
	right, wrong := stats.Counts()
	if share := float64(wrong["scope"]) / float64(wrong["scope"]+right["scope"]); share < 0.3 || share > 0.5 {
		t.Errorf("scope answered wrong %.2f of the time, planted 0.4", share)
	}
	if got := ask("unknown", "x"); got != "fallback" {
		t.Errorf("an unknown request got %q", got)
	}
}

// Billing: usage from the tokenizer, charged at the prices, the system
// message cached after its first charge, 429s and errors free, batches at
// the discount; every charge counted by request.
func TestBillingChargesAnswersOnly(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Status: 500})
	srv.SetBilling(fakellm.Billing{InputPerMillion: 1e6, CachedInputPerMillion: 1e5, OutputPerMillion: 2e6,
		Tokens: func(s string) int { return len(s) }, CacheSystem: true})
	srv.RateLimitEvery(3, "0")
	var usages []map[string]any
	for range 4 { // 500, answer, 429, answer
		resp, out := post(t, srv.OpenAIURL()+"/chat/completions", openAIChat)
		if resp.StatusCode == 200 {
			usages = append(usages, out["usage"].(map[string]any))
		}
	}
	if len(usages) != 2 {
		t.Fatalf("%d answers, want 2 (one 500 and one 429 between)", len(usages))
	}
	// "sys" + "hello there" = 14 tokens, "hello there" echoed = 11.
	if usages[0]["prompt_tokens"] != 14.0 || usages[0]["completion_tokens"] != 11.0 || usages[0]["prompt_tokens_details"] != nil {
		t.Errorf("first usage %v", usages[0])
	}
	if d, _ := usages[1]["prompt_tokens_details"].(map[string]any); d["cached_tokens"] != 3.0 {
		t.Errorf("second usage %v: want the 3 system tokens cached", usages[1])
	}
	want := (14 + 11*2) + (11 + 3*0.1 + 11*2)
	if got := srv.Spent(); got < want-1e-9 || got > want+1e-9 {
		t.Errorf("spent %v, want %v", got, want)
	}
	for k, n := range srv.Charges() {
		if n != 2 {
			t.Errorf("request %s charged %d times, want 2", k[:8], n)
		}
	}
}

// A scripted completion count stops at the request's max_tokens, as a
// real API does, unless the reply is PastMaxTokens: then it is reported
// and charged whole, as a faulty provider would.
func TestPastMaxTokensReportsMoreThanAllowed(t *testing.T) {
	for _, tt := range []struct {
		name string
		rep  fakellm.Reply
		want float64
	}{
		{"capped", fakellm.Reply{Text: "ok", CompletionTokens: 100000}, 64},
		{"past max_tokens", fakellm.Reply{Text: "ok", CompletionTokens: 100000, PastMaxTokens: true}, 100000},
		{"under max_tokens", fakellm.Reply{Text: "ok", CompletionTokens: 10, PastMaxTokens: true}, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, tt.rep)
			srv.SetBilling(fakellm.Billing{OutputPerMillion: 1e6})
			_, out := post(t, srv.OpenAIURL()+"/chat/completions", openAIChat) // max_tokens 64
			if got := out["usage"].(map[string]any)["completion_tokens"]; got != tt.want {
				t.Errorf("completion_tokens %v, want %v", got, tt.want)
			}
			if got := srv.Spent(); got != tt.want {
				t.Errorf("charged $%v, want $%v", got, tt.want)
			}
		})
	}
}

// HoldAfter answers n requests and holds the rest until Release; a held
// request whose client goes away is never charged.
func TestHoldAfter(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetBilling(fakellm.Billing{OutputPerMillion: 1e6})
	srv.HoldAfter(1)
	post(t, srv.OpenAIURL()+"/chat/completions", openAIChat)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.OpenAIURL()+"/chat/completions", strings.NewReader(openAIChat))
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			t.Error("a held request was answered")
		}
	}()
	srv.WaitUntil(t, "a held request", func() bool { return srv.Held() == 1 }, 5*time.Second)
	cancel()
	<-gone
	srv.WaitUntil(t, "the abandoned request to let go", func() bool { return srv.Held() == 0 }, 5*time.Second)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		post(t, srv.OpenAIURL()+"/chat/completions", openAIChat)
	}()
	srv.WaitUntil(t, "the next held request", func() bool { return srv.Held() == 1 }, 5*time.Second)
	srv.Release()
	wg.Wait()
	if got := srv.Charges(); len(got) != 1 || srv.Answered() != 2 {
		t.Errorf("charges %v, answered %d: want the one request charged twice (the abandoned one not)", got, srv.Answered())
	}
	for _, n := range srv.Charges() {
		if n != 2 {
			t.Errorf("charged %d times, want 2", n)
		}
	}
	if got := srv.Received(); len(got) != 1 {
		t.Errorf("received %v", got)
	}
}

// Adapters are recognised in the three shapes cra sends them (vLLM's
// model, llama.cpp's lora ids listed by GET /lora-adapters, Ollama's
// model), recorded on the request, and answered at their own planted
// rates over the oracle's: the good adapter errs less on scope, the bad
// one breaks implement.
func TestAdaptersInOracleMode(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetModels("base")
	srv.SetAdapters(map[string]fakellm.AdapterBehaviour{
		"scope-good-v1":    {Path: "/loras/scope-good/1", ErrorRate: map[string]float64{"scope": 0.05}},
		"implement-bad-v1": {ErrorRate: map[string]float64{"implement": 0.9}},
	})
	stats := srv.SetOracle(fakellm.Oracle{
		Answer: func(req fakellm.Request) (string, string, string, bool) {
			return req.Messages[0].Content, "right", "wrong", true
		},
		ErrorRate: map[string]float64{"scope": 0.5, "implement": 0.1},
	})

	resp, err := http.Get(srv.URL + "/lora-adapters")
	if err != nil {
		t.Fatal(err)
	}
	var listed []struct {
		ID    int     `json:"id"`
		Path  string  `json:"path"`
		Scale float64 `json:"scale"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&listed); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(listed) != 2 || listed[0].Path != "/adapters/implement-bad-v1/adapter.gguf" || listed[1].Path != "/loras/scope-good/1" ||
		listed[1].ID != 1 || listed[0].Scale != 0 {
		t.Fatalf("GET /lora-adapters: %+v", listed)
	}
	ids := map[string]int{"implement-bad-v1": listed[0].ID, "scope-good-v1": listed[1].ID} // served names in order

	shapes := []struct {
		name string
		ask  func(stage, user, adapter string) *http.Response
	}{
		{"vllm", func(stage, user, adapter string) *http.Response {
			model := "base"
			if adapter != "" {
				model = adapter
			}
			return postQuiet(t, srv.OpenAIURL()+"/chat/completions", chat(model, stage, user, ""))
		}},
		{"llamacpp", func(stage, user, adapter string) *http.Response {
			lora := `, "lora": []` // every adapter off: the base
			if id, ok := ids[adapter]; ok {
				lora = fmt.Sprintf(`, "lora": [{"id": %d, "scale": 1.0}]`, id)
			}
			return postQuiet(t, srv.OpenAIURL()+"/chat/completions", chat("base", stage, user, lora))
		}},
		{"ollama", func(stage, user, adapter string) *http.Response {
			model := "base"
			if adapter != "" {
				model = adapter
			}
			return postQuiet(t, srv.OllamaURL()+"/api/chat", chat(model, stage, user, `, "stream": false`))
		}},
	}
	for _, sh := range shapes {
		before := len(srv.Requests())
		for _, adapter := range []string{"", "scope-good-v1", "implement-bad-v1"} {
			for _, stage := range []string{"scope", "implement"} {
				for i := range 100 {
					if resp := sh.ask(stage, fmt.Sprint(i), adapter); resp.StatusCode != http.StatusOK {
						t.Fatalf("%s %s %s: status %d", sh.name, adapter, stage, resp.StatusCode)
					}
				}
			}
		}
		reqs := srv.Requests()[before:]
		if reqs[0].Adapter != "" || reqs[200].Adapter != "scope-good-v1" || reqs[400].Adapter != "implement-bad-v1" {
			t.Errorf("%s: adapters recorded %q %q %q", sh.name, reqs[0].Adapter, reqs[200].Adapter, reqs[400].Adapter)
		}
	}
	share := func(adapter, stage string) float64 {
		right, wrong := stats.CountsOf(adapter)
		return float64(wrong[stage]) / float64(right[stage]+wrong[stage])
	}
	cases := []struct {
		adapter, stage string
		lo, hi         float64
	}{
		{"", "scope", 0.4, 0.6}, {"", "implement", 0.03, 0.2},
		{"scope-good-v1", "scope", 0, 0.1}, {"scope-good-v1", "implement", 0.03, 0.2}, // implement keeps the oracle's rate
		{"implement-bad-v1", "scope", 0.4, 0.6}, {"implement-bad-v1", "implement", 0.8, 1},
	}
	for _, tc := range cases {
		if got := share(tc.adapter, tc.stage); got < tc.lo || got > tc.hi {
			t.Errorf("adapter %q stage %s: wrong %.2f of the time, want %.2f..%.2f", tc.adapter, tc.stage, got, tc.lo, tc.hi)
		}
	}
	if right, wrong := stats.Counts(); right["scope"]+wrong["scope"] != 900 {
		t.Errorf("totals %v %v: want every answer counted", right, wrong)
	}

	// What is not loaded is refused, as the real servers refuse it.
	if resp := postQuiet(t, srv.OpenAIURL()+"/chat/completions", chat("scope-good-v9", "scope", "x", "")); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown served name: status %d, want 404", resp.StatusCode)
	}
	if resp := postQuiet(t, srv.OllamaURL()+"/api/chat", chat("scope-good-v9", "scope", "x", `, "stream": false`)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown Ollama model: status %d, want 404", resp.StatusCode)
	}
	if resp := postQuiet(t, srv.OpenAIURL()+"/chat/completions", chat("base", "scope", "x", `, "lora": [{"id": 7, "scale": 1}]`)); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown lora id: status %d, want 400", resp.StatusCode)
	}
}

// chat is a chat request body: the stage as system message, extra
// appended to the object.
func chat(model, stage, user, extra string) string {
	return fmt.Sprintf(`{"model": %q, "messages": [{"role": "system", "content": %q}, {"role": "user", "content": %q}]%s}`,
		model, stage, user, extra)
}

// postQuiet posts body and returns the answer, its body read and closed.
func postQuiet(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}
