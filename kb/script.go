package kb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// SplitStatements cuts a SQL script at the semicolons that end statements,
// leaving those inside quotes, quoted identifiers, dollar-quoted strings and
// comments alone. Empty statements are dropped; comments stay with the text.
func SplitStatements(script string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(script[start:end]); s != "" && !onlyComments(s) {
			out = append(out, s)
		}
	}
	for i := 0; i < len(script); i++ {
		switch c := script[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(script, i, c)
		case c == '-' && strings.HasPrefix(script[i:], "--"):
			if j := strings.IndexByte(script[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(script)
			}
		case c == '/' && strings.HasPrefix(script[i:], "/*"):
			if j := strings.Index(script[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(script)
			}
		case c == '$':
			if tag, ok := dollarTag(script[i:]); ok {
				if j := strings.Index(script[i+len(tag):], tag); j >= 0 {
					i += len(tag) + j + len(tag) - 1
				} else {
					i = len(script)
				}
			}
		case c == ';':
			emit(i)
			start = i + 1
		}
	}
	emit(len(script))
	return out
}

// skipQuoted returns the index of the quote closing the one at i (a doubled
// quote is an escaped one), or the end of the script.
func skipQuoted(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(s)
}

// dollarTag recognises $$ or $name$ at the start of s.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1], true
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	return "", false
}

func onlyComments(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "--") {
			return false
		}
	}
	return !strings.Contains(s, "/*") || strings.TrimSpace(stripBlockComments(s)) == ""
}

func stripBlockComments(s string) string {
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "*/")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+2:]
	}
}

// ReturnsRows reports whether stmt (one statement) produces a result a user
// wants to see: queries, EXPLAIN, PRAGMA, CALL, EXECUTE — or anything with
// RETURNING. It asks DuckDB's parser, so it is exact.
func ReturnsRows(ctx context.Context, conn *sql.Conn, stmt string) (bool, error) {
	typ, err := statementType(ctx, conn, stmt)
	if err != nil {
		return false, err
	}
	return returnsRows(typ, stmt), nil
}

func returnsRows(typ duckdb.StmtType, stmt string) bool {
	switch typ {
	case duckdb.STATEMENT_TYPE_SELECT, duckdb.STATEMENT_TYPE_EXPLAIN, duckdb.STATEMENT_TYPE_PRAGMA,
		duckdb.STATEMENT_TYPE_CALL, duckdb.STATEMENT_TYPE_EXECUTE, duckdb.STATEMENT_TYPE_RELATION:
		return true
	case duckdb.STATEMENT_TYPE_INSERT, duckdb.STATEMENT_TYPE_UPDATE, duckdb.STATEMENT_TYPE_DELETE:
		return strings.Contains(strings.ToUpper(stmt), "RETURNING")
	}
	return false
}

// statementType is the kind of statement stmt is, by DuckDB's parser.
func statementType(ctx context.Context, conn *sql.Conn, stmt string) (duckdb.StmtType, error) {
	var typ duckdb.StmtType
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("not a DuckDB connection: %T", dc)
		}
		st, err := c.PrepareContext(ctx, stmt)
		if err != nil {
			return err
		}
		defer st.Close()
		typ, err = st.(*duckdb.Stmt).StatementType()
		return err
	})
	return typ, err
}
