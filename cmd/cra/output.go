package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc
}

// humanBytes writes n the way people read sizes.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// spoolMemory is how much of a result a spool keeps in memory before it
// moves to a temporary file.
const spoolMemory = 16 << 20

// spool holds a command's output while the stores are open, to be written
// out after they are closed: a slow reader of stdout (a pager, a full
// pipe) must not keep a writer waiting for the stores. It keeps up to
// spoolMemory bytes in memory, the rest in an unlinked temporary file.
type spool struct {
	buf bytes.Buffer
	f   *os.File
}

func (s *spool) Write(p []byte) (int, error) {
	if s.f == nil && s.buf.Len()+len(p) > spoolMemory {
		f, err := os.CreateTemp("", "cra-output-*")
		if err != nil {
			return 0, fmt.Errorf("hold the output: %w", err)
		}
		_ = os.Remove(f.Name()) // gone with the process, whatever happens
		if _, err := s.buf.WriteTo(f); err != nil {
			f.Close()
			return 0, fmt.Errorf("hold the output: %w", err)
		}
		s.f = f
	}
	if s.f != nil {
		return s.f.Write(p)
	}
	return s.buf.Write(p)
}

// flush writes what the spool holds to w and empties it.
func (s *spool) flush(w io.Writer) error {
	if s.f == nil {
		_, err := s.buf.WriteTo(w)
		return err
	}
	defer func() { s.f.Close(); s.f = nil }()
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	return err
}

// discard empties the spool without writing it.
func (s *spool) discard() {
	s.buf.Reset()
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
