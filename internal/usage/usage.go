// Package usage is the one kind of error that says cra was called or
// configured wrongly and nothing was done: a bad flag or argument, a
// selection that names nothing, a refusal before any write. Any package
// returns one; cmd/cra's exitCode maps it to exit 2 wherever it is
// wrapped, so commands never convert errors by hand.
package usage

import (
	"errors"
	"fmt"
)

// Error is a usage error made from a message (Errorf) or another error
// (Wrap).
type Error struct{ err error }

func (e *Error) Error() string { return e.err.Error() }
func (e *Error) Unwrap() error { return e.err }

// Usage marks e as a usage error.
func (e *Error) Usage() {}

// Errorf is a usage error with the message fmt.Errorf makes (%w wraps).
func Errorf(format string, args ...any) error { return &Error{fmt.Errorf(format, args...)} }

// Wrap makes err a usage error, keeping its message and chain; nil stays
// nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{err}
}

// Marker is what makes an error a usage error: Error has it, and so can a
// package's own structured error (a preflight's problem and fix, an eval
// selection that does not match) without being wrapped.
type Marker interface{ Usage() }

// Is reports whether err, or an error it wraps, is a usage error.
func Is(err error) bool {
	var m Marker
	return errors.As(err, &m)
}
