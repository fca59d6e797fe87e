package lang

import "testing"

func TestClassifyComment(t *testing.T) {
	cases := []struct {
		text      string
		kind      string
		rationale bool
	}{
		{"TODO: remove after v2", CommentTodo, false},
		{"todo(bob): retry", CommentTodo, false},
		{"FIXME leaks a file handle", CommentFixme, false},
		{"XXX: ugly", CommentFixme, false},
		{"HACK around the parser", CommentHack, false},
		{"NOTE: order matters because of caching", CommentNote, true},
		{"Note: keys are sorted", CommentNote, false},
		{"Note that keys are sorted", CommentGeneral, false},
		{"see #123", CommentBugRef, false},
		{"fixed in GH-42", CommentBugRef, false},
		{"tracked as JIRA-7781", CommentBugRef, false},
		{"regression from bug 1234", CommentBugRef, false},
		{"https://github.com/o/r/issues/99", CommentBugRef, false},
		{"BUG(rsc): wrong on Windows", CommentBugRef, false},
		{"encode as UTF-8 and hash with SHA-256", CommentGeneral, false},
		{"color &#123; is an entity", CommentGeneral, false},
		{"retry because the server drops the first request", CommentRationale, true},
		{"sort so that output is stable", CommentRationale, true},
		{"workaround for a driver bug", CommentRationale, true},
		{"must hold the lock", CommentRationale, true},
		{"copy to avoid aliasing", CommentRationale, true},
		{"otherwise we deadlock", CommentRationale, true},
		{"TODO: drop this once #77 is fixed because it is slow", CommentTodo, true},
		{"increment the counter", CommentGeneral, false},
	}
	for _, c := range cases {
		kind, rationale := classify(c.text)
		if kind != c.kind || rationale != c.rationale {
			t.Errorf("classify(%q) = %s, %v; want %s, %v", c.text, kind, rationale, c.kind, c.rationale)
		}
	}
}

func TestCommentText(t *testing.T) {
	cases := []struct{ raw, want string }{
		{"# hello ", "hello"},
		{"## section", "section"},
		{"// hi", "hi"},
		{"/// triple", "triple"},
		{"/* one */", "one"},
		{"/**\n * a\n * b\n */", "a\nb"},
	}
	for _, c := range cases {
		got, _ := commentText(c.raw)
		eq(t, c.raw, got, c.want)
	}
}

func TestCommentsSkipAndMerge(t *testing.T) {
	src := `# noqa: E501
# type: ignore
# ----------
#
x = 1  # pylint: disable=invalid-name
# first line of a note
# second line of the note
# TODO: separate marker starts a new comment
y = 2  # trailing one
# trailing lines are not merged with code comments

def f():
    # inside f
    pass
    # still f, dedented block end
# back at module level
`
	eq(t, "comments", commentLines(extract(t, Python, src)), []string{
		"6 - general false: first line of a note\nsecond line of the note",
		"8 - todo false: TODO: separate marker starts a new comment",
		"9 y general false: trailing one",
		"10 - general false: trailing lines are not merged with code comments",
		"13 f general false: inside f",
		"15 f general false: still f, dedented block end",
		"16 - general false: back at module level",
	})
}

func TestGoAndJSCommentSkips(t *testing.T) {
	goSrc := "package p\n\n//go:generate stringer -type=X\n\n//nolint:errcheck\nvar x = 1 // trailing\n\n/* block\n   comment */\n\nfunc f() {}\n"
	eq(t, "go", commentLines(extract(t, Go, goSrc)), []string{"6 x general false: trailing", "8 - general false: block\ncomment"})
	jsSrc := "/* eslint-disable no-console */\n// @ts-ignore\nconst a = 1; // prettier-ignore\n// real one\n"
	eq(t, "js", commentLines(extract(t, JavaScript, jsSrc)), []string{"4 - general false: real one"})
}
