package kb

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// Lease is a writer that keeps its store open across writes that follow
// one another closely. Opening and closing DuckDB (the catalog read, the
// checkpoint) costs tens of milliseconds; a run that writes many small
// transactions between short computations — cra solve's passes and test
// runs, cra eval's tasks — pays it once per burst instead of once per
// write. It closes the store once idle passes without a write if another
// process (or another lease in this one) wants the store (want.go), and
// in any case once hold passes without one, so `cra sql` and other
// writers get in between as they do with WithWriter. One goroutine writes
// at a time; the others wait their turn.
type Lease struct {
	dir  string
	kind Kind
	opts Options
	idle time.Duration
	hold time.Duration

	mu    sync.Mutex
	s     *Store
	conn  *sql.Conn
	timer *time.Timer
	uses  uint64
	since time.Time // when the lease opened the store
	last  time.Time // the end of the last write
	opens int       // how often the lease opened the store
	err   error     // a failed close of the idle timer, for the next caller
}

// DefaultIdle is how long after a write a Lease lets go of its store when
// someone wants it; it looks again every idle.
const DefaultIdle = 100 * time.Millisecond

// DefaultHold is the longest a Lease keeps its store after a write when
// no one wants it.
const DefaultHold = time.Second

// NewLease is a lease on the store kind of dir, opened for writing with
// opts (Write is implied) when first written, held DefaultHold after a
// write (at least idle).
func NewLease(dir string, kind Kind, opts Options, idle time.Duration) *Lease {
	opts.Write = true
	return &Lease{dir: dir, kind: kind, opts: opts, idle: idle, hold: max(idle, DefaultHold)}
}

// Write runs fn with the store's writer, opening the store if the lease
// does not hold it, and keeps it open for idle after fn returns. fn runs
// its own transactions (Writer.Tx).
func (l *Lease) Write(ctx context.Context, fn func(Writer) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
	}
	if err := l.err; err != nil {
		l.err = nil
		return err
	}
	if l.s == nil {
		s, err := Open(ctx, l.dir, l.kind, l.opts)
		if err != nil {
			return err
		}
		conn, err := s.DB.Conn(ctx)
		if err != nil {
			return errors.Join(err, s.Close())
		}
		l.s, l.conn, l.since = s, conn, time.Now()
		l.opens++
	}
	err := fn(Writer{Conn: l.conn, DB: l.s.DB})
	l.uses++
	l.last = time.Now()
	l.timer = time.AfterFunc(l.idle, l.whenIdle(l.uses))
	return err
}

// whenIdle is the check, every idle after the write numbered uses while
// no other follows, that closes the store once someone wants it or hold
// has passed.
func (l *Lease) whenIdle(uses uint64) func() {
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.uses != uses || l.s == nil {
			return
		}
		if time.Since(l.last) < l.hold && !wantedSince(l.s.Path, l.since) {
			l.timer = time.AfterFunc(l.idle, l.whenIdle(uses))
			return
		}
		l.err = l.closeLocked()
	}
}

// Opens is how often the lease has opened its store.
func (l *Lease) Opens() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.opens
}

// Close closes the store now if the lease holds it.
func (l *Lease) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
	}
	err := errors.Join(l.err, l.closeLocked())
	l.err = nil
	return err
}

func (l *Lease) closeLocked() error {
	if l.s == nil {
		return nil
	}
	err := errors.Join(l.conn.Close(), l.s.Close())
	l.s, l.conn = nil, nil
	return err
}
