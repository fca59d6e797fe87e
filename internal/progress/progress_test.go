package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{0, 10, 0, "parse [........................] 0/10"},
		{5, 10, 0, "parse [############............] 5/10"},
		{12, 10, 0, "parse [########################] 12/10"},
		{7, 0, 0, "parse 7"},
		{20, 40, 2 * time.Second, "parse [############............] 20/40 10/s"},
	} {
		if got := Line("parse", tc.done, tc.total, tc.elapsed); got != tc.want {
			t.Errorf("Line(%d, %d, %v) = %q, want %q", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestTerminalRedrawsAndClears(t *testing.T) {
	var out syncBuf
	p := Start(Options{Out: &out, TTY: true, Interval: time.Millisecond})
	p.Phase("files", 4)
	p.Add(3)
	waitFor(t, func() bool { return strings.Contains(out.String(), "3/4") })
	p.Stop()
	if s := out.String(); !strings.HasPrefix(s, "\r\033[K") || !strings.HasSuffix(s, "\r\033[K") {
		t.Fatalf("bar not redrawn and cleared: %q", s)
	}
}

func TestLogsWhenNotATerminal(t *testing.T) {
	var out, logs syncBuf
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	p := Start(Options{Out: &out, Log: log, Interval: time.Millisecond})
	p.Phase("commits", 0)
	p.AddTotal(9)
	p.Add(2)
	waitFor(t, func() bool { return strings.Contains(logs.String(), `"done":2`) })
	p.Stop()
	if out.String() != "" {
		t.Fatalf("wrote to the terminal stream without a terminal: %q", out.String())
	}
	if !strings.Contains(logs.String(), `"phase":"commits"`) || !strings.Contains(logs.String(), `"total":9`) {
		t.Fatalf("log line lacks phase or total: %s", logs.String())
	}
}

func TestNilIsANoOp(t *testing.T) {
	var p *Progress
	p.Phase("x", 1)
	p.Add(1)
	p.AddTotal(1)
	p.Stop()
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}
