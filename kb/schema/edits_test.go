package schema

import "testing"

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
