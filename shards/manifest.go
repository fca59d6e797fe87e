package shards

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
)

// ManifestFormat is the manifest layout this cra writes and reads.
const ManifestFormat = 1

// manifestsDir holds one manifest per shard; tmpDir the exports under way.
const (
	manifestsDir = "_shards"
	tmpDir       = "_tmp"
)

// Manifest commits one generation of one shard: the files it names are
// the shard; any other file under DIR/<table>/shard=K/ is a generation
// being written or one replaced, and no cra reader looks at it.
type Manifest struct {
	Format        int                  `json:"format"`
	Shard         int                  `json:"shard"`
	Count         int                  `json:"count"` // N when it was exported
	HomeID        string               `json:"home_id"`
	Generation    string               `json:"generation"`
	ExportedAt    string               `json:"exported_at"`
	CraVersion    string               `json:"cra_version"`
	SchemaVersion int                  `json:"raw_schema_version"`
	Tables        map[string]TableFile `json:"tables"`
}

// TableFile is one table's file in a generation.
type TableFile struct {
	File string `json:"file"` // relative to DIR, slash-separated
	Rows int64  `json:"rows"`
}

func manifestPath(dir string, k int) string {
	return filepath.Join(dir, manifestsDir, fmt.Sprintf("shard=%d.json", k))
}

func tableDir(dir, table string, k int) string {
	return filepath.Join(dir, table, fmt.Sprintf("shard=%d", k))
}

// readManifest is shard k's manifest; nil when it has none.
func readManifest(dir string, k int) (*Manifest, error) {
	b, err := os.ReadFile(manifestPath(dir, k))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w (a damaged manifest: export shard %d again)", manifestPath(dir, k), err, k)
	}
	if m.Format > ManifestFormat {
		return nil, fmt.Errorf("%s has format %d but this cra reads up to %d: upgrade cra", manifestPath(dir, k), m.Format, ManifestFormat)
	}
	return &m, nil
}

// Committed are the manifests of every committed shard of dir, by shard.
// A dir that does not exist is a usage error; one with no manifest yet
// has no shard.
func Committed(dir string) ([]*Manifest, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usage.Errorf("%s is not a folder of exported shards (run `cra shards export --out %s` first)", dir, dir)
	}
	entries, err := os.ReadDir(filepath.Join(dir, manifestsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Manifest
	for _, e := range entries {
		name := e.Name()
		ks, ok := strings.CutPrefix(strings.TrimSuffix(name, ".json"), "shard=")
		k, err := strconv.Atoi(ks)
		if !ok || err != nil || !strings.HasSuffix(name, ".json") {
			continue // a manifest being written (.tmp) or not ours
		}
		m, err := readManifest(dir, k)
		if err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Shard < out[j].Shard })
	return out, nil
}

// path is table's file in the generation m commits, under dir.
func (m *Manifest) path(dir, table string) (string, bool) {
	f, ok := m.Tables[table]
	if !ok {
		return "", false
	}
	return filepath.Join(dir, filepath.FromSlash(f.File)), true
}

// writeManifest commits m: written to a temporary name, synced, and
// renamed over the shard's manifest, so a reader finds the old one or the
// new one, whole.
func writeManifest(dir string, m *Manifest) error {
	if err := os.MkdirAll(filepath.Join(dir, manifestsDir), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	final := manifestPath(dir, m.Shard)
	tmp := final + ".tmp-" + m.Generation
	if err := writeSynced(tmp, append(b, '\n')); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(final))
}

func writeSynced(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// syncDir makes a rename in dir durable (on file systems that allow it:
// some network ones refuse fsync on a folder, which is not an error here).
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	f.Sync() //nolint:errcheck // see above
	return f.Close()
}
