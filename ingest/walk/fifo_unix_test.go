//go:build unix

package walk

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe would block a reader forever: it must be skipped unread.
func TestDirNamedPipe(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "z.txt"), []byte("z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := collect(t, func(fn func(Entry) error) error { return Dir(t.Context(), root, Options{}, fn) })
	if len(got) != 2 || got[0].Path != "pipe" || got[0].Skip != SkipUnreadable || got[0].Detail != "not a regular file (named pipe)" || got[1].Skip != "" {
		t.Errorf("got %+v, want pipe unreadable (named pipe) then z.txt indexed", got)
	}
}
