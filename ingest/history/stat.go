package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

const (
	// binarySniff is how much of a file git searches for a NUL byte to call
	// it binary.
	binarySniff = 8000
	// bigFileThreshold is git's core.bigFileThreshold default: larger files
	// are binary without being read.
	bigFileThreshold = 512 << 20
	// keepBuffer is the largest blob buffer a worker keeps for reuse.
	keepBuffer = 16 << 20
)

// statter computes the numstat line of a changed path.
type statter struct {
	objs *objects
	lc   lineCounter
	buf  [2][]byte
}

// stat compares the two sides of c as git's diffstat does: every side is
// text (a symlink's target, a submodule's "Subproject commit <hash>" line,
// nothing for an absent side); if either is binary the change is binary;
// identical contents (a mode change) count 0/0.
func (s *statter) stat(c change) (FileChange, error) {
	fc := FileChange{Path: c.path, From: blobID(c.from), To: blobID(c.to)}
	fc.Special = c.from.mode == modeSymlink || c.from.mode == modeGitlink ||
		c.to.mode == modeSymlink || c.to.mode == modeGitlink
	a, aBin, err := s.content(0, c.from)
	if err != nil {
		return fc, err
	}
	b, bBin, err := s.content(1, c.to)
	if err != nil {
		return fc, err
	}
	switch {
	case aBin || bBin:
		fc.Binary = true
	case c.from.hash == c.to.hash:
	default:
		fc.Insertions, fc.Deletions = s.lc.count(a, b)
	}
	for i, buf := range s.buf {
		if cap(buf) > keepBuffer {
			s.buf[i] = nil // one huge file should not pin its size for the rest of the walk
		}
	}
	return fc, nil
}

func (s *statter) content(slot int, sd side) (data []byte, binary bool, err error) {
	switch sd.mode {
	case modeNone:
		return nil, false, nil
	case modeGitlink:
		data = append(s.buf[slot][:0], "Subproject commit "...)
		data = append(data, sd.hash.String()...)
		data = append(data, '\n')
		s.buf[slot] = data
		return data, false, nil
	}
	obj, err := s.objs.object(plumbing.BlobObject, sd.hash)
	if err != nil {
		return nil, false, err
	}
	if obj.Size() > bigFileThreshold {
		return nil, true, nil
	}
	if obj.Size() > LazyObjectBytes {
		// A large binary blob (a model file, an archive) is known from its
		// first bytes, as git knows it: never inflate the rest.
		if binary, err := sniffBinary(obj); err != nil || binary {
			return nil, binary, err
		}
	}
	data, err = readAll(obj, s.buf[slot])
	if err != nil {
		return nil, false, err
	}
	s.buf[slot] = data
	return data, bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0, nil
}

// sniffBinary reads the first binarySniff bytes of obj and reports whether
// git would call it binary (a NUL byte among them).
func sniffBinary(obj plumbing.EncodedObject) (bool, error) {
	r, err := obj.Reader()
	if err != nil {
		return false, fmt.Errorf("read %s %s: %w", obj.Type(), obj.Hash(), err)
	}
	defer r.Close()
	head := make([]byte, binarySniff)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, fmt.Errorf("read %s %s: %w", obj.Type(), obj.Hash(), err)
	}
	return bytes.IndexByte(head[:n], 0) >= 0, nil
}

// blobID is the hex hash of one side of a change, "" when the path is absent.
func blobID(sd side) string {
	if sd.mode == modeNone {
		return ""
	}
	return sd.hash.String()
}
