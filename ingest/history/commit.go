package history

import (
	"slices"
	"strings"
	"time"
)

// Commit is one commit as `git log --numstat --no-renames` shows it.
type Commit struct {
	Hash    string
	Parents []string     // empty for a root commit and for the boundary of a shallow clone
	Author  string       // "Name <email>"
	Message string       // full message; trailing newlines trimmed
	Time    time.Time    // author time, in the author's time zone
	Files   []FileChange // sorted by path; empty for merge commits (git log shows no diff for merges)

	Committer  string    // "Name <email>"
	CommitTime time.Time // committer time, in the committer's time zone
	Tree       string    // the commit's tree hash
}

// IsMerge reports whether c has more than one parent.
func (c Commit) IsMerge() bool { return len(c.Parents) > 1 }

// Insertions is the sum of inserted lines over c's files.
func (c Commit) Insertions() int {
	n := 0
	for _, f := range c.Files {
		n += f.Insertions
	}
	return n
}

// Deletions is the sum of deleted lines over c's files.
func (c Commit) Deletions() int {
	n := 0
	for _, f := range c.Files {
		n += f.Deletions
	}
	return n
}

// FileChange is one line of `git log --numstat`.
type FileChange struct {
	Path       string // full slash path, unquoted
	Insertions int
	Deletions  int
	Binary     bool // git prints "-\t-": counted as changed with 0/0

	// From and To are the blob hashes before and after ("" where the path
	// is absent on that side); Special marks a symlink or submodule on
	// either side, whose "content" is a target path or a commit hash.
	From, To string
	Special  bool
}

// Options tunes Walk.
type Options struct {
	// Workers is the number of goroutines computing diffs; <= 0 means
	// runtime.NumCPU().
	Workers int
	// Known reports commits already loaded; nil means none. Walk calls it
	// from one goroutine, before any diff is computed.
	Known func(hash string) bool
	// Want, when set, chooses the commits delivered by hash and committer
	// time: the walk goes through the others (it stops only at Known
	// ones) without computing their diffs. Walk calls it from one
	// goroutine, before any diff is computed.
	Want func(hash string, committed time.Time) bool
}

func sortFiles(files []FileChange) {
	slices.SortFunc(files, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
}

func trimNewlines(s string) string { return strings.TrimRight(s, "\n") }
