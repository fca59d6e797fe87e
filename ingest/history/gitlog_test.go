package history

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// logFormat delimits each commit's fields with control bytes that cannot
// occur in them; with -z the numstat records that follow end in NUL.
const logFormat = "%x01%H%x02%P%x02%an <%ae>%x02%aI%x02%cn <%ce>%x02%cI%x02%T%x02%B%x03"

// gitLog runs `git log --numstat --no-renames -z` from head in dir and parses
// its output into Commits, the reference Walk must equal.
func gitLog(t testing.TB, dir, head string) []Commit {
	t.Helper()
	cmd := exec.Command("git", "log", "--numstat", "--no-renames", "-z", "--format="+logFormat, head)
	cmd.Dir = dir
	cmd.Env = gitEnv(t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git log: %v: %s", err, stderr.String())
	}
	commits, err := parseGitLog(string(out))
	if err != nil {
		t.Fatal(err)
	}
	for i := range commits {
		if !commits[i].IsMerge() {
			addBlobs(t, dir, &commits[i])
		}
	}
	return commits
}

// addBlobs fills the blob hashes and Special of c's files from
// `git diff-tree --raw`, which names both sides of every changed path.
func addBlobs(t testing.TB, dir string, c *Commit) {
	t.Helper()
	cmd := exec.Command("git", "diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", "--root", c.Hash)
	cmd.Dir = dir
	cmd.Env = gitEnv(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git diff-tree %s: %v", c.Hash, err)
	}
	fields := strings.Split(strings.TrimPrefix(string(out), c.Hash+"\x00"), "\x00")
	byPath := map[string][2]string{}
	special := map[string]bool{}
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":")) // modes, hashes, status
		if len(meta) != 5 {
			t.Fatalf("git diff-tree %s: record %q", c.Hash, fields[i])
		}
		side := func(mode, hash string) string {
			if mode == "000000" {
				return ""
			}
			return hash
		}
		byPath[fields[i+1]] = [2]string{side(meta[0], meta[2]), side(meta[1], meta[3])}
		for _, m := range meta[:2] {
			special[fields[i+1]] = special[fields[i+1]] || m == "120000" || m == "160000"
		}
	}
	for j := range c.Files {
		f := &c.Files[j]
		f.From, f.To, f.Special = byPath[f.Path][0], byPath[f.Path][1], special[f.Path]
	}
}

func parseGitLog(out string) ([]Commit, error) {
	var commits []Commit
	for _, chunk := range strings.Split(out, "\x01")[1:] {
		header, numstat, ok := strings.Cut(chunk, "\x03")
		if !ok {
			return nil, fmt.Errorf("git log: no end of header in %q", chunk)
		}
		f := strings.Split(header, "\x02")
		if len(f) != 8 {
			return nil, fmt.Errorf("git log: %d header fields in %q", len(f), header)
		}
		when, err := time.Parse(time.RFC3339, f[3])
		if err != nil {
			return nil, fmt.Errorf("git log: %w", err)
		}
		committed, err := time.Parse(time.RFC3339, f[5])
		if err != nil {
			return nil, fmt.Errorf("git log: %w", err)
		}
		c := Commit{Hash: f[0], Parents: strings.Fields(f[1]), Author: f[2], Time: when,
			Committer: f[4], CommitTime: committed, Tree: f[6], Message: strings.TrimRight(f[7], "\n")}
		for _, rec := range strings.Split(numstat, "\x00") {
			rec = strings.TrimLeft(rec, "\n")
			if rec == "" {
				continue
			}
			parts := strings.SplitN(rec, "\t", 3)
			if len(parts) != 3 {
				return nil, fmt.Errorf("git log: numstat record %q", rec)
			}
			fc := FileChange{Path: parts[2]}
			if parts[0] == "-" && parts[1] == "-" {
				fc.Binary = true
			} else {
				if fc.Insertions, err = strconv.Atoi(parts[0]); err != nil {
					return nil, fmt.Errorf("git log: numstat record %q", rec)
				}
				if fc.Deletions, err = strconv.Atoi(parts[1]); err != nil {
					return nil, fmt.Errorf("git log: numstat record %q", rec)
				}
			}
			c.Files = append(c.Files, fc)
		}
		sortFiles(c.Files)
		commits = append(commits, c)
	}
	return commits, nil
}

// walkAll runs Walk and returns what it delivered, failing the test if a
// commit arrives before one of its delivered parents.
func walkAll(t testing.TB, dir, head string, opts Options) []Commit {
	t.Helper()
	var got []Commit
	if err := Walk(context.Background(), dir, head, opts, func(c Commit) error {
		got = append(got, c)
		return nil
	}); err != nil {
		t.Fatalf("Walk: %v", err)
	}
	checkOrder(t, got)
	return got
}

// checkOrder fails the test unless every commit comes after all its parents
// that were delivered, and no commit comes twice.
func checkOrder(t testing.TB, commits []Commit) {
	t.Helper()
	pos := map[string]int{}
	for i, c := range commits {
		if _, dup := pos[c.Hash]; dup {
			t.Errorf("commit %s delivered twice", c.Hash)
		}
		pos[c.Hash] = i
	}
	for i, c := range commits {
		for _, p := range c.Parents {
			if j, ok := pos[p]; ok && j > i {
				t.Errorf("commit %s delivered at %d before its parent %s at %d", c.Hash, i, p, j)
			}
		}
	}
}

// diffCommits describes how got differs from want, matching commits by
// hash; it is empty when they are equal.
func diffCommits(want, got []Commit) []string {
	var diffs []string
	if len(want) != len(got) {
		diffs = append(diffs, fmt.Sprintf("%d commits, want %d", len(got), len(want)))
	}
	byHash := map[string]Commit{}
	for _, c := range got {
		byHash[c.Hash] = c
	}
	for _, w := range want {
		g, ok := byHash[w.Hash]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("commit %s missing", w.Hash))
			continue
		}
		delete(byHash, w.Hash)
		diffs = append(diffs, diffCommit(w, g)...)
	}
	for h := range byHash {
		diffs = append(diffs, fmt.Sprintf("commit %s not in git log", h))
	}
	return diffs
}

func diffCommit(want, got Commit) []string {
	var diffs []string
	add := func(field string, g, w any) {
		diffs = append(diffs, fmt.Sprintf("commit %s: %s = %#v, want %#v", want.Hash, field, g, w))
	}
	if !slices.Equal(got.Parents, want.Parents) {
		add("parents", got.Parents, want.Parents)
	}
	if got.Author != want.Author {
		add("author", got.Author, want.Author)
	}
	if got.Committer != want.Committer || !got.CommitTime.Equal(want.CommitTime) {
		add("committer", got.Committer+" "+got.CommitTime.String(), want.Committer+" "+want.CommitTime.String())
	}
	if got.Tree != want.Tree {
		add("tree", got.Tree, want.Tree)
	}
	if got.Message != want.Message {
		add("message", got.Message, want.Message)
	}
	_, gotOff := got.Time.Zone()
	_, wantOff := want.Time.Zone()
	if !got.Time.Equal(want.Time) || gotOff != wantOff {
		add("time", got.Time.String(), want.Time.String())
	}
	if len(got.Files) != 0 || len(want.Files) != 0 {
		if !reflect.DeepEqual(got.Files, want.Files) {
			add("files", got.Files, want.Files)
		}
	}
	if got.Insertions() != want.Insertions() || got.Deletions() != want.Deletions() {
		add("insertions/deletions", [2]int{got.Insertions(), got.Deletions()}, [2]int{want.Insertions(), want.Deletions()})
	}
	return diffs
}

// requireSameAsGit walks dir from head with each worker count and compares
// the result with git log.
func requireSameAsGit(t *testing.T, dir, head string) []Commit {
	t.Helper()
	want := gitLog(t, dir, head)
	var got []Commit
	for _, workers := range []int{1, 4} {
		got = walkAll(t, dir, head, Options{Workers: workers})
		for _, d := range diffCommits(want, got) {
			t.Errorf("workers=%d: %s", workers, d)
		}
	}
	return got
}
