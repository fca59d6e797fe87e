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
const logFormat = "%x01%H%x02%P%x02%an <%ae>%x02%aI%x02%B%x03"

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
	return commits
}

func parseGitLog(out string) ([]Commit, error) {
	var commits []Commit
	for _, chunk := range strings.Split(out, "\x01")[1:] {
		header, numstat, ok := strings.Cut(chunk, "\x03")
		if !ok {
			return nil, fmt.Errorf("git log: no end of header in %q", chunk)
		}
		f := strings.Split(header, "\x02")
		if len(f) != 5 {
			return nil, fmt.Errorf("git log: %d header fields in %q", len(f), header)
		}
		when, err := time.Parse(time.RFC3339, f[3])
		if err != nil {
			return nil, fmt.Errorf("git log: %w", err)
		}
		c := Commit{Hash: f[0], Parents: strings.Fields(f[1]), Author: f[2], Time: when, Message: strings.TrimRight(f[4], "\n")}
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
