package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cra-dev/cra/kb"
)

// Report is what Inspect found in an export directory.
type Report struct {
	Dataset  string                    `json:"dataset"`
	Version  int                       `json:"version"`
	Format   string                    `json:"format"`
	Counts   map[string]map[string]int `json:"counts"`
	Files    int                       `json:"files"`
	Problems []string                  `json:"problems"` // empty when the export matches its manifest
	Preview  map[string]string         `json:"preview"`  // stage → the first example's user turn, shortened
}

// Inspect reads every file of an export back and checks it against the
// manifest: each file's sha256 and row count, the schema (Parquet) or the
// row shape (JSON Lines). Mismatches are listed in Problems, each naming
// the file; an error means the directory could not be read at all.
func Inspect(ctx context.Context, dir string) (*Report, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	rep := &Report{Dataset: m.Dataset, Version: m.Version, Format: m.Format, Counts: map[string]map[string]int{}, Files: len(m.Files),
		Problems: []string{}, Preview: map[string]string{}}
	for _, f := range m.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if sum, err := fileSHA256(p); err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %v", f.Path, err))
			continue
		} else if sum != f.SHA256 {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: sha256 %s, the manifest says %s", f.Path, sum, f.SHA256))
		}
		rows := 0
		err := ReadFile(ctx, p, m.Format, func(e kb.TrainingExample) error {
			rows++
			if e.Stage != f.Stage || e.Split != f.Split {
				return fmt.Errorf("row %s is %s/%s in a %s/%s file", e.ID, e.Stage, e.Split, f.Stage, f.Split)
			}
			if _, ok := rep.Preview[e.Stage]; !ok && len(e.Messages) > 1 {
				rep.Preview[e.Stage] = shorten(e.Messages[1].Content, 200)
			}
			return nil
		})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %v", f.Path, err))
			continue
		}
		if rows != f.Rows {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %d rows, the manifest says %d", f.Path, rows, f.Rows))
		}
		if rep.Counts[f.Stage] == nil {
			rep.Counts[f.Stage] = map[string]int{}
		}
		rep.Counts[f.Stage][f.Split] += rows
	}
	for stage, splits := range m.Counts {
		for split, n := range splits {
			if got := rep.Counts[stage][split]; got != n {
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s/%s: %d rows in the files, the manifest counts %d", stage, split, got, n))
			}
		}
	}
	return rep, nil
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
