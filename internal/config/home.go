package config

import (
	"errors"
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
// in a layout and format when no --out is given:
// exports/NAME-vVERSION-LAYOUT-FORMAT, or exports/NAME-vVERSION-FORMAT for
// the default layout (layout "").
func (h Home) ExportDir(name string, version int, layout, format string) string {
	if layout != "" {
		format = layout + "-" + format
	}
	return filepath.Join(h.ExportsDir(), fmt.Sprintf("%s-v%d-%s", name, version, format))
}

// Load reads the home's config.toml (defaults if absent).
func (h Home) Load() (Config, error) { return Load(h.ConfigPath()) }

// HomeError says the home directory cannot be used as one (a usage error:
// the path is a file, or cannot be created).
type HomeError struct {
	Dir string
	Err error
}

func (e *HomeError) Error() string {
	return fmt.Sprintf("home %s: %v: pass --home (or set CRA_HOME) to a directory cra may create", e.Dir, e.Err)
}

func (e *HomeError) Unwrap() error { return e.Err }

// Init creates the home's directories and its config.toml (see InitFile for
// what happens to an existing one, and choice), and checks that the config
// it leaves loads. It returns what was done to config.toml: created,
// updated or kept. The stores are kb.Init's.
func (h Home) Init(choice ModelChoice) (string, error) {
	if fi, err := os.Stat(h.Dir); err == nil && !fi.IsDir() {
		return "", &HomeError{Dir: h.Dir, Err: errors.New("is a file, not a directory")}
	}
	for _, d := range []string{h.Dir, h.SessionsDir(), h.ExportsDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", &HomeError{Dir: h.Dir, Err: err}
		}
	}
	action, err := InitFile(h.ConfigPath(), choice)
	if err != nil {
		return "", err
	}
	if _, err := h.Load(); err != nil {
		return "", err // an existing config.toml that was kept must still be valid
	}
	return action, nil
}
