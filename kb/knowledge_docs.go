package kb

import (
	"context"
	"fmt"

	"github.com/cra-dev/cra/kb/schema"
)

// Docstring is the documentation of a symbol or a module.
type Docstring struct {
	ID         int64  `json:"id"`
	FileID     int64  `json:"file_id"`
	SymbolID   *int64 `json:"symbol_id,omitempty"`   // nil at module level
	SymbolName string `json:"symbol_name,omitempty"` // "" at module level
	Content    string `json:"content"`
	Format     string `json:"format,omitempty"` // google, numpy, sphinx, jsdoc, plain
	// Fields is the structured extraction; nil when the format gave none.
	Fields *schema.DocFields `json:"parsed_fields,omitempty"`
}

// parsedFields scans the parsed_fields STRUCT (a map[string]any from
// duckdb-go) into *dst.
type parsedFields struct{ dst **schema.DocFields }

func (p parsedFields) Scan(src any) error {
	*p.dst = nil
	if src == nil {
		return nil
	}
	m, ok := src.(map[string]any)
	if !ok {
		return fmt.Errorf("kb: scan parsed_fields: got %T, want a struct", src)
	}
	pf := &schema.DocFields{Summary: structString(m["summary"]), Params: []schema.DocParam{}, Raises: []schema.DocType{}}
	for _, e := range structList(m["params"]) {
		pf.Params = append(pf.Params, schema.DocParam{Name: structString(e["name"]), Type: structString(e["type"]), Description: structString(e["description"])})
	}
	if r, ok := m["returns"].(map[string]any); ok && (r["type"] != nil || r["description"] != nil) {
		pf.Returns = &schema.DocType{Type: structString(r["type"]), Description: structString(r["description"])}
	}
	for _, e := range structList(m["raises"]) {
		pf.Raises = append(pf.Raises, schema.DocType{Type: structString(e["type"]), Description: structString(e["description"])})
	}
	*p.dst = pf
	return nil
}

func structString(v any) string {
	s, _ := v.(string)
	return s
}

func structList(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// GetDocstringsForFile lists the docstrings of a file: the module's first,
// then by the line of their symbol.
func (k *KnowledgeBase) GetDocstringsForFile(ctx context.Context, fileID int64) ([]Docstring, error) {
	ds, err := queryList(ctx, k.q, func(d *Docstring) []any {
		return []any{&d.ID, &d.FileID, &d.SymbolID, &d.SymbolName, &d.Content, &d.Format, parsedFields{&d.Fields}}
	}, `SELECT d.id, d.file_id, d.symbol_id, coalesce(s.name, ''), d.content, coalesce(d.format, ''), d.parsed_fields
		FROM docstrings d LEFT JOIN symbols s ON s.id = d.symbol_id
		WHERE d.file_id = ? ORDER BY d.symbol_id IS NOT NULL, s.start_line, d.id`, fileID)
	if err != nil {
		return nil, fmt.Errorf("kb: docstrings of file %d: %w", fileID, err)
	}
	return ds, nil
}

// Comment is one inline comment.
type Comment struct {
	ID          int64  `json:"id"`
	FileID      int64  `json:"file_id"`
	SymbolID    *int64 `json:"symbol_id,omitempty"` // innermost enclosing symbol; nil at module level
	Line        int    `json:"line"`
	Content     string `json:"content"`
	Kind        string `json:"kind,omitempty"` // todo, fixme, hack, note, bug_ref, rationale, general
	IsRationale bool   `json:"is_rationale"`
}

// GetRationaleComments lists the comments of a file that explain why, by line.
func (k *KnowledgeBase) GetRationaleComments(ctx context.Context, fileID int64) ([]Comment, error) {
	cs, err := queryList(ctx, k.q, func(c *Comment) []any {
		return []any{&c.ID, &c.FileID, &c.SymbolID, &c.Line, &c.Content, &c.Kind, &c.IsRationale}
	}, `SELECT id, file_id, symbol_id, line, content, coalesce(kind, ''), is_rationale
		FROM inline_comments WHERE file_id = ? AND is_rationale ORDER BY line, id`, fileID)
	if err != nil {
		return nil, fmt.Errorf("kb: rationale comments of file %d: %w", fileID, err)
	}
	return cs, nil
}
