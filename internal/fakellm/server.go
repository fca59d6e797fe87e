package fakellm

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a fake model server on loopback. All methods are safe for
// concurrent use.
type Server struct {
	// URL is the server root, e.g. http://127.0.0.1:PORT.
	URL string

	srv  *httptest.Server
	stop chan struct{} // closed at cleanup: ends every Delay at once

	mu          sync.Mutex
	script      []Reply
	def         func(Request) Reply
	models      []string
	reqs        []Request
	calls       int           // chat requests received
	arrived     chan struct{} // closed and replaced on every chat request
	inFlight    int
	maxInFlight int
	allowUnused bool

	// billing.go: charging, 429 injection, holding requests.
	billing    Billing
	spent      float64
	charges    map[string]int  // RequestKey → times charged
	systems    map[string]bool // system messages of charged requests (CacheSystem)
	limitEvery int
	limitAfter string
	holding    bool
	holdAfter  int
	answered   int
	held       int
	cutOff     int // held requests whose client went away
	released   chan struct{}

	// batch.go: the Batch API's files and batches.
	batches batchState

	// adapters.go: the LoRA adapters loaded, by served name.
	adapters []loadedAdapter
}

// New starts a server that answers chat requests with replies, in order,
// then with the default reply (Echo unless SetDefault changes it). It is
// closed by t.Cleanup; scripted replies still unused then fail the test.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s, err := Start("", replies...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n := s.Close(); n > 0 {
			t.Errorf("fakellm: %d scripted replies never requested (call AllowUnused if that is intended)", n)
		}
	})
	return s
}

// Start is New outside a test (the standalone server of `make e2e`): it
// listens on addr ("" for a free loopback port) until Close.
func Start(addr string, replies ...Reply) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakellm: listen on %s: %w", addr, err)
	}
	s := &Server{
		script:   append([]Reply(nil), replies...),
		def:      Echo,
		models:   []string{"fake-model"},
		arrived:  make(chan struct{}),
		stop:     make(chan struct{}),
		released: make(chan struct{}),
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server, ending every Delay and held request at once, and
// returns how many scripted replies were never requested (0 after
// AllowUnused).
func (s *Server) Close() (unused int) {
	close(s.stop)
	s.srv.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.allowUnused {
		return 0
	}
	return len(s.script)
}

// OllamaURL is the base URL an Ollama client is configured with.
func (s *Server) OllamaURL() string { return s.URL }

// OpenAIURL is the base URL an OpenAI client is configured with (with /v1).
func (s *Server) OpenAIURL() string { return s.URL + "/v1" }

// Enqueue appends replies to the script.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// SetDefault sets the reply used once the script runs out (Echo, Fixed, or
// any function of the request).
func (s *Server) SetDefault(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = fn
}

// Default is the reply function in force, for a test that wraps it (to
// answer one kind of call differently and the rest as before).
func (s *Server) Default() func(Request) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.def
}

// SetModels sets the names listed by /api/tags and /v1/models.
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), names...)
}

// AllowUnused stops cleanup from failing the test over unused replies.
func (s *Server) AllowUnused() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowUnused = true
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Calls is the number of chat requests received.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// MaxInFlight is the most chat requests the server was handling at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// WaitForCalls blocks until at least n chat requests have arrived, failing
// the test after timeout.
func (s *Server) WaitForCalls(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		calls, ch := s.calls, s.arrived
		s.mu.Unlock()
		if calls >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("fakellm: %d chat requests after %v, want %d", calls, timeout, n)
		}
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(),
		Authorization: r.Header.Get("Authorization")}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "fakellm: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Body = body

	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/chat":
		req.Format = FormatOllama
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		req.Format = FormatOpenAI
	case r.Method == http.MethodGet && r.URL.Path == "/api/tags":
		s.record(req)
		writeModels(w, FormatOllama, s.modelNames())
		return
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.record(req)
		writeModels(w, FormatOpenAI, s.modelNames())
		return
	case r.Method == http.MethodGet && r.URL.Path == "/lora-adapters":
		s.record(req)
		s.writeLoRAAdapters(w)
		return
	case strings.HasPrefix(r.URL.Path, "/v1/files") || strings.HasPrefix(r.URL.Path, "/v1/batches"):
		s.record(req)
		s.serveBatchAPI(w, r, body)
		return
	default:
		s.record(req)
		// Like Ollama's router: plain text, which clients must cope with.
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	req.decode()
	s.placeAdapter(&req)

	rep, seq, limited := s.next(req)
	defer s.done()
	if !limited && !s.admit(r.Context()) {
		s.wentAway(req, rep) // held, and the client went away: nothing answered
		return
	}
	s.answer(r.Context(), w, req, rep, seq)
}

func (s *Server) answer(ctx context.Context, w http.ResponseWriter, req Request, rep Reply, seq int) {
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		}
	}
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	switch {
	case rep.Drop:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("fakellm: response writer cannot hijack")
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			_ = conn.Close()
		}
	case rep.Body != "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status())
		_, _ = io.WriteString(w, rep.Body)
	case req.DecodeError != nil:
		writeError(w, req, Reply{Status: http.StatusBadRequest,
			Error: fmt.Sprintf("fakellm: request body is not a %s chat request: %v", req.Format, req.DecodeError)})
	case rep.status() >= 400:
		writeError(w, req, rep)
	case rep.Malformed:
		writeMalformed(w)
	default:
		prompt, cached, completion := s.usage(req, rep)
		s.charge(req, prompt, cached, completion, false)
		writeChat(w, req, rep, seq, prompt, cached, completion)
	}
}

// admit lets a chat request be answered, holding it first while
// HoldAfter's count is reached; false when its client went away meanwhile.
func (s *Server) admit(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.holding && s.answered >= s.holdAfter {
		ch := s.released
		s.held++
		s.mu.Unlock()
		var gone bool
		select {
		case <-ch:
		case <-ctx.Done():
			gone = true
		case <-s.stop:
			gone = true
		}
		s.mu.Lock()
		s.held--
		if gone {
			return false
		}
	}
	s.answered++
	return true
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
}

// next records a chat request, counts it in flight and picks its reply;
// limited is true for a 429 injected by RateLimitEvery.
func (s *Server) next(req Request) (rep Reply, seq int, limited bool) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.calls++
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	seq = s.calls
	if s.limitEvery > 0 && seq%s.limitEvery == 0 {
		rep = Reply{Status: http.StatusTooManyRequests, RetryAfter: s.limitAfter}
		s.mu.Unlock()
		return rep, seq, true
	}
	s.mu.Unlock()
	return s.pick(req), seq, false
}

// pick is the reply to req: its refusal when it asks for a model or
// adapter the server has not loaded, else the next scripted one, else
// the default.
func (s *Server) pick(req Request) Reply {
	if req.refusal != nil {
		return *req.refusal
	}
	s.mu.Lock()
	if len(s.script) > 0 {
		rep := s.script[0]
		s.script = s.script[1:]
		s.mu.Unlock()
		return rep
	}
	def := s.def
	s.mu.Unlock()
	// Called unlocked: a default may well call back into the server.
	return def(req)
}

func (s *Server) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
}

// modelNames are the models listed: SetModels' names, then the served
// names of the adapters (vLLM lists its LoRA modules, Ollama the models
// `ollama create` made).
func (s *Server) modelNames() []string {
	served := s.servedNames()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(append([]string(nil), s.models...), served...)
}
