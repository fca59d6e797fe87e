package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Manifest describes an export: what it holds and how to check it.
type Manifest struct {
	SchemaVersion int       `json:"schema_version"`
	Dataset       string    `json:"dataset"`
	Version       int       `json:"version"` // the dataset's version: NAME@VERSION exports these rows again
	Format        string    `json:"format"`  // parquet or jsonl
	Layout        string    `json:"layout"`  // trl, openai or axolotl
	CraVersion    string    `json:"cra_version"`
	CreatedAt     time.Time `json:"created_at"`
	Counts        Counts    `json:"counts"`
	// LeftOut counts the rows of kinds the export did not select (--kinds).
	LeftOut  map[string]int  `json:"left_out,omitempty"`
	Files    []FileEntry     `json:"files"`
	Criteria json.RawMessage `json:"criteria,omitempty"`
	// EnableThinking is the chat_template_kwargs.enable_thinking of every
	// trl row: what inference sends (models.think).
	EnableThinking bool `json:"enable_thinking"`
	// Warnings name what a trainer of the layout will refuse (an openai
	// split of fewer than 10 rows); the card repeats them.
	Warnings []string `json:"warnings,omitempty"`
}

// Counts are rows by stage, then kind, then split: the directories of an
// export, <stage>/<kind>/<split>-*.
type Counts map[string]map[string]map[string]int

func (c Counts) add(stage, kind, split string, n int) {
	if c[stage] == nil {
		c[stage] = map[string]map[string]int{}
	}
	if c[stage][kind] == nil {
		c[stage][kind] = map[string]int{}
	}
	c[stage][kind][split] += n
}

// FileEntry is one shard of an export.
type FileEntry struct {
	Path   string `json:"path"` // relative to the export directory, slash-separated
	Stage  string `json:"stage"`
	Kind   string `json:"kind"` // sft, preference or kto: the file's columns are the layout's for it
	Split  string `json:"split"`
	Rows   int    `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ManifestFile is the manifest's name in an export directory.
const ManifestFile = "manifest.json"

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
