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
-- facts is a compact encoding, not STRUCT columns or JSON: a cache nobody
-- queries by hand, that bootstrap reads back whole, blob by blob, in Go. It
-- is the JSON of the facts (symbols, imports, references and terms, in
-- ingest/lang's JSON shape) compressed with DEFLATE (RFC 1951): a blob's
-- facts take about as many bytes as its source as JSON, which DuckDB
-- stores uncompressed (strings that large go to overflow blocks), and a
-- fifth of that deflated (psf/requests: 424 KB of JSON, 75 KB stored).
CREATE TABLE bootstrap_facts (
    repo_path  VARCHAR NOT NULL,   -- as bootstrap_repos.repo_path in raw.duckdb
    blob       VARCHAR NOT NULL,   -- git blob id (hex)
    language   VARCHAR NOT NULL,   -- ingest/lang language of the path's extractor
    extractor  VARCHAR NOT NULL,   -- factsVersion/build id; rows under another are ignored
    facts      BLOB NOT NULL       -- DEFLATE of the facts' JSON (bootstrap/factstore.go)
);
