package tabular

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats a result can be written in (parquet is written by DuckDB's COPY).
var Formats = []string{"table", "csv", "json", "jsonl", "markdown"}

// maxCell bounds a table cell; the full value is one --format csv/json away.
const maxCell = 60

// Write streams rows to w in format and returns how many rows it wrote.
// It does not close rows.
func Write(w io.Writer, format string, rows *sql.Rows) (int, error) {
	return write(w, format, "", rows)
}

// write is Write, with jsonl rows wrapped as wrap says (see writeJSON).
func write(w io.Writer, format, wrap string, rows *sql.Rows) (int, error) {
	cols, err := rows.ColumnTypes()
	if err != nil {
		return 0, err
	}
	names := make([]string, len(cols))
	types := make([]string, len(cols))
	for i, c := range cols {
		names[i], types[i] = c.Name(), c.DatabaseTypeName()
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	next := func() (bool, error) {
		if !rows.Next() {
			return false, rows.Err()
		}
		return true, rows.Scan(ptrs...)
	}
	switch format {
	case "csv":
		return writeCSV(w, names, types, vals, next)
	case "json", "jsonl":
		return writeJSON(w, format == "jsonl", wrap, names, types, vals, next)
	case "table", "markdown":
		var cells [][]string
		for {
			ok, err := next()
			if err != nil {
				return 0, err
			}
			if !ok {
				break
			}
			row := make([]string, len(vals))
			for i, v := range vals {
				row[i] = cell(v, types[i], format)
			}
			cells = append(cells, row)
		}
		if format == "markdown" {
			return len(cells), writeMarkdown(w, names, cells)
		}
		return len(cells), writeTable(w, names, types, cells)
	}
	return 0, fmt.Errorf("unknown format %q (use one of %s)", format, strings.Join(Formats, ", "))
}

func writeCSV(w io.Writer, names, types []string, vals []any, next func() (bool, error)) (int, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(names); err != nil {
		return 0, err
	}
	n := 0
	rec := make([]string, len(names))
	for {
		ok, err := next()
		if err != nil || !ok {
			cw.Flush()
			if err == nil {
				err = cw.Error()
			}
			return n, err
		}
		for i, v := range vals {
			rec[i], _ = textValue(v, types[i])
		}
		if err := cw.Write(rec); err != nil {
			return n, err
		}
		n++
	}
}

// writeJSON writes objects whose keys keep the column order: an array of
// them, or with lines one per line, each as wrap(object) when wrap is set
// (a format string with one %s).
func writeJSON(w io.Writer, lines bool, wrap string, names, types []string, vals []any, next func() (bool, error)) (int, error) {
	keys := make([][]byte, len(names))
	for i, name := range names {
		keys[i], _ = json.Marshal(name)
	}
	var sb strings.Builder
	n := 0
	for {
		ok, err := next()
		if err != nil {
			return n, err
		}
		if !ok {
			break
		}
		sb.Reset()
		switch {
		case lines:
		case n == 0:
			sb.WriteString("[\n")
		default:
			sb.WriteString(",\n")
		}
		prefix, suffix, _ := strings.Cut(wrap, "%s")
		sb.WriteString(prefix)
		sb.WriteByte('{')
		for i, v := range vals {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.Write(keys[i])
			sb.WriteByte(':')
			b, err := json.Marshal(jsonValue(v, types[i]))
			if err != nil {
				return n, fmt.Errorf("column %s: %w", names[i], err)
			}
			sb.Write(b)
		}
		sb.WriteByte('}')
		sb.WriteString(suffix)
		if lines {
			sb.WriteByte('\n')
		}
		if _, err := io.WriteString(w, sb.String()); err != nil {
			return n, err
		}
		n++
	}
	if lines {
		return n, nil
	}
	end := "\n]\n"
	if n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(w, end)
	return n, err
}

func cell(v any, dbType, format string) string {
	s, null := textValue(v, dbType)
	if null {
		return "NULL"
	}
	if format == "markdown" {
		s = strings.ReplaceAll(s, "|", `\|`)
		return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "<br>"), "\n", "<br>")
	}
	s = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(s)
	if runeWidth(s) > maxCell {
		s = string([]rune(s)[:maxCell-1]) + "…"
	}
	return s
}

func writeMarkdown(w io.Writer, names []string, cells [][]string) error {
	var sb strings.Builder
	line := func(fields []string) {
		sb.WriteString("|")
		for _, f := range fields {
			sb.WriteString(" " + f + " |")
		}
		sb.WriteString("\n")
	}
	header := make([]string, len(names))
	seps := make([]string, len(names))
	for i, n := range names {
		header[i] = strings.ReplaceAll(n, "|", `\|`)
		seps[i] = "---"
	}
	line(header)
	line(seps)
	for _, row := range cells {
		line(row)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeTable draws a box table; numbers are right-aligned.
func writeTable(w io.Writer, names, types []string, cells [][]string) error {
	widths := make([]int, len(names))
	for i, n := range names {
		widths[i] = max(runeWidth(n), runeWidth(types[i]))
	}
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], runeWidth(c))
		}
	}
	var sb strings.Builder
	rule := func(left, mid, right string) {
		sb.WriteString(left)
		for i, wd := range widths {
			if i > 0 {
				sb.WriteString(mid)
			}
			sb.WriteString(strings.Repeat("─", wd+2))
		}
		sb.WriteString(right + "\n")
	}
	row := func(fields []string, right func(int) bool) {
		sb.WriteString("│")
		for i, f := range fields {
			pad := strings.Repeat(" ", widths[i]-runeWidth(f))
			if right(i) {
				sb.WriteString(" " + pad + f + " │")
			} else {
				sb.WriteString(" " + f + pad + " │")
			}
		}
		sb.WriteString("\n")
	}
	never := func(int) bool { return false }
	numeric := func(i int) bool { return isNumeric(types[i]) }
	rule("┌", "┬", "┐")
	row(names, never)
	row(types, never)
	rule("├", "┼", "┤")
	for _, r := range cells {
		row(r, numeric)
	}
	rule("└", "┴", "┘")
	switch len(cells) {
	case 1:
		sb.WriteString("1 row\n")
	default:
		fmt.Fprintf(&sb, "%d rows\n", len(cells))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func isNumeric(dbType string) bool {
	switch dbType {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
		"UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE":
		return true
	}
	return strings.HasPrefix(dbType, "DECIMAL")
}
