package history

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// rawCommit is a commit object's fields, read the way git reads them (go-git's
// decoder splits author lines differently from git for unusual idents).
type rawCommit struct {
	tree      plumbing.Hash
	parents   []plumbing.Hash
	author    []byte // the author header's value
	committer []byte // the committer header's value
	encoding  []byte
	message   []byte
}

var errNoTree = errors.New("commit has no tree header")

func parseCommit(data []byte) (rawCommit, error) {
	var c rawCommit
	hasTree := false
	for len(data) > 0 {
		line := data
		rest := []byte(nil)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, rest = data[:i], data[i+1:]
		}
		data = rest
		if len(line) == 0 {
			c.message = data
			break
		}
		key, value, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			h, ok := parseHash(value)
			if !ok {
				return c, fmt.Errorf("bad tree header %q", value)
			}
			c.tree, hasTree = h, true
		case "parent":
			h, ok := parseHash(value)
			if !ok {
				return c, fmt.Errorf("bad parent header %q", value)
			}
			c.parents = append(c.parents, h)
		case "author":
			if c.author == nil {
				c.author = value
			}
		case "committer":
			if c.committer == nil {
				c.committer = value
			}
		case "encoding":
			c.encoding = value
		}
	}
	if !hasTree {
		return c, errNoTree
	}
	return c, nil
}

func parseHash(b []byte) (plumbing.Hash, bool) {
	var h plumbing.Hash
	if len(b) != 2*len(h) {
		return h, false
	}
	for i := range h {
		hi, ok1 := unhex(b[2*i])
		lo, ok2 := unhex(b[2*i+1])
		if !ok1 || !ok2 {
			return h, false
		}
		h[i] = hi<<4 | lo
	}
	return h, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ident splits "Name <email> 1700000000 +0100" as git's split_ident_line
// does: the name ends before the first '<' (trailing spaces dropped), the
// email runs to the next '>', and the date follows the last '>'.
func ident(b []byte) (author string, when time.Time) {
	open := bytes.IndexByte(b, '<')
	if open < 0 {
		return "", time.Unix(0, 0).UTC()
	}
	name := bytes.TrimRight(b[:open], gitSpace)
	closing := bytes.IndexByte(b[open+1:], '>')
	if closing < 0 {
		return "", time.Unix(0, 0).UTC()
	}
	email := b[open+1 : open+1+closing]
	author = string(name) + " <" + string(email) + ">"
	return author, identDate(b[bytes.LastIndexByte(b, '>')+1:])
}

// identDate parses " 1700000000 +0100" after the last '>' as git does: a
// date without a time zone counts as missing, and a missing date is shown
// as the epoch.
func identDate(b []byte) time.Time {
	epoch := time.Unix(0, 0).UTC()
	b = bytes.TrimLeft(b, gitSpace)
	secs, n := digits(b)
	if n == 0 {
		return epoch
	}
	b = bytes.TrimLeft(b[n:], gitSpace)
	if len(b) == 0 || b[0] != '+' && b[0] != '-' {
		return epoch
	}
	tz, n := digits(b[1:])
	if n == 0 {
		return epoch
	}
	offset := int(tz/100*60+tz%100) * 60
	if b[0] == '-' {
		offset = -offset
	}
	return time.Unix(secs, 0).In(time.FixedZone("", offset))
}

// gitSpace is what git's isspace() accepts.
const gitSpace = " \t\n\r"

func digits(b []byte) (v int64, n int) {
	for n < len(b) && '0' <= b[n] && b[n] <= '9' {
		v = v*10 + int64(b[n]-'0')
		n++
	}
	return v, n
}

// reencode converts text from a commit's declared encoding to UTF-8 as
// `git log` does, for the one legacy encoding that needs no tables
// (Latin-1); other encodings are passed through unchanged.
func reencode(text []byte, encoding []byte) string {
	switch strings.ToLower(string(encoding)) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1":
		var sb strings.Builder
		sb.Grow(len(text) + len(text)/8)
		for _, c := range text {
			sb.WriteRune(rune(c))
		}
		return sb.String()
	}
	return string(text)
}
