package schema

import (
	"fmt"
	"testing"
)

// Deletion is the convention bootstrap stores: one edit whose search is
// the whole file and whose replacement is empty.
func TestDeletesFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		edits   []Edit
		want    bool
	}{
		{"whole file to nothing", "a\nb\n", []Edit{{File: "f", Search: "a\nb\n"}}, true},
		{"after an edit", "a\nb\n", []Edit{{File: "f", Search: "a\n", Replace: "c\n"}, {File: "f", Search: "c\nb\n"}}, true},
		{"part of it", "a\nb\n", []Edit{{File: "f", Search: "a\n"}}, false},
		{"emptied then written", "a\n", []Edit{{File: "f", Search: "a\n"}, {File: "f", Replace: "b\n"}}, false},
		{"no edit", "a\n", nil, false},
	} {
		if got := DeletesFile([]byte(tc.content), tc.edits); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// An edit applies where its search text occurs once in the content as the
// edits before it left it; overlapping occurrences count.
func TestApplyEdits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		edits   []Edit
		want    string
		err     string
	}{
		{"once", "a\nb\nc\n", []Edit{{Search: "b\n", Replace: "B\n"}}, "a\nB\nc\n", ""},
		{"in order", "a\nb\n", []Edit{{Search: "a\n", Replace: "b\n"}, {Search: "b\nb\n", Replace: "c\n"}}, "c\n", ""},
		{"at the end", "a\nb", []Edit{{Search: "b", Replace: "bc"}}, "a\nbc", ""},
		{"not found", "a\n", []Edit{{Search: "b"}}, "", "edit 1 of f: search text not found"},
		{"twice", "a\nb\na\n", []Edit{{Search: "a\n"}}, "", "edit 1 of f: search text occurs more than once"},
		{"overlapping", "aaa", []Edit{{Search: "aa"}}, "", "edit 1 of f: search text occurs more than once"},
		{"twice after an edit", "a\nb\n", []Edit{{Search: "b\n", Replace: "a\n"}, {Search: "a\n"}}, "", "edit 2 of f: search text occurs more than once"},
		{"empty search, empty file", "", []Edit{{Replace: "new\n"}}, "new\n", ""},
		{"empty search", "a\n", []Edit{{Replace: "new\n"}}, "", "edit 1 of f: empty search on a non-empty file"},
	} {
		for i := range tc.edits {
			tc.edits[i].File = "f"
		}
		got, err := ApplyEdits([]byte(tc.content), tc.edits)
		if msg := fmt.Sprint(err); tc.err != "" && msg != tc.err || tc.err == "" && (err != nil || string(got) != tc.want) {
			t.Errorf("%s: %q, %v; want %q, %s", tc.name, got, err, tc.want, tc.err)
		}
	}
}
