// Package progress reports how far a batch has got: a bar redrawn on a
// terminal, or a structured log line every few seconds otherwise (cron), read
// from atomic counters by one goroutine so the workers never wait on output.
//
// On a terminal, log lines go through Writer so they never tear the bar:
// the bar's line is cleared before a log line is written, and redrawn on
// the next tick. The bar fits the terminal's width.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Options says where progress goes.
type Options struct {
	Out      io.Writer    // the terminal (stderr) when TTY is true
	TTY      bool         // redraw a bar on Out; otherwise log through Log
	Log      *slog.Logger // structured lines when not on a terminal; nil = silent
	Interval time.Duration
	// Width is the terminal's width in columns; nil asks the terminal Out
	// is (80 when it cannot tell).
	Width func() int
}

// Progress is one batch's progress. Its methods are safe for concurrent use;
// a nil *Progress does nothing.
type Progress struct {
	opts      Options
	mu        sync.Mutex // guards label, current, since and drawn, and writing to Out
	label     string
	current   string // the input being worked on (a repository)
	step      string // what is being done now, when it is worth naming
	stepSince time.Time
	drawn     bool
	done      atomic.Int64
	total     atomic.Int64
	items     atomic.Int64 // inputs of the batch (repositories); 0 when not told
	itemsDone atomic.Int64
	since     time.Time
	stop      chan struct{}
	wg        sync.WaitGroup
}

// Start begins reporting until Stop. The interval defaults to 100ms on a
// terminal and 10s in logs.
func Start(opts Options) *Progress {
	if opts.Interval <= 0 {
		opts.Interval = 10 * time.Second
		if opts.TTY {
			opts.Interval = 100 * time.Millisecond
		}
	}
	if opts.Width == nil {
		opts.Width = func() int { return terminalWidth(opts.Out) }
	}
	p := &Progress{opts: opts, stop: make(chan struct{}), since: time.Now()}
	p.wg.Add(1)
	go p.loop()
	return p
}

func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

// Phase starts a new step (total <= 0 when unknown), resetting the count.
func (p *Progress) Phase(label string, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.label = label
	p.since = time.Now()
	p.done.Store(0)
	p.total.Store(total)
	p.mu.Unlock()
}

// Add counts n more units done in the current phase.
func (p *Progress) Add(n int64) {
	if p != nil {
		p.done.Add(n)
	}
}

// AddTotal grows the current phase's total (work discovered on the way).
// An unknown total (<= 0) counts as none yet: work added to a phase begun
// with -1 is not one unit short.
func (p *Progress) AddTotal(n int64) {
	if p == nil {
		return
	}
	for {
		t := p.total.Load()
		if p.total.CompareAndSwap(t, max(t, 0)+n) {
			return
		}
	}
}

// Items says how many inputs (repositories) the batch has: the bar shows
// how many are done of them, which does not move as each input's own
// total is discovered.
func (p *Progress) Items(n int) {
	if p != nil {
		p.items.Store(int64(n))
		p.itemsDone.Store(0)
	}
}

// Item names the input now being worked on.
func (p *Progress) Item(name string) {
	if p != nil {
		p.mu.Lock()
		p.current = name
		p.mu.Unlock()
	}
}

// Step names what is being done now ("task 13/20 c052ba6: tests at the
// parent"): the line shows it with how long it has taken so far, so a
// step that hangs is seen. "" clears it.
func (p *Progress) Step(text string) {
	if p != nil {
		p.mu.Lock()
		p.step, p.stepSince = text, time.Now()
		p.mu.Unlock()
	}
}

// ItemDone counts one more input finished.
func (p *Progress) ItemDone() {
	if p != nil {
		p.itemsDone.Add(1)
	}
}

// Writer returns w wrapped so that what is written through it (log lines)
// never lands on top of the bar: the bar is cleared first and redrawn on the
// next tick. Without a terminal it is w.
func (p *Progress) Writer(w io.Writer) io.Writer {
	if p == nil || !p.opts.TTY {
		return w
	}
	return &barSafe{p: p, w: w}
}

type barSafe struct {
	p *Progress
	w io.Writer
}

func (b *barSafe) Write(data []byte) (int, error) {
	b.p.mu.Lock()
	defer b.p.mu.Unlock()
	if b.p.drawn {
		fmt.Fprint(b.p.opts.Out, "\r\033[K")
		b.p.drawn = false
	}
	return b.w.Write(data)
}

// Stop ends reporting and clears the bar.
func (p *Progress) Stop() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts.TTY && p.drawn {
		fmt.Fprint(p.opts.Out, "\r\033[K")
		p.drawn = false
	}
}

func (p *Progress) loop() {
	defer p.wg.Done()
	t := time.NewTicker(p.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.report()
		}
	}
}

func (p *Progress) report() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.label == "" {
		return
	}
	s := State{Label: p.label, Done: p.done.Load(), Total: p.total.Load(), Elapsed: time.Since(p.since),
		Items: p.items.Load(), ItemsDone: p.itemsDone.Load(), Current: p.current}
	if p.step != "" {
		s.Step, s.StepElapsed = p.step, time.Since(p.stepSince)
	}
	if p.opts.TTY {
		fmt.Fprintf(p.opts.Out, "\r\033[K%s", Fit(s.Line(), p.opts.Width()-1))
		p.drawn = true
		return
	}
	if p.opts.Log != nil {
		args := []any{"phase", s.Label, "done", s.Done, "total", s.Total, "elapsed", s.Elapsed.Round(time.Second).String()}
		if s.Items > 0 {
			args = append(args, "inputs_done", s.ItemsDone, "inputs", s.Items, "current", s.Current)
		}
		if eta, ok := s.ETA(); ok {
			args = append(args, "eta", eta.Round(time.Second).String())
		}
		if s.Step != "" {
			args = append(args, "step", s.Step, "step_elapsed", s.StepElapsed.Round(time.Second).String())
		}
		p.opts.Log.Info("progress", args...)
	}
}

// State is what one progress line shows.
type State struct {
	Label            string
	Done, Total      int64 // units of the phase; Total <= 0 when unknown
	Elapsed          time.Duration
	Items, ItemsDone int64  // inputs of the batch; Items 0 when not told
	Current          string // the input being worked on
	Step             string // what is being done now, and for how long
	StepElapsed      time.Duration
}

// ETA estimates the time left from the rate so far, when the total is known.
func (s State) ETA() (time.Duration, bool) {
	if s.Total <= 0 || s.Done <= 0 || s.Elapsed < time.Second || s.Done >= s.Total {
		return 0, false
	}
	return time.Duration(float64(s.Elapsed) * float64(s.Total-s.Done) / float64(s.Done)), true
}

// Line renders the state: label, inputs done and the current one, the
// step under way and how long it has taken, a bar
// when the total is known, counts (never past the total), rate and ETA.
func (s State) Line() string {
	var b strings.Builder
	b.WriteString(s.Label)
	if s.Items > 0 {
		fmt.Fprintf(&b, " %d/%d", min(s.ItemsDone, s.Items), s.Items)
	}
	if s.Current != "" {
		b.WriteString(" " + s.Current)
	}
	if s.Step != "" { // before the bar, which a narrow terminal cuts first
		fmt.Fprintf(&b, " · %s, %s ·", s.Step, s.StepElapsed.Round(time.Second))
	}
	done := s.Done
	if s.Total > 0 {
		done = min(done, s.Total)
		const width = 24
		filled := int(float64(width) * float64(done) / float64(s.Total))
		fmt.Fprintf(&b, " [%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, s.Total)
	} else {
		fmt.Fprintf(&b, " %d", done)
	}
	if sec := s.Elapsed.Seconds(); sec > 0.5 {
		fmt.Fprintf(&b, " %.0f/s", float64(s.Done)/sec)
	}
	if eta, ok := s.ETA(); ok {
		fmt.Fprintf(&b, " ETA %s", eta.Round(time.Second))
	}
	return b.String()
}

// Line renders one progress line of a phase alone.
func Line(label string, done, total int64, elapsed time.Duration) string {
	return State{Label: label, Done: done, Total: total, Elapsed: elapsed}.Line()
}

// Fit cuts line to at most width columns (runes), so a redraw never wraps.
func Fit(line string, width int) string {
	if width <= 0 || utf8.RuneCountInString(line) <= width {
		return line
	}
	r := []rune(line)
	if width == 1 {
		return string(r[:1])
	}
	return string(r[:width-1]) + "…"
}
