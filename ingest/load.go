package ingest

import (
	"context"
	"database/sql"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
)

// repoFacts is the stored facts of a repository in the shape the resolver
// takes, with the ids its indexes stand for.
type repoFacts struct {
	repo      resolve.Repo
	fileIDs   []int64   // file index → files.id
	symbolIDs [][]int64 // file index, symbol index → symbols.id
}

// loadFacts reads back every file's symbols (with signatures: Go receiver
// variables come from them), imports and references.
func (w *writer) loadFacts(ctx context.Context) (*repoFacts, error) {
	f := &repoFacts{}
	fileIdx := map[int64]int{}
	type symRef struct{ file, sym int }
	symIdx := map[int64]symRef{}
	type parentLink struct {
		file, sym int
		parent    int64
	}
	var parents []parentLink

	err := w.scan(ctx, "SELECT id, path, language FROM files WHERE repo_id = ? ORDER BY path", func(r *sql.Rows) error {
		var id int64
		var file resolve.File
		if err := r.Scan(&id, &file.Path, &file.Language); err != nil {
			return err
		}
		fileIdx[id] = len(f.repo.Files)
		f.repo.Files = append(f.repo.Files, file)
		f.fileIDs = append(f.fileIDs, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	f.symbolIDs = make([][]int64, len(f.repo.Files))
	err = w.scan(ctx, `SELECT s.id, s.file_id, s.name, s.kind, s.parent_symbol_id, coalesce(s.receiver, ''), coalesce(s.signature, '')
		FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = ? ORDER BY s.file_id, s.id`, func(r *sql.Rows) error {
		var id, fileID int64
		var parent sql.NullInt64
		var s lang.Symbol
		if err := r.Scan(&id, &fileID, &s.Name, &s.Kind, &parent, &s.Receiver, &s.Signature); err != nil {
			return err
		}
		fi := fileIdx[fileID]
		s.Parent = -1
		file := &f.repo.Files[fi]
		symIdx[id] = symRef{fi, len(file.Symbols)}
		if parent.Valid {
			parents = append(parents, parentLink{fi, len(file.Symbols), parent.Int64})
		}
		file.Symbols = append(file.Symbols, s)
		f.symbolIDs[fi] = append(f.symbolIDs[fi], id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range parents {
		if ref, ok := symIdx[p.parent]; ok && ref.file == p.file {
			f.repo.Files[p.file].Symbols[p.sym].Parent = ref.sym
		}
	}
	symbolOf := func(id sql.NullInt64) int {
		if !id.Valid {
			return -1
		}
		if ref, ok := symIdx[id.Int64]; ok {
			return ref.sym
		}
		return -1
	}
	err = w.scan(ctx, `SELECT i.file_id, i.line, i.kind, i.module, i.level, i.names, coalesce(i.alias, ''), i.type_only
		FROM imports i JOIN files f ON f.id = i.file_id WHERE f.repo_id = ?`, func(r *sql.Rows) error {
		var fileID int64
		var im lang.Import
		var names any
		if err := r.Scan(&fileID, &im.Line, &im.Kind, &im.Module, &im.Level, &names, &im.Alias, &im.TypeOnly); err != nil {
			return err
		}
		im.Names = importNames(names)
		fi := fileIdx[fileID]
		f.repo.Files[fi].Imports = append(f.repo.Files[fi].Imports, im)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = w.scan(ctx, `SELECT r.file_id, r.symbol_id, r.kind, r.name, r.line
		FROM name_references r JOIN files f ON f.id = r.file_id WHERE f.repo_id = ?`, func(r *sql.Rows) error {
		var fileID int64
		var sym sql.NullInt64
		var ref lang.Reference
		if err := r.Scan(&fileID, &sym, &ref.Kind, &ref.Name, &ref.Line); err != nil {
			return err
		}
		ref.Symbol = symbolOf(sym)
		fi := fileIdx[fileID]
		f.repo.Files[fi].References = append(f.repo.Files[fi].References, ref)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// importNames converts a STRUCT(name, alias)[] as the driver returns it.
func importNames(v any) []lang.ImportName {
	list, _ := v.([]any)
	var out []lang.ImportName
	for _, e := range list {
		m, _ := e.(map[string]any)
		n := lang.ImportName{}
		n.Name, _ = m["name"].(string)
		n.Alias, _ = m["alias"].(string)
		out = append(out, n)
	}
	return out
}
