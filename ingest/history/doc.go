// Package history reads a repository's commit history with go-git and
// reports, per commit, what `git log --numstat --no-renames` reports with
// git's default configuration: parents, author, message, author time and,
// for non-merge commits, the changed paths with their inserted and deleted
// line counts (binary files as 0/0 with Binary set).
//
// It owns the commit walk (parents before children, stopping at commits the
// caller already has), the tree comparison, and a line counter of its own
// (Myers' O(ND) search, exact up to a cost limit). Its counts are minimal;
// git's are not always: git's diff may count a repeated line (a blank line
// inside a replaced block) as changed, so on real histories about 1% of file
// entries show a line or two fewer here than in git log. Diffs are computed
// by several workers, each with its own
// go-git storage (a go-git Repository is not safe for concurrent use), and
// delivered in order from one goroutine.
//
// It never writes to the repository and never talks to a store: loading the
// commits into DuckDB is the indexer's job. It reads objects only, so what
// git takes from elsewhere is not applied: .gitattributes in the work tree
// (a `binary` or `-diff` path is "-\t-" in git log, counted lines here),
// replace refs, and diff configuration other than the defaults. Authors are
// the raw %an <%ae> of the commit, without .mailmap.
package history
