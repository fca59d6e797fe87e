package kb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// ScriptError is an error DuckDB raised for one statement of a script.
type ScriptError struct {
	Source    string // where the script came from: a file name, "stdin", "query"
	Statement int    // from 1
	Err       error
	Hint      string // what to do, when known
}

func (e *ScriptError) Error() string {
	msg := fmt.Sprintf("%s, statement %d: %v", e.Source, e.Statement, e.Err)
	if e.Hint != "" {
		msg += "\n" + e.Hint
	}
	return msg
}

func (e *ScriptError) Unwrap() error { return e.Err }

// ScriptOptions say what a script may do.
type ScriptOptions struct {
	Write    bool // the stores are open read-write: run the script in one transaction
	AllowDDL bool // let it drop, alter, truncate or replace cra's own tables
}

// RunScript runs the statements of a script on conn in order (see
// SplitStatements). A statement that returns rows goes to query (which
// runs it: prints it, copies it to a file); the others are executed.
//
// With Write, the script runs in one transaction — all or nothing, so an
// error in statement 3 leaves statements 1 and 2 undone — unless it
// manages its own transactions (a BEGIN, COMMIT or ROLLBACK of its own).
// Unless AllowDDL, a statement that would drop, alter, truncate or replace
// one of cra's own tables is refused (*OwnTableError) before it runs.
// Errors are *ScriptError naming the statement.
func RunScript(ctx context.Context, conn *sql.Conn, source string, stmts []string, opts ScriptOptions, query func(i int, stmt string) error) (err error) {
	fail := func(i int, err error) error {
		e := &ScriptError{Source: source, Statement: i + 1, Err: err}
		switch msg := err.Error(); {
		case strings.Contains(msg, "read-only mode"):
			e.Hint = "cra sql opens the stores read-only; pass --write to change them"
		case strings.Contains(msg, "in a transaction that has already modified database"):
			e.Hint = "DuckDB changes one store per transaction: put BEGIN; ... COMMIT; around each store's statements"
		}
		return e
	}
	own := opts.Write && !managesTransactions(stmts)
	if own {
		if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
			return err
		}
		defer func() {
			if err != nil {
				conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // the statement's error says more
			}
		}()
	}
	for i, stmt := range stmts {
		typ, err := statementType(ctx, conn, stmt)
		if err != nil {
			return fail(i, err)
		}
		if verb, table := ownTarget(typ, stmt); table != "" && opts.Write && !opts.AllowDDL {
			return fail(i, &OwnTableError{Verb: verb, Table: table})
		}
		if returnsRows(typ, stmt) {
			err = query(i, stmt)
		} else {
			_, err = conn.ExecContext(ctx, stmt)
		}
		if err != nil {
			return fail(i, err)
		}
	}
	if own {
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			return fail(len(stmts)-1, err)
		}
	}
	return nil
}

// managesTransactions reports whether a statement of the script begins or
// ends a transaction itself.
func managesTransactions(stmts []string) bool {
	for _, s := range stmts {
		fields := strings.Fields(strings.ToUpper(stripLineComments(stripBlockComments(s))))
		if len(fields) > 0 {
			switch fields[0] {
			case "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT":
				return true
			}
		}
	}
	return false
}

func stripLineComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// CopyToParquet writes the result of query stmt to path as Parquet (zstd),
// by DuckDB's COPY.
func CopyToParquet(ctx context.Context, conn *sql.Conn, stmt, path string) error {
	// The newline ends a trailing -- comment before the closing parenthesis.
	_, err := conn.ExecContext(ctx, fmt.Sprintf("COPY (%s\n) TO %s (FORMAT parquet, COMPRESSION zstd)", stmt, quoteLiteral(path)))
	return err
}
