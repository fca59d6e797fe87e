package tabular

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
)

// ResultSets writes the results of a script of several statements as one
// output a program can parse:
//   - json: one document, an array of {"statement": N, "sql": "...",
//     "rows": [...]}, one element per statement that returned rows;
//   - jsonl: one line per row, {"statement": N, "row": {...}};
//   - table, csv, markdown: each result after the previous one, a blank
//     line between them.
//
// A script of one statement writes exactly what Write writes.
type ResultSets struct {
	w      io.Writer
	format string
	multi  bool
	n      int // results written
}

// NewResultSets writes to w in format the results of a script of
// statements statements.
func NewResultSets(w io.Writer, format string, statements int) *ResultSets {
	return &ResultSets{w: w, format: format, multi: statements > 1}
}

// Write writes the rows statement number index (from 1), stmt, returned.
func (s *ResultSets) Write(index int, stmt string, rows *sql.Rows) (int, error) {
	defer func() { s.n++ }()
	if !s.multi {
		return Write(s.w, s.format, rows)
	}
	switch s.format {
	case "json":
		sep := "[\n"
		if s.n > 0 {
			sep = ",\n"
		}
		text, _ := json.Marshal(stmt)
		if _, err := fmt.Fprintf(s.w, `%s{"statement":%d,"sql":%s,"rows":`, sep, index, text); err != nil {
			return 0, err
		}
		n, err := Write(s.w, "json", rows)
		if err == nil {
			_, err = io.WriteString(s.w, "}")
		}
		return n, err
	case "jsonl":
		return write(s.w, "jsonl", fmt.Sprintf(`{"statement":%d,"row":%%s}`, index), rows)
	}
	if s.n > 0 {
		if _, err := fmt.Fprintln(s.w); err != nil {
			return 0, err
		}
	}
	return Write(s.w, s.format, rows)
}

// Close ends the output (the json array of a script).
func (s *ResultSets) Close() error {
	if !s.multi || s.format != "json" {
		return nil
	}
	end := "\n]\n"
	if s.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(s.w, end)
	return err
}
