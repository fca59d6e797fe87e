package bootstrap

// TEMPORARY stand-ins until the boot-pure branch lands (filter, hunks, edits).

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb"
)

type CommitInfo struct {
	Hash              string
	Parents           int
	Author, Committer string
	Message           string
	Files             []FileStat
}
type FileStat struct {
	Path                  string
	Insertions, Deletions int
	Binary                bool
}
type Filter struct{}

func NewFilter(config.Bootstrap) (*Filter, error) { return &Filter{}, nil }
func (f *Filter) Check(c CommitInfo) (string, string) {
	if c.Parents > 1 {
		return "merge", ""
	}
	return "", ""
}
func CleanMessage(m string) string { return m }

type Hunk struct{ ParentStart, ParentLines, ChildStart, ChildLines int }

func Hunks(a, b []byte) []Hunk {
	if bytes.Equal(a, b) {
		return nil
	}
	return []Hunk{{1, len(splitLines(a)), 1, len(splitLines(b))}}
}
func Edits(path string, a, b []byte) ([]kb.Edit, error) {
	if bytes.Equal(a, b) {
		return nil, nil
	}
	return []kb.Edit{{File: path, Search: string(a), Replace: string(b)}}, nil
}
func Apply(c []byte, edits []kb.Edit) ([]byte, error) {
	for _, e := range edits {
		if e.Search == "" {
			c = []byte(e.Replace)
			continue
		}
		if bytes.Count(c, []byte(e.Search)) != 1 {
			return nil, errors.New("not unique")
		}
		c = bytes.Replace(c, []byte(e.Search), []byte(e.Replace), 1)
	}
	return c, nil
}
func vendored(string) bool { return false }
func itoa(n int64) string  { return strconv.FormatInt(n, 10) }

var FilterReasons = []string{"merge"}
