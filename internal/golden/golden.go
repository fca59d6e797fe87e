// Package golden compares test output with files under testdata/, and
// rewrites them when tests run with -update. Tests only.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the output the tests produce")

// Assert fails t when got differs from the golden file at path; with -update
// it writes got there instead.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run the test with -update to create it)", path, err)
	}
	if string(want) != string(got) {
		t.Error(mismatch(path, string(want), string(got)))
	}
}

// mismatch is Assert's failure message: where the output differs from the
// golden file, as a line diff a reader can act on without dumping both
// outputs whole.
func mismatch(path, want, got string) string {
	return "output differs from " + path + " (run with -update if the change is intended)\n" +
		diff(path, "got", want, got)
}
