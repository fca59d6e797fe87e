package kb

import (
	"context"
	"fmt"
	"strings"
)

// CodeIndexEntry is one row of the CGRAG code_index view: a function, method
// or class with what it calls, what calls it, what it raises and mutates and
// the error strings it produces. Calls and CalledBy hold qualified names
// ("Class.method", "Recv.Func", "func"). The lists are never nil.
type CodeIndexEntry struct {
	ID            int64    `json:"id"` // symbols.id
	RepoID        int64    `json:"repo_id"`
	FilePath      string   `json:"file_path"`
	SymbolName    string   `json:"symbol_name"`
	QualifiedName string   `json:"qualified_name"`
	SymbolType    string   `json:"symbol_type"` // function, method, class
	LineStart     int      `json:"line_start"`
	LineEnd       int      `json:"line_end"`
	Signature     string   `json:"signature,omitempty"`
	Docstring     string   `json:"docstring,omitempty"` // its first 200 characters
	Calls         []string `json:"calls"`
	CalledBy      []string `json:"called_by"`
	Raises        []string `json:"raises"`
	Mutates       []string `json:"mutates"`
	ErrorStrings  []string `json:"error_strings"`
	SourceHash    string   `json:"source_hash"` // content hash of the file
}

// CodeIndexQuery selects code index entries; empty fields are ignored and
// the given ones must all hold.
type CodeIndexQuery struct {
	Raises      string // an exception type it raises, exactly
	Mutates     string // state it assigns, exactly ("_cache", "self.state")
	ErrorString string // a case-insensitive substring of one of its error strings
	// Name matches the symbol name or the qualified name as in
	// SearchSymbolsByName: a glob with '*' or '?', otherwise a substring.
	Name  string
	Limit int // at most this many entries; 100 when <= 0
}

// SearchCodeIndex finds the code index entries of a repository matching q.
// With a Name, exact name matches come first, then shorter names; then by
// path and line.
func (k *KnowledgeBase) SearchCodeIndex(ctx context.Context, repoID int64, q CodeIndexQuery) ([]CodeIndexEntry, error) {
	where, args := []string{"repo_id = ?"}, []any{repoID}
	if q.Raises != "" {
		where, args = append(where, "list_contains(raises, ?)"), append(args, q.Raises)
	}
	if q.Mutates != "" {
		where, args = append(where, "list_contains(mutates, ?)"), append(args, q.Mutates)
	}
	if q.ErrorString != "" {
		where = append(where, "EXISTS (SELECT 1 FROM unnest(error_strings) AS t(e) WHERE contains(lower(e), lower(?)))")
		args = append(args, q.ErrorString)
	}
	order := "file_path, line_start, id"
	if q.Name != "" {
		like := likePattern(q.Name)
		where = append(where, `(symbol_name ILIKE ? ESCAPE '\' OR qualified_name ILIKE ? ESCAPE '\')`)
		args = append(args, like, like)
		order = "(lower(symbol_name) = lower(?) OR lower(qualified_name) = lower(?)) DESC, length(symbol_name), " + order
		args = append(args, q.Name, q.Name)
	}
	args = append(args, limitOr(q.Limit, defaultSearchLimit))
	query := `SELECT id, repo_id, file_path, symbol_name, qualified_name, symbol_type, line_start, line_end,
			coalesce(signature, ''), coalesce(docstring, ''), calls, called_by, raises, mutates, error_strings, source_hash
		FROM code_index WHERE ` + strings.Join(where, " AND ") + `
		ORDER BY ` + order + ` LIMIT ?`
	es, err := queryList(ctx, k.q, func(e *CodeIndexEntry) []any {
		return []any{&e.ID, &e.RepoID, &e.FilePath, &e.SymbolName, &e.QualifiedName, &e.SymbolType,
			&e.LineStart, &e.LineEnd, &e.Signature, &e.Docstring, stringList{&e.Calls}, stringList{&e.CalledBy},
			stringList{&e.Raises}, stringList{&e.Mutates}, stringList{&e.ErrorStrings}, &e.SourceHash}
	}, query, args...)
	if err != nil {
		return nil, fmt.Errorf("kb: search code index of repo %d: %w", repoID, err)
	}
	return es, nil
}
