package version

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
)

// Binary identifies the code of the running executable, where String
// cannot (every build of a modified work tree is the same "+dirty"): its
// Go build id, which the go command derives from every input of the build
// and the linked binary's content, read from the executable's ELF note;
// or, where there is none (another object format, a build with
// -buildid=), the SHA-256 of the executable file. Computed once, on first
// use: hashing a file of 150 MB is not free.
func Binary() (string, error) { return binaryID() }

var binaryID = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("the running executable: %w", err)
	}
	return fileID(exe)
})

// fileID is Binary for the executable at path.
func fileID(path string) (string, error) {
	if id := goBuildID(path); id != "" {
		return "go:" + id, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// goBuildID reads the Go build id note of the ELF file at path ("" when
// it is not ELF or has none): the note named "Go" of type 4 that the Go
// linker writes.
func goBuildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	d, err := s.Data()
	if err != nil || len(d) < 12 {
		return ""
	}
	order := f.ByteOrder
	nameSize, descSize, typ := order.Uint32(d), order.Uint32(d[4:]), order.Uint32(d[8:])
	start := 12 + uint64(nameSize+3)&^3
	if typ != 4 || nameSize < 2 || string(d[12:14]) != "Go" || start+uint64(descSize) > uint64(len(d)) {
		return ""
	}
	return string(d[start : start+uint64(descSize)])
}
