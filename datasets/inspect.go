package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cra-dev/cra/kb"
)

// InspectResult is what Inspect found in an export directory.
type InspectResult struct {
	Dataset  string            `json:"dataset"`
	Version  int               `json:"version"`
	Format   string            `json:"format"`
	Layout   string            `json:"layout"`
	Counts   Counts            `json:"counts"` // stage → kind → split → rows read
	Files    int               `json:"files"`
	Problems []string          `json:"problems"` // empty when the export matches its manifest
	Preview  map[string]string `json:"preview"`  // config (stage-kind) → the first example's user turn, shortened
}

// Inspect reads every file of an export back and checks it against the
// manifest: each file's sha256 and row count, its columns (the layout's
// for the file's kind: the Parquet schema, or each JSON Lines row's keys),
// each row's stage, kind and split, and a trl row's enable_thinking.
// Mismatches are listed in Problems, each naming the file; an error means
// the directory could not be read at all (no manifest, or one of another
// schema version).
func Inspect(ctx context.Context, dir string) (*InspectResult, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if m.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema version %d, this cra reads %d: export the dataset again (cra datasets export %s@%d)",
			dir, m.SchemaVersion, SchemaVersion, m.Dataset, m.Version)
	}
	rep := &InspectResult{Dataset: m.Dataset, Version: m.Version, Format: m.Format, Layout: m.Layout, Counts: Counts{}, Files: len(m.Files),
		Problems: []string{}, Preview: map[string]string{}}
	for _, f := range m.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if sum, err := fileSHA256(p); err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %v", f.Path, err))
			continue
		} else if sum != f.SHA256 {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: sha256 %s, the manifest says %s", f.Path, sum, f.SHA256))
		}
		sh := shapeOf(m.Layout, f.Kind)
		if sh == nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: layout %q has no kind %q", f.Path, m.Layout, f.Kind))
			continue
		}
		rows := 0
		err := readShard(ctx, p, m.Format, sh, func(e *example) error {
			rows++
			if e.Stage != f.Stage || e.Split != f.Split {
				return fmt.Errorf("row %s is %s/%s in a %s/%s file", e.ID, e.Stage, e.Split, f.Stage, f.Split)
			}
			if m.Layout == LayoutTRL && e.thinking != m.EnableThinking {
				return fmt.Errorf("row %s has enable_thinking %v, the manifest says %v", e.ID, e.thinking, m.EnableThinking)
			}
			config := configName(e.Stage, e.Kind)
			if _, ok := rep.Preview[config]; !ok {
				if u := userTurn(e.Messages); u != "" {
					rep.Preview[config] = shorten(u, 200)
				}
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
		rep.Counts.add(f.Stage, f.Kind, f.Split, rows)
	}
	for _, stage := range sortedKeys(m.Counts) {
		for _, kind := range sortedKeys(m.Counts[stage]) {
			for _, split := range sortedKeys(m.Counts[stage][kind]) {
				if got, n := rep.Counts[stage][kind][split], m.Counts[stage][kind][split]; got != n {
					rep.Problems = append(rep.Problems, fmt.Sprintf("%s/%s/%s: %d rows in the files, the manifest counts %d", stage, kind, split, got, n))
				}
			}
		}
	}
	return rep, nil
}

// userTurn is the content of the first user message ("" if none).
func userTurn(msgs []kb.Message) string {
	for _, m := range msgs {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
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
