package kb

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Symbol is one extracted declaration, with the path of its file.
type Symbol struct {
	ID        int64  `json:"id"`
	FileID    int64  `json:"file_id"`
	FilePath  string `json:"file_path"`
	Name      string `json:"name"`
	Kind      string `json:"kind"` // function, class, method, interface, type_alias, enum, variable
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Signature string `json:"signature,omitempty"`
	ParentID  *int64 `json:"parent_id,omitempty"` // the enclosing symbol, nil at top level
	Receiver  string `json:"receiver,omitempty"`  // Go receiver type
	// The CGRAG facts; nil where the language's extractor records none.
	Raises       []string `json:"raises,omitempty"`
	ErrorStrings []string `json:"error_strings,omitempty"`
	Mutates      []string `json:"mutates,omitempty"`
}

// symbolCols selects a Symbol from symbols s joined with its files f.
const symbolCols = `s.id, s.file_id, f.path, s.name, s.kind, s.start_line, s.end_line, coalesce(s.signature, ''),
	s.parent_symbol_id, coalesce(s.receiver, ''), s.raises, s.error_strings, s.mutates`

func (s *Symbol) dest() []any {
	return []any{&s.ID, &s.FileID, &s.FilePath, &s.Name, &s.Kind, &s.StartLine, &s.EndLine, &s.Signature,
		&s.ParentID, &s.Receiver, stringList{&s.Raises}, stringList{&s.ErrorStrings}, stringList{&s.Mutates}}
}

// GetSymbolsForFile lists the symbols of a file of kind ("" for all) by
// start line.
func (k *KnowledgeBase) GetSymbolsForFile(ctx context.Context, fileID int64, kind string) ([]Symbol, error) {
	ss, err := queryList(ctx, k.q, (*Symbol).dest, "SELECT "+symbolCols+` FROM symbols s JOIN files f ON f.id = s.file_id
		WHERE s.file_id = ? AND (? = '' OR s.kind = ?) ORDER BY s.start_line, s.id`, fileID, kind, kind)
	if err != nil {
		return nil, fmt.Errorf("kb: symbols of file %d: %w", fileID, err)
	}
	return ss, nil
}

// GetSymbolByID finds a symbol by id.
func (k *KnowledgeBase) GetSymbolByID(ctx context.Context, id int64) (*Symbol, error) {
	var s Symbol
	err := queryOne(ctx, k.q, s.dest(), fmt.Sprintf("symbol %d", id),
		"SELECT "+symbolCols+" FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?", id)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// SearchSymbolsByName finds the symbols of a repository by name,
// case-insensitively. A pattern with '*' or '?' is a glob over the whole name,
// any other a substring. Exact matches come first, then shorter names, then
// by path and line. At most limit symbols (100 when limit <= 0).
func (k *KnowledgeBase) SearchSymbolsByName(ctx context.Context, repoID int64, pattern string, limit int) ([]Symbol, error) {
	if pattern == "" {
		return nil, errors.New("kb: search symbols: empty name pattern")
	}
	ss, err := queryList(ctx, k.q, (*Symbol).dest, "SELECT "+symbolCols+` FROM symbols s JOIN files f ON f.id = s.file_id
		WHERE f.repo_id = ? AND s.name ILIKE ? ESCAPE '\'
		ORDER BY lower(s.name) = lower(?) DESC, length(s.name), f.path, s.start_line, s.id
		LIMIT ?`, repoID, likePattern(pattern), pattern, limitOr(limit, defaultSearchLimit))
	if err != nil {
		return nil, fmt.Errorf("kb: search symbols %q in repo %d: %w", pattern, repoID, err)
	}
	return ss, nil
}

// SymbolNeighbor is a symbol at the other end of a reference.
type SymbolNeighbor struct {
	Symbol    Symbol    `json:"symbol"`
	Kind      string    `json:"kind"`      // the reference kind: call, inherit, type_ref
	Direction Direction `json:"direction"` // Outgoing: the symbol asked about refers to this one
}

// GetSymbolNeighbors lists the symbols a symbol refers to (Outgoing: callees,
// bases, types it uses), those referring to it (Incoming: callers) or both,
// over symbol_references of the given kinds (all when kinds is empty).
// Ordered outgoing first, then by kind, path and line; a symbol referred to
// several times in one way is listed once.
func (k *KnowledgeBase) GetSymbolNeighbors(ctx context.Context, symbolID int64, dir Direction, kinds []string) ([]SymbolNeighbor, error) {
	if err := dir.check(); err != nil {
		return nil, err
	}
	var parts []string
	var args []any
	if dir.out() {
		parts = append(parts, `SELECT DISTINCT callee_symbol_id AS id, reference_kind AS kind, 'outgoing' AS dir
			FROM symbol_references WHERE caller_symbol_id = ?`)
		args = append(args, symbolID)
	}
	if dir.in() {
		parts = append(parts, `SELECT DISTINCT caller_symbol_id, reference_kind, 'incoming'
			FROM symbol_references WHERE callee_symbol_id = ?`)
		args = append(args, symbolID)
	}
	filter := ""
	if len(kinds) > 0 {
		filter = "WHERE list_contains(?::VARCHAR[], n.kind)"
		args = append(args, kinds)
	}
	query := "WITH n(id, kind, dir) AS (" + strings.Join(parts, " UNION ") + ")\nSELECT " + symbolCols + `, n.kind, n.dir
		FROM n JOIN symbols s ON s.id = n.id JOIN files f ON f.id = s.file_id ` + filter + `
		ORDER BY n.dir = 'outgoing' DESC, n.kind, f.path, s.start_line, s.id`
	ns, err := queryList(ctx, k.q, func(n *SymbolNeighbor) []any {
		return append(n.Symbol.dest(), &n.Kind, &n.Direction)
	}, query, args...)
	if err != nil {
		return nil, fmt.Errorf("kb: %s neighbors of symbol %d: %w", dir, symbolID, err)
	}
	return ns, nil
}

// SymbolReference is a resolved reference from one symbol to another.
type SymbolReference struct {
	Caller, Callee int64
	Kind           string // call, inherit, type_ref
}

// GetReferencesAmong lists the references whose two ends are both among
// ids, by caller, callee and kind, each once.
func (k *KnowledgeBase) GetReferencesAmong(ctx context.Context, ids []int64) ([]SymbolReference, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rs, err := queryList(ctx, k.q, func(r *SymbolReference) []any { return []any{&r.Caller, &r.Callee, &r.Kind} },
		`SELECT DISTINCT caller_symbol_id, callee_symbol_id, reference_kind FROM symbol_references
		WHERE list_contains(?::BIGINT[], caller_symbol_id) AND list_contains(?::BIGINT[], callee_symbol_id)
		ORDER BY 1, 2, 3`, ids, ids)
	if err != nil {
		return nil, fmt.Errorf("kb: references among %d symbols: %w", len(ids), err)
	}
	return rs, nil
}
