package ingest

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/kb/schema"
)

// otherLanguage is files.language for a file whose language is not known.
const otherLanguage = "other"

// knownFiles maps the repository's indexed paths to their id and hash.
func (w *writer) knownFiles(ctx context.Context) (map[string]knownFile, error) {
	known := map[string]knownFile{}
	err := w.scan(ctx, "SELECT path, id, content_hash FROM files WHERE repo_id = ?", func(r *sql.Rows) error {
		var p string
		var k knownFile
		if err := r.Scan(&p, &k.id, &k.hash); err != nil {
			return err
		}
		known[p] = k
		return nil
	})
	return known, err
}

// fileTables hold rows keyed by file_id that a re-parse replaces.
var fileTables = []string{"symbols", "docstrings", "inline_comments", "imports", "name_references"}

// deleteFiles removes every row derived from the files ids. gone says the
// files left the tree (their files row, metadata and edges go too);
// otherwise only their parsed facts go, and the files rows are rewritten
// with the same ids by the caller.
func (w *writer) deleteFiles(ctx context.Context, ids []int64, gone bool) error {
	if len(ids) == 0 {
		return nil
	}
	// References into or out of the files' symbols are re-derived later;
	// drop them now so none points at a symbol id that no longer exists.
	if err := w.exec(ctx, `DELETE FROM symbol_references WHERE caller_symbol_id IN
		(SELECT id FROM symbols WHERE list_contains(?::BIGINT[], file_id))
		OR callee_symbol_id IN (SELECT id FROM symbols WHERE list_contains(?::BIGINT[], file_id))`, ids, ids); err != nil {
		return err
	}
	for _, t := range fileTables {
		if err := w.exec(ctx, "DELETE FROM "+t+" WHERE list_contains(?::BIGINT[], file_id)", ids); err != nil {
			return err
		}
	}
	if err := w.exec(ctx, "DELETE FROM files WHERE list_contains(?::BIGINT[], id)", ids); err != nil {
		return err
	}
	if !gone {
		return nil
	}
	for _, q := range []string{
		"DELETE FROM file_metadata WHERE list_contains(?::BIGINT[], file_id)",
		"DELETE FROM file_commits WHERE list_contains(?::BIGINT[], file_id)",
		"DELETE FROM dependencies WHERE list_contains($1::BIGINT[], source_file_id) OR list_contains($1::BIGINT[], target_file_id)",
		"DELETE FROM co_changes WHERE list_contains($1::BIGINT[], file_a_id) OR list_contains($1::BIGINT[], file_b_id)",
	} {
		if err := w.exec(ctx, q, ids); err != nil {
			return err
		}
	}
	return nil
}

// writeFiles replaces the batch's files and their facts, inside the
// caller's transaction. A changed file keeps its id.
func (w *writer) writeFiles(ctx context.Context, batch []parsedFile) error {
	var old []int64
	newFiles, nSymbols := 0, 0
	for _, p := range batch {
		if p.id != 0 {
			old = append(old, p.id)
		} else {
			newFiles++
		}
		if p.facts != nil {
			nSymbols += len(p.facts.Symbols)
		}
	}
	if err := w.deleteFiles(ctx, old, false); err != nil {
		return err
	}
	fileIDs, err := w.nextIDs(ctx, "files_id_seq", newFiles)
	if err != nil {
		return err
	}
	symIDs, err := w.nextIDs(ctx, "symbols_id_seq", nSymbols)
	if err != nil {
		return err
	}
	var r factRowSet
	for _, p := range batch {
		id := p.id
		if id == 0 {
			id, fileIDs = fileIDs[0], fileIDs[1:]
		}
		n := 0
		if p.facts != nil {
			n = len(p.facts.Symbols)
		}
		r.add(w.repoID, id, p, symIDs[:n])
		symIDs = symIDs[n:]
	}
	if err := r.append(w); err != nil {
		return err
	}
	return w.markStale(ctx)
}

// factRowSet is a batch's rows per table, in Appender column order.
type factRowSet struct {
	files, symbols, docstrings, comments, imports, refs [][]driver.Value
}

var (
	filesColumns      = []string{"id", "repo_id", "path", "language", "content_hash", "size_bytes", "error_nodes"}
	symbolsColumns    = []string{"id", "file_id", "name", "kind", "start_line", "end_line", "signature", "parent_symbol_id", "receiver", "raises", "error_strings", "mutates"}
	docstringsColumns = []string{"symbol_id", "file_id", "content", "format", "parsed_fields"}
	commentsColumns   = []string{"file_id", "symbol_id", "line", "content", "kind", "is_rationale"}
	importsColumns    = []string{"file_id", "line", "kind", "module", "level", "names", "alias", "type_only"}
	refsColumns       = []string{"file_id", "symbol_id", "kind", "name", "line"}
)

func (r *factRowSet) add(repoID, fileID int64, p parsedFile, symIDs []int64) {
	language := p.language
	if language == "" {
		language = otherLanguage
	}
	errorNodes := 0
	if p.facts != nil {
		errorNodes = p.facts.ErrorNodes
	}
	r.files = append(r.files, []driver.Value{fileID, repoID, p.path, language, p.hash, p.size, errorNodes})
	f := p.facts
	if f == nil {
		return
	}
	symbol := func(i int) driver.Value {
		if i < 0 || i >= len(symIDs) {
			return nil
		}
		return symIDs[i]
	}
	for i, s := range f.Symbols {
		r.symbols = append(r.symbols, []driver.Value{symIDs[i], fileID, s.Name, s.Kind, s.StartLine, s.EndLine,
			s.Signature, symbol(s.Parent), nullable(s.Receiver), list(s.Raises), list(s.ErrorStrings), list(s.Mutates)})
	}
	for _, d := range f.Docstrings {
		r.docstrings = append(r.docstrings, []driver.Value{symbol(d.Symbol), fileID, d.Content, nullable(d.Format), docFields(d.Fields)})
	}
	for _, c := range f.Comments {
		r.comments = append(r.comments, []driver.Value{fileID, symbol(c.Symbol), c.Line, c.Content, nullable(c.Kind), c.IsRationale})
	}
	for _, im := range f.Imports {
		var names []map[string]any
		for _, n := range im.Names {
			names = append(names, map[string]any{"name": n.Name, "alias": nullable(n.Alias)})
		}
		var namesValue driver.Value
		if names != nil {
			namesValue = names
		}
		r.imports = append(r.imports, []driver.Value{fileID, im.Line, im.Kind, im.Module, im.Level, namesValue, nullable(im.Alias), im.TypeOnly})
	}
	for _, ref := range f.References {
		r.refs = append(r.refs, []driver.Value{fileID, symbol(ref.Symbol), ref.Kind, ref.Name, ref.Line})
	}
}

func (r *factRowSet) append(w *writer) error {
	for _, t := range []struct {
		table   string
		columns []string
		rows    [][]driver.Value
	}{
		{"files", filesColumns, r.files},
		{"symbols", symbolsColumns, r.symbols},
		{"docstrings", docstringsColumns, r.docstrings},
		{"inline_comments", commentsColumns, r.comments},
		{"imports", importsColumns, r.imports},
		{"name_references", refsColumns, r.refs},
	} {
		if err := w.AppendAll(t.table, t.columns, t.rows); err != nil {
			return err
		}
	}
	return nil
}

// list is a VARCHAR[] value: NULL when empty, so "no facts" reads the same
// whichever way it was produced.
func list(xs []string) driver.Value {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

func docFields(d schema.DocFields) driver.Value {
	params := []map[string]any{}
	for _, p := range d.Params {
		params = append(params, map[string]any{"name": p.Name, "type": nullable(p.Type), "description": nullable(p.Description)})
	}
	raises := []map[string]any{}
	for _, r := range d.Raises {
		raises = append(raises, map[string]any{"type": nullable(r.Type), "description": nullable(r.Description)})
	}
	var returns any
	if d.Returns != nil {
		returns = map[string]any{"type": nullable(d.Returns.Type), "description": nullable(d.Returns.Description)}
	}
	return map[string]any{"summary": nullable(d.Summary), "params": params, "returns": returns, "raises": raises}
}

// replaceSkips rewrites the repository's skipped_files with this walk's.
func (w *writer) replaceSkips(ctx context.Context, skips []walk.Entry) error {
	if err := w.exec(ctx, "DELETE FROM skipped_files WHERE repo_id = ?", w.repoID); err != nil {
		return err
	}
	rows := make([][]driver.Value, 0, len(skips))
	for _, s := range skips {
		rows = append(rows, []driver.Value{w.repoID, s.Path, s.Skip, nullable(s.Detail), s.Size})
	}
	return w.AppendAll("skipped_files", []string{"repo_id", "path", "reason", "detail", "size_bytes"}, rows)
}
