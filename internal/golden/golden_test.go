package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Assert reports instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// numbered is lines "line 1" .. "line n", each ending in a newline.
func numbered(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d\n", i+1)
	}
	return lines
}

// TestAssertMessageIsADiff: a mismatch reports the changed line with three
// lines of context and hunk ranges, never the whole of either file.
func TestAssertMessageIsADiff(t *testing.T) {
	want := numbered(20)
	got := append([]string(nil), want...)
	got[9] = "line 10 changed\n"
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte(strings.Join(want, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Assert(r, path, []byte(strings.Join(got, "")))
	if len(r.errors) != 1 {
		t.Fatalf("Assert reported %d errors, want 1: %q", len(r.errors), r.errors)
	}
	wantMsg := "output differs from " + path + " (run with -update if the change is intended)\n" +
		"--- " + path + "\n+++ got\n" +
		"@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+line 10 changed\n line 11\n line 12\n line 13\n"
	if r.errors[0] != wantMsg {
		t.Errorf("message:\n%s\nwant:\n%s", r.errors[0], wantMsg)
	}
}

// TestAssertEqualIsSilent: equal output reports nothing.
func TestAssertEqualIsSilent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Assert(r, path, []byte("same\n"))
	if len(r.errors) != 0 {
		t.Errorf("equal output reported %q", r.errors)
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"added at end", "a\nb\n", "a\nb\nc\n",
			"--- want\n+++ got\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
		{"removed at start", "a\nb\nc\n", "b\nc\n",
			"--- want\n+++ got\n@@ -1,3 +1,2 @@\n-a\n b\n c\n"},
		{"from empty", "", "x\n",
			"--- want\n+++ got\n@@ -1,0 +1,1 @@\n+x\n"},
		{"only the final newline", "a\n", "a",
			"--- want\n+++ got\n(want ends with a newline: true; got: false)\n"},
		{"changes far apart are two hunks",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n",
			"--- want\n+++ got\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
		{"changes close together are one hunk",
			"1\n2\n3\n4\n5\n", "one\n2\n3\n4\nfive\n",
			"--- want\n+++ got\n@@ -1,5 +1,5 @@\n-1\n+one\n 2\n 3\n 4\n-5\n+five\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := diff("want", "got", tc.a, tc.b); got != tc.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestDiffIsCapped: a rewrite of every line shows the first diffMaxLines
// lines and counts the rest, so a failure stays readable.
func TestDiffIsCapped(t *testing.T) {
	var a, b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	got := diff("want", "got", a.String(), b.String())
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	// Two headers, the capped body, the count of what was cut.
	if len(lines) != 2+diffMaxLines+1 {
		t.Fatalf("diff has %d lines, want %d", len(lines), 2+diffMaxLines+1)
	}
	// One hunk header and 1,000 changed lines; diffMaxLines shown.
	if last, want := lines[len(lines)-1], fmt.Sprintf("... %d more diff lines not shown", 1001-diffMaxLines); last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	if !strings.HasPrefix(lines[3], "-old 0") {
		t.Errorf("first change %q, want -old 0", lines[3])
	}
}
