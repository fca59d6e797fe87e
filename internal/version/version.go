// Package version tells which cra is running: the module version and the
// VCS revision the binary was built from (runtime/debug.ReadBuildInfo), as
// `cra version` prints it and as run rows, manifests and dataset cards
// record it.
package version

import (
	"runtime/debug"
	"strings"
	"sync"
)

// String is cra's version: the module version (v1.2.3 when installed with
// `go install ...@v1.2.3`, "(devel)" for a build from a checkout), then the
// VCS revision, "+dirty" when built from a modified work tree.
func String() string { return read() }

var read = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return format(info)
})

func format(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if strings.Contains(v, rev) {
		return v // a pseudo-version (go 1.24+ stamps one from VCS) names the revision already
	}
	if dirty {
		rev += "+dirty"
	}
	return v + " " + rev
}
