package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// Home is cra's data directory ($CRA_HOME, --home, default ~/.cra).
type Home struct{ Dir string }

// ResolveHome picks the home: the flag, else $CRA_HOME, else ~/.cra.
func ResolveHome(flag string) (Home, error) {
	dir := flag
	if dir == "" {
		dir = os.Getenv("CRA_HOME")
	}
	if dir == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Home{}, err
		}
		dir = filepath.Join(h, ".cra")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Home{}, err
	}
	return Home{Dir: abs}, nil
}

func (h Home) ConfigPath() string  { return filepath.Join(h.Dir, "config.toml") }
func (h Home) SessionsDir() string { return filepath.Join(h.Dir, "sessions") }
func (h Home) ExportsDir() string  { return filepath.Join(h.Dir, "exports") }

// ExportDir is where `cra datasets export` writes dataset name's version
// in format when no --out is given: exports/NAME-vVERSION-FORMAT.
func (h Home) ExportDir(name string, version int, format string) string {
	return filepath.Join(h.ExportsDir(), fmt.Sprintf("%s-v%d-%s", name, version, format))
}

// Load reads the home's config.toml (defaults if absent).
func (h Home) Load() (Config, error) { return Load(h.ConfigPath()) }
