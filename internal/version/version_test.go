package version

import (
	"runtime/debug"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1836087abcdef0123456789"}, {Key: "vcs.modified", Value: "false"}}}, "(devel) 1836087abcde"},
		{"dirty", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1836087abcdef0123456789"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) 1836087abcde+dirty"},
		{"no version", debug.BuildInfo{}, "(devel)"},
		{"pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124191910-1836087abcde+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "1836087abcdef0123456789"}, {Key: "vcs.modified", Value: "true"}}}, "v0.0.0-20261124191910-1836087abcde+dirty"},
	} {
		if got := format(&tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if String() == "" || String() == "dev" {
		t.Errorf("String() = %q", String())
	}
}
