package evaltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// UsePython puts the directory of the interpreter `python3` runs first on
// this process's PATH (so its children's too) when PATH's python3 is a
// version manager's shim, such as pyenv's: each start of a shim runs a
// shell script and its helpers, which cost as much again as the
// interpreter's own start, and the fixtures' test commands start python3
// hundreds of times in a package. A TestMain calls it; without python3 it
// does nothing.
func UsePython() {
	shim, err := exec.LookPath("python3")
	if err != nil {
		return
	}
	out, err := exec.Command(shim, "-c", "import sys; print(sys.executable)").Output()
	real := strings.TrimSpace(string(out))
	if err != nil || real == "" || filepath.Dir(real) == filepath.Dir(shim) {
		return
	}
	os.Setenv("PATH", filepath.Dir(real)+string(os.PathListSeparator)+os.Getenv("PATH")) //nolint:errcheck // PATH is always settable
}
