package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// newHome initialises a home with both stores.
func newHome(t testing.TB) string { return storetest.Home(t) }

// index runs a batch over paths and fails the test on a batch error.
func index(t testing.TB, home string, opts Options, paths ...string) *Summary {
	t.Helper()
	sum, err := IndexRepos(context.Background(), home, paths, opts)
	if err != nil {
		t.Fatalf("index %v: %v", paths, err)
	}
	return sum
}

// one indexes a single repository that must succeed.
func one(t testing.TB, home, path string, opts Options) *Result {
	t.Helper()
	sum := index(t, home, opts, path)
	if o := sum.Repos[0]; o.Status != "ok" {
		t.Fatalf("index %s: %s: %s", path, o.Status, o.Error)
	}
	return sum.Repos[0].Result
}

// query returns a curated query's rows as tab-separated lines.
func query(t testing.TB, home, q string, args ...any) []string {
	t.Helper()
	s, err := kb.Open(context.Background(), home, kb.Curated, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return rowsOf(t, s.DB, q, args...)
}

func rowsOf(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	return storetest.RowsOf(t, db, q, args...)
}

// symbolKey names a symbol by file, name and line: ids differ between a full
// and an incremental index of the same state, these do not.
const symbolKey = `(SELECT f.path || ':' || s.name || ':' || s.start_line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = %s)`

func sym(col string) string { return fmt.Sprintf(symbolKey, col) }

const pathOf = `(SELECT path FROM files WHERE id = %s)`

func pathOfID(col string) string { return fmt.Sprintf(pathOf, col) }

// coChangePairs lists co_changes by path, the smaller path first: a pair is
// stored smaller id first, and ids differ between runs where paths do not.
const coChangePairs = `SELECT least(a, b) AS a, greatest(a, b) AS b, count, last_commit_hash FROM (SELECT ` +
	`(SELECT path FROM files WHERE id = file_a_id) AS a, (SELECT path FROM files WHERE id = file_b_id) AS b, count, last_commit_hash FROM co_changes)`

// dumpQueries read every table the indexer writes, with ids replaced by
// natural keys, in a deterministic order.
var dumpQueries = map[string]string{
	"files": `SELECT path, language, content_hash, size_bytes, error_nodes FROM files`,
	"symbols": `SELECT f.path, s.name, s.kind, s.start_line, s.end_line, s.signature, ` + sym("s.parent_symbol_id") +
		`, s.receiver, s.raises, s.error_strings, s.mutates FROM symbols s JOIN files f ON f.id = s.file_id`,
	"docstrings":      `SELECT ` + pathOfID("d.file_id") + `, ` + sym("d.symbol_id") + `, d.content, d.format, d.parsed_fields::VARCHAR FROM docstrings d`,
	"inline_comments": `SELECT ` + pathOfID("c.file_id") + `, ` + sym("c.symbol_id") + `, c.line, c.content, c.kind, c.is_rationale FROM inline_comments c`,
	"imports":         `SELECT ` + pathOfID("i.file_id") + `, i.line, i.kind, i.module, i.level, i.names::VARCHAR, i.alias, i.type_only FROM imports i`,
	"name_references": `SELECT ` + pathOfID("r.file_id") + `, ` + sym("r.symbol_id") + `, r.kind, r.name, r.line FROM name_references r`,
	"dependencies":    `SELECT ` + pathOfID("d.source_file_id") + `, ` + pathOfID("d.target_file_id") + `, d.kind FROM dependencies d`,
	"symbol_references": `SELECT ` + sym("r.caller_symbol_id") + `, ` + sym("r.callee_symbol_id") +
		`, r.reference_kind FROM symbol_references r`,
	"commits": `SELECT hash, author, message, timestamp, files_changed, insertions, deletions, parents, is_merge FROM commits`,
	"commit_files": `SELECT c.hash, cf.path, cf.insertions, cf.deletions, cf.is_binary
		FROM commit_files cf JOIN commits c ON c.id = cf.commit_id`,
	"file_commits":  `SELECT ` + pathOfID("fc.file_id") + `, c.hash FROM file_commits fc JOIN commits c ON c.id = fc.commit_id`,
	"co_changes":    coChangePairs,
	"skipped_files": `SELECT path, reason, detail, size_bytes FROM skipped_files`,
	"repos":         `SELECT path, tree_rev, head_commit, is_git, derived_stale FROM repos`,
}

// dump reads every indexed table of home.
func dump(t testing.TB, home string) map[string][]string {
	t.Helper()
	return storetest.Dump(t, home, kb.Curated, dumpQueries)
}

// sameDump reports the tables whose rows differ, with the first difference.
func sameDump(t testing.TB, got, want map[string][]string) {
	t.Helper()
	storetest.SameRows(t, got, want)
}

// rawRows returns a raw-store query's rows as tab-separated lines.
func rawRows(t testing.TB, home, q string) []string {
	t.Helper()
	s, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return rowsOf(t, s.DB, q)
}
