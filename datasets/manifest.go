package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// Manifest describes an export: what it holds and how to check it.
type Manifest struct {
	SchemaVersion int                       `json:"schema_version"`
	Dataset       string                    `json:"dataset"`
	Version       int                       `json:"version"` // the dataset's version: NAME@VERSION exports these rows again
	Format        string                    `json:"format"`  // parquet or jsonl
	CraVersion    string                    `json:"cra_version"`
	CreatedAt     time.Time                 `json:"created_at"`
	Counts        map[string]map[string]int `json:"counts"` // stage → split → rows
	Files         []FileEntry               `json:"files"`
	Criteria      json.RawMessage           `json:"criteria,omitempty"`
}

// FileEntry is one shard of an export.
type FileEntry struct {
	Path   string `json:"path"` // relative to the export directory, slash-separated
	Stage  string `json:"stage"`
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
