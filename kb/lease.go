package kb

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// Lease is a writer that keeps its store open across writes that follow
// one another closely, and closes it once idle passes without one. Opening
// and closing DuckDB (the catalog read, the checkpoint) costs tens of
// milliseconds; a run that writes many small transactions between short
// computations — cra solve's passes, cra eval's tasks — pays it once per
// burst instead of once per write, while a run waiting on a model closes
// the store within idle of its last write, so `cra sql` and other writers
// get in between as they do with WithWriter. One goroutine writes at a
// time; the others wait their turn.
type Lease struct {
	dir  string
	kind Kind
	opts Options
	idle time.Duration

	mu    sync.Mutex
	s     *Store
	conn  *sql.Conn
	timer *time.Timer
	uses  uint64
	opens int   // how often the lease opened the store
	err   error // a failed close of the idle timer, for the next caller
}

// DefaultIdle is how long a Lease keeps its store open after a write.
const DefaultIdle = 100 * time.Millisecond

// NewLease is a lease on the store kind of dir, opened for writing with
// opts (Write is implied) when first written.
func NewLease(dir string, kind Kind, opts Options, idle time.Duration) *Lease {
	opts.Write = true
	return &Lease{dir: dir, kind: kind, opts: opts, idle: idle}
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
		l.s, l.conn = s, conn
		l.opens++
	}
	err := fn(Writer{Conn: l.conn, DB: l.s.DB})
	l.uses++
	uses := l.uses
	l.timer = time.AfterFunc(l.idle, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.uses == uses {
			l.err = l.closeLocked()
		}
	})
	return err
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
