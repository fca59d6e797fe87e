package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Querier is what KnowledgeBase reads through: *sql.DB, *sql.Conn and *sql.Tx
// satisfy it.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// KnowledgeBase is the read API over the curated store that retrieval and
// the bootstrap miner use. It never writes.
//
// Its SQL names tables unqualified, so it reads a Store opened on
// curated.duckdb as well as an Attached session, whose search_path ends in
// curated. It is as safe for concurrent use as its Querier: a *sql.DB is, a
// *sql.Conn or *sql.Tx serves one caller at a time.
//
// Conventions: list methods return an empty, non-nil slice when nothing
// matches (an unknown id is not an error for them); single-row lookups and
// the composites (GetFileContext, GetRepoOverview) return an error wrapping
// ErrNotFound. NULL text columns read as "".
type KnowledgeBase struct {
	q Querier
}

// NewKnowledgeBase reads the curated store through q.
func NewKnowledgeBase(q Querier) *KnowledgeBase { return &KnowledgeBase{q: q} }

// ErrNotFound is wrapped by the error of a lookup that finds nothing.
var ErrNotFound = errors.New("kb: not found")

type notFoundError struct{ what string }

func (e *notFoundError) Error() string { return "kb: " + e.what + " not found" }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// Direction says which way to follow an edge: Outgoing from a caller to its
// callees (from an importer to what it imports), Incoming the reverse.
type Direction string

const (
	Outgoing Direction = "outgoing"
	Incoming Direction = "incoming"
	Both     Direction = "both"
)

func (d Direction) check() error {
	switch d {
	case Outgoing, Incoming, Both:
		return nil
	}
	return fmt.Errorf("kb: direction %q: want %q, %q or %q", string(d), Outgoing, Incoming, Both)
}

func (d Direction) out() bool { return d == Outgoing || d == Both }
func (d Direction) in() bool  { return d == Incoming || d == Both }

// queryList runs query and scans each row into the destinations dest gives
// for a new T. The result is never nil.
func queryList[T any](ctx context.Context, q Querier, dest func(*T) []any, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var v T
		if err := rows.Scan(dest(&v)...); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Column runs query, whose rows have one column, and returns its values
// in row order. The result is never nil.
func Column[T any](ctx context.Context, q Querier, query string, args ...any) ([]T, error) {
	return queryList(ctx, q, func(v *T) []any { return []any{v} }, query, args...)
}

// queryOne scans the single row of query into dest. what names the thing
// looked up, for the errors: a missing row wraps ErrNotFound.
func queryOne(ctx context.Context, q Querier, dest []any, what string, query string, args ...any) error {
	err := q.QueryRowContext(ctx, query, args...).Scan(dest...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return &notFoundError{what: what}
	case err != nil:
		return fmt.Errorf("kb: %s: %w", what, err)
	}
	return nil
}

// stringList scans a DuckDB VARCHAR[] — which duckdb-go hands over as []any —
// into *dst. NULL leaves nil; a NULL element reads as "".
type stringList struct{ dst *[]string }

func (l stringList) Scan(src any) error {
	s, err := toStrings(src)
	*l.dst = s
	return err
}

// toStrings converts a scanned DuckDB list of VARCHAR.
func toStrings(src any) ([]string, error) {
	if src == nil {
		return nil, nil
	}
	list, ok := src.([]any)
	if !ok {
		return nil, fmt.Errorf("kb: scan list: got %T, want a list", src)
	}
	out := make([]string, len(list))
	for i, e := range list {
		if e == nil {
			continue
		}
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("kb: scan list element %d: got %T, want a string", i, e)
		}
		out[i] = s
	}
	return out, nil
}

// likePattern turns a name pattern into an ILIKE pattern (escape '\'): with
// '*' or '?' it is a glob over the whole name, otherwise a substring.
func likePattern(pattern string) string {
	var b strings.Builder
	glob := strings.ContainsAny(pattern, "*?")
	if !glob {
		b.WriteByte('%')
	}
	for _, r := range pattern {
		switch {
		case r == '%' || r == '_' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case glob && r == '*':
			b.WriteByte('%')
		case glob && r == '?':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	if !glob {
		b.WriteByte('%')
	}
	return b.String()
}

// defaultSearchLimit is the result cap of the name searches when none is given.
const defaultSearchLimit = 100

func limitOr(limit, def int) int {
	if limit <= 0 {
		return def
	}
	return limit
}
