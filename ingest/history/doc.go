// Package history reads a repository's commit history with go-git and
// reports, per commit, what `git log --numstat --no-renames` reports with
// git's default configuration: parents, author, message, author time and,
// for non-merge commits, the changed paths with their inserted and deleted
// line counts (binary files as 0/0 with Binary set).
//
// It owns the commit walk (parents before children, stopping at commits the
// caller already has), the tree comparison, and a line counter of its own
// (Myers' O(ND) search, with the preparation and cost heuristics git's diff
// applies, reproduced from git's observed behaviour, so that the counts are
// git's: on the whole histories of go-git, redis and git they all agree).
// Diffs are computed by several workers, each with its own go-git storage
// (a go-git Repository is not safe for concurrent use), and delivered in
// order from one goroutine.
//
// It never writes to the repository and never talks to a store: loading the
// commits into DuckDB is the indexer's job. It reads objects only, so what
// git takes from elsewhere is not applied: .gitattributes in the work tree
// (a `binary` or `-diff` path is "-\t-" in git log, counted lines here),
// replace refs, and diff configuration other than the defaults. Authors are
// the raw %an <%ae> of the commit, without .mailmap.
package history
