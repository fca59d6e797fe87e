package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The running binary is named by its Go build id where the go command
// wrote one (this test binary has one), the same id `go tool buildid`
// prints; a file without one by the hash of its bytes, so two files differ.
func TestBinaryIsTheBuildIDOrTheFileHash(t *testing.T) {
	id, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		exe, _ := os.Executable()
		want, err := exec.Command("go", "tool", "buildid", exe).Output()
		if err != nil {
			t.Skipf("go tool buildid: %v", err)
		}
		if id != "go:"+strings.TrimSpace(string(want)) {
			t.Errorf("Binary() = %q; go tool buildid says %q", id, want)
		}
	}

	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("#!/bin/sh\necho a\n"), 0o755) //nolint:errcheck // read back below
	os.WriteFile(b, []byte("#!/bin/sh\necho b\n"), 0o755) //nolint:errcheck
	ida, err := fileID(a)
	if err != nil {
		t.Fatal(err)
	}
	idb, _ := fileID(b)
	if !strings.HasPrefix(ida, "sha256:") || ida == idb {
		t.Errorf("files without a build id: %q and %q; want two different sha256 ids", ida, idb)
	}
	if again, _ := fileID(a); again != ida {
		t.Errorf("the same file: %q then %q", ida, again)
	}
}
