package llm_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// callStore is a raw store the logged client writes into.
func callStore(t *testing.T) (*sql.DB, llm.CallLog) {
	home := storetest.Home(t)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := raw.DB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); raw.Close() })
	w := kb.Writer{Conn: conn}
	return raw.DB, func(ctx context.Context, calls []kb.LLMCall) error {
		return w.Tx(ctx, func() error { return kb.AppendLLMCalls(w, calls) })
	}
}

// calls reads the logged rows back (after the client is closed).
func calls(t *testing.T, db *sql.DB) []string {
	return storetest.RowsOf(t, db, `SELECT task_id, call_type, coalesce(stage_name, 'NULL'), model, provider,
		coalesce(response, 'NULL'), coalesce(prompt_tokens::VARCHAR, 'NULL'), coalesce(completion_tokens::VARCHAR, 'NULL'),
		coalesce(error, 'NULL') FROM retrieval_llm_calls ORDER BY id`)
}

func TestLoggedClientRows(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.New(t,
				fakellm.Reply{Text: "first", PromptTokens: 7, CompletionTokens: 3},
				fakellm.Reply{Text: "second", OmitUsage: true},
				fakellm.Reply{Status: 429, RetryAfter: "2"}, fakellm.Reply{Text: "after the wait"},
				fakellm.Reply{Status: 500}, fakellm.Reply{Status: 500}, fakellm.Reply{Status: 500}, fakellm.Reply{Status: 500},
				fakellm.Reply{Malformed: true},
			)
			home, log := callStore(t)
			inner, sl := newClient(t, config(p.name, srv))
			c := llm.NewLogged(inner, config(p.name, srv), log)
			req := llm.Request{System: "sys", Prompt: "p", TaskID: "t1", CallType: "scope", StageName: "scope"}
			ctx := context.Background()
			for i := range 5 {
				_, err := c.Complete(ctx, req)
				if (i >= 3) != (err != nil) {
					t.Errorf("call %d: error %v", i, err)
				}
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			got := calls(t, home)
			want := []string{
				fmt.Sprintf("t1\tscope\tscope\tqwen3:1.7b\t%s\tfirst\t7\t3\tNULL", p.name),
				fmt.Sprintf("t1\tscope\tscope\tqwen3:1.7b\t%s\tsecond\tNULL\tNULL\tNULL", p.name),
				fmt.Sprintf("t1\tscope\tscope\tqwen3:1.7b\t%s\tafter the wait\t", p.name),
			}
			if len(got) != 5 {
				t.Fatalf("%d rows, want 5:\n%s", len(got), strings.Join(got, "\n"))
			}
			for i, w := range want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("row %d:\n got %q\nwant %q...", i, got[i], w)
				}
			}
			if d := sl.got(); len(d) == 0 || d[0] != 2*time.Second {
				t.Errorf("waits %v: want the 2 s of Retry-After first", d)
			}
			for i, kind := range map[int]string{3: "500", 4: "malformed"} {
				if !strings.Contains(got[i], "\tNULL\tNULL\tNULL\t") || !strings.Contains(strings.ToLower(got[i]), kind) {
					t.Errorf("failed call %d: %q; want NULL response and tokens and an error naming %s", i, got[i], kind)
				}
			}
		})
	}
}

func TestLoggedClientCancellation(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: "late", Delay: 30 * time.Second})
	home, log := callStore(t)
	inner, _ := newClient(t, config(llm.ProviderOllama, srv))
	c := llm.NewLogged(inner, config(llm.ProviderOllama, srv), log)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Complete(ctx, llm.Request{Prompt: "p", TaskID: "t", CallType: "scope"})
	if err == nil || !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled call: %v after %v; want context.Canceled at once", err, time.Since(start))
	}
	c.Close()
	if got := calls(t, home); len(got) != 1 || !strings.Contains(got[0], "cancel") {
		t.Errorf("rows %q: want the cancelled call logged with its error", got)
	}
}

// The API key reaches no stored value and no log line, even when a server
// echoes it back in an answer or an error.
func TestLoggedClientKeepsTheKeyOut(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	srv := fakellm.New(t,
		fakellm.Reply{Text: "your key is " + testKey},
		fakellm.Reply{Status: 401, Error: "Incorrect API key provided: " + testKey},
	)
	home, log := callStore(t)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := config(llm.ProviderRemoteAPI, srv)
	inner, _ := newClient(t, cfg)
	c := llm.NewLogged(inner, cfg, log)
	for range 2 {
		_, err := c.Complete(context.Background(), llm.Request{Prompt: "p", TaskID: "t", CallType: "scope"})
		logger.Info("call", "error", err)
	}
	c.Close()
	cols := storetest.RowsOf(t, home, `SELECT table_name || '.' || column_name FROM information_schema.columns
		WHERE data_type = 'VARCHAR' AND table_catalog = current_database()`)
	if len(cols) < 10 {
		t.Fatalf("only %d VARCHAR columns found", len(cols))
	}
	for _, col := range cols {
		table, column, _ := strings.Cut(col, ".")
		if n := storetest.RowsOf(t, home, fmt.Sprintf(`SELECT count(*) FROM "%s" WHERE contains("%s", ?)`, table, column), testKey); n[0] != "0" {
			t.Errorf("%s holds the API key in %s rows", col, n[0])
		}
	}
	if rows := calls(t, home); len(rows) != 2 || !strings.Contains(rows[0], "[REDACTED]") {
		t.Errorf("rows %q: want both calls, the echoed key masked", rows)
	}
	if strings.Contains(logs.String(), testKey) {
		t.Errorf("a log line holds the API key:\n%s", logs.String())
	}
}

// Complete after Close returns ErrClosed, without a call or a panic; a call
// whose context is already cancelled is neither sent nor logged.
func TestLoggedClientAfterCloseAndCancel(t *testing.T) {
	srv := fakellm.New(t)
	srv.AllowUnused()
	home, log := callStore(t)
	inner, _ := newClient(t, config("ollama", srv))
	c := llm.NewLogged(inner, config("ollama", srv), log)
	req := llm.Request{System: "sys", Prompt: "p", TaskID: "t1", CallType: "scope", StageName: "scope"}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Complete(cancelled, req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), req); !errors.Is(err, llm.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if srv.Calls() != 0 || len(calls(t, home)) != 0 {
		t.Errorf("%d calls sent, %d logged; want none", srv.Calls(), len(calls(t, home)))
	}
}

// The hard gate: a prompt whose tokens and completion exceed the model's
// context window is refused unsent, and the refusal is logged.
func TestLoggedClientRefusesPromptsOverTheWindow(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: "fits"})
	db, log := callStore(t)
	cfg := llm.ModelConfig{Provider: llm.ProviderOllama, BaseURL: srv.OllamaURL(), Model: "m:1b", ContextWindow: 300, MaxTokens: 100, SafetyMargin: 0.1}
	inner, _ := newClient(t, cfg)
	c := llm.NewLogged(inner, cfg, log)
	ctx := context.Background()
	// 800 characters: ~220 tokens with the margin, + 100 of completion > 300.
	_, err := c.Complete(ctx, llm.Request{System: "s", Prompt: strings.Repeat("x", 800), TaskID: "t1", CallType: "plan", StageName: "plan"})
	if !errors.Is(err, llm.ErrOverBudget) || srv.Calls() != 0 {
		t.Fatalf("over the window: %v after %d calls; want ErrOverBudget, none sent", err, srv.Calls())
	}
	// 600 characters: ~166 + 100 fits.
	if r, err := c.Complete(ctx, llm.Request{System: "s", Prompt: strings.Repeat("x", 600), TaskID: "t1", CallType: "plan", StageName: "plan"}); err != nil || r.Text != "fits" {
		t.Fatalf("within the window: %q, %v", r.Text, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rows := calls(t, db)
	if len(rows) != 2 || !strings.Contains(rows[0], "prompt over budget") || !strings.Contains(rows[1], "fits") {
		t.Errorf("rows %q", rows)
	}
}

// Flush stores the rows of the calls made so far, before Close.
func TestLoggedClientFlush(t *testing.T) {
	srv := fakellm.New(t, fakellm.Reply{Text: "a"}, fakellm.Reply{Text: "b"})
	db, log := callStore(t)
	cfg := llm.ModelConfig{Provider: llm.ProviderOllama, BaseURL: srv.OllamaURL(), Model: "m:1b"}
	inner, _ := newClient(t, cfg)
	c := llm.NewLogged(inner, cfg, log)
	for range 2 {
		if _, err := c.Complete(context.Background(), llm.Request{System: "s", Prompt: "p", TaskID: "t1", CallType: "scope"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM retrieval_llm_calls`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after Flush: %d rows (%v), want 2", n, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(); err != nil {
		t.Errorf("Flush after Close: %v", err)
	}
}
