// Package progress reports how far a batch has got: a bar redrawn on a
// terminal, or a structured log line every few seconds otherwise (cron), read
// from atomic counters by one goroutine so the workers never wait on output.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options says where progress goes.
type Options struct {
	Out      io.Writer    // the terminal (stderr) when TTY is true
	TTY      bool         // redraw a bar on Out; otherwise log through Log
	Log      *slog.Logger // structured lines when not on a terminal; nil = silent
	Interval time.Duration
}

// Progress is one batch's progress. Its methods are safe for concurrent use;
// a nil *Progress does nothing.
type Progress struct {
	opts  Options
	mu    sync.Mutex // guards label and drawn
	label string
	drawn bool
	done  atomic.Int64
	total atomic.Int64
	since time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
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
	p := &Progress{opts: opts, stop: make(chan struct{}), since: time.Now()}
	p.wg.Add(1)
	go p.loop()
	return p
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
func (p *Progress) AddTotal(n int64) {
	if p != nil {
		p.total.Add(n)
	}
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
	done, total := p.done.Load(), p.total.Load()
	elapsed := time.Since(p.since)
	if p.opts.TTY {
		fmt.Fprintf(p.opts.Out, "\r\033[K%s", Line(p.label, done, total, elapsed))
		p.drawn = true
		return
	}
	if p.opts.Log != nil {
		p.opts.Log.Info("progress", "phase", p.label, "done", done, "total", total,
			"elapsed", elapsed.Round(time.Second).String())
	}
}

// Line renders one progress line: label, a bar when the total is known,
// counts and rate.
func Line(label string, done, total int64, elapsed time.Duration) string {
	rate := ""
	if s := elapsed.Seconds(); s > 0.5 {
		rate = fmt.Sprintf(" %.0f/s", float64(done)/s)
	}
	if total <= 0 {
		return fmt.Sprintf("%s %d%s", label, done, rate)
	}
	const width = 24
	filled := int(float64(width) * float64(min(done, total)) / float64(total))
	return fmt.Sprintf("%s [%s%s] %d/%d%s", label, strings.Repeat("#", filled),
		strings.Repeat(".", width-filled), done, total, rate)
}
