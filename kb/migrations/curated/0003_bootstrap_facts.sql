-- cra bootstrap: the parsed facts of the source blobs in the states where a
-- repository's last run stopped (the tips it mined up to), so the next
-- run's replay starts from them instead of parsing every file of those
-- states again. Derived and disposable like the rest of this store: a row
-- lost or ignored costs one parse, never a different row in raw.duckdb.
-- Rows of a repository are replaced, in one transaction, when a run
-- finishes it; nothing else reads them.
--
-- A row is used only under the key it was written with: the blob, the
-- language of the extractor the path chose (the same blob parses
-- differently as x.py and x.js), and `extractor`, which names the
-- extraction code (bootstrap's factsVersion and the binary's build id, so
-- any other build of cra ignores the row and replaces it).
--
-- facts is JSON, not STRUCT columns: it is a cache that bootstrap decodes
-- whole, blob by blob, in Go (symbols, imports, references and terms in
-- ingest/lang's own JSON shape); DuckDB's string compression keeps the
-- repeated keys small, and `cra sql` can still read it.
CREATE TABLE bootstrap_facts (
    repo_path  VARCHAR NOT NULL,   -- as bootstrap_repos.repo_path in raw.duckdb
    blob       VARCHAR NOT NULL,   -- git blob id (hex)
    language   VARCHAR NOT NULL,   -- ingest/lang language of the path's extractor
    extractor  VARCHAR NOT NULL,   -- factsVersion/build id; rows under another are ignored
    facts      JSON NOT NULL
);
