package lang

import (
	"testing"
	"unsafe"
)

// TestOwnDetachesFacts checks that strings sliced from a file's source are
// copied before they go into facts, and others are kept as they are.
func TestOwnDetachesFacts(t *testing.T) {
	f := newFile("a.py", Python, []byte("def run(key): pass\n\xff"))
	inSource := func(s string) bool {
		p, base := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(f.str)))
		return base <= p && p < base+uintptr(len(f.str))
	}
	name := f.str[4:7]
	if !inSource(name) {
		t.Fatal("test setup: name is not a slice of the source")
	}
	if got := f.own(name); got != "run" || inSource(got) {
		t.Errorf("own(%q) = %q, in source %v", name, got, inSource(got))
	}
	if got := f.own(f.str[len(f.str)-1:]); got != "\uFFFD" {
		t.Errorf("own(invalid) = %q", got)
	}
	other := "panic"
	if got := f.own(other); unsafe.StringData(got) != unsafe.StringData(other) {
		t.Error("own copied a string that is not part of the source")
	}
}
