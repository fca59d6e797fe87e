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
		{12, 10, 0, "parse [########################] 10/10"}, // never past the total
		{7, 0, 0, "parse 7"},
		{20, 40, 2 * time.Second, "parse [############............] 20/40 10/s ETA 2s"},
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

func TestStateLineShowsInputsCurrentAndETA(t *testing.T) {
	s := State{Label: "bootstrap", Done: 300, Total: 1200, Elapsed: 30 * time.Second, Items: 4, ItemsDone: 1, Current: "click"}
	if got, want := s.Line(), "bootstrap 1/4 click [######..................] 300/1200 10/s ETA 1m30s"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

// A step under way is named with its time, before the bar (which a narrow
// terminal cuts first); in logs it is a field of its own.
func TestStateLineNamesTheStepUnderWay(t *testing.T) {
	s := State{Label: "tasks", Done: 12, Total: 20, Elapsed: 2 * time.Minute, Step: "task 13/20 c052ba6: tests at the parent", StepElapsed: 130 * time.Second}
	if got, want := s.Line(), "tasks · task 13/20 c052ba6: tests at the parent, 2m10s · [##############..........] 12/20 0/s ETA 1m20s"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	var logs syncBuf
	p := Start(Options{Log: slog.New(slog.NewTextHandler(&logs, nil)), Interval: time.Millisecond})
	p.Phase("tasks", 20)
	p.Step("task 1/20 c052ba6: tests at the parent")
	waitFor(t, func() bool {
		return strings.Contains(logs.String(), `step="task 1/20 c052ba6: tests at the parent" step_elapsed=`)
	})
	p.Step("")
	p.Stop()
}

func TestFitKeepsTheLineWithinTheWidth(t *testing.T) {
	for _, tc := range []struct {
		line  string
		width int
		want  string
	}{
		{"short", 50, "short"},
		{"bootstrap 1/4 click [####] 3/4", 12, "bootstrap 1…"},
		{"ééééé", 3, "éé…"},
	} {
		if got := Fit(tc.line, tc.width); got != tc.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", tc.line, tc.width, got, tc.want)
		}
	}
}

// On a 50-column fake terminal, log lines written through Writer never
// land on the bar (the bar's line is cleared first), and no redraw is wider
// than the terminal.
func TestLogsNeverTearTheBarOnANarrowTerminal(t *testing.T) {
	var term syncBuf
	p := Start(Options{Out: &term, TTY: true, Interval: time.Millisecond, Width: func() int { return 50 }})
	log := slog.New(slog.NewTextHandler(p.Writer(&term), nil))
	p.Items(3)
	p.Item("a-repository-with-a-rather-long-name")
	p.Phase("bootstrap", 0)
	p.AddTotal(5000)
	for i := range 20 {
		p.Add(100)
		log.Info("repository done", "n", i)
		time.Sleep(2 * time.Millisecond)
	}
	waitFor(t, func() bool { return strings.Contains(term.String(), "bootstrap 0/3") })
	p.Stop()
	out := term.String()
	// Every log line starts at the beginning of a cleared line, or of the output.
	for _, seg := range strings.Split(out, "\n") {
		i := strings.Index(seg, "time=")
		if i < 0 {
			continue
		}
		before := seg[:i]
		if before != "" && !strings.HasSuffix(before, "\r\033[K") {
			t.Errorf("a log line was written onto the bar: %q", seg)
		}
	}
	for _, draw := range strings.Split(out, "\r\033[K") {
		draw, _, _ = strings.Cut(draw, "time=") // a log line follows the clear
		if n := len([]rune(draw)); n > 49 {
			t.Errorf("a redraw of %d columns on a 50-column terminal: %q", n, draw)
		}
	}
}

// Work added to a phase whose total was unknown counts from zero: a phase
// begun with -1 is not one unit short (bootstrap once showed 542/541).
func TestAddTotalAfterAnUnknownTotal(t *testing.T) {
	for _, start := range []int64{-1, 0, 5} {
		p := &Progress{}
		p.Phase("bootstrap", start)
		p.AddTotal(3)
		p.AddTotal(4)
		want := max(start, 0) + 7
		if got := p.total.Load(); got != want {
			t.Errorf("Phase(%d) then AddTotal 3 and 4: total %d, want %d", start, got, want)
		}
	}
}
