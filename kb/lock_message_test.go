package kb

import (
	"testing"
	"time"
)

// The holder a refused process is told about: its pid, what it runs when
// it said so, and since when; never an empty field between commas.
func TestLockedErrorNamesTheHolder(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		err  LockedError
		want string
	}{
		{LockedError{Store: "raw.duckdb", PID: 12, Command: "cra bootstrap", Since: since},
			"another cra process (pid 12, cra bootstrap, since 2026-11-26T09:00:00Z) holds raw.duckdb for writing: wait for it to finish, or stop it, then run again"},
		{LockedError{Store: "raw.duckdb", PID: 27481, Since: since, Reading: true},
			"another cra process (pid 27481, since 2026-11-26T09:00:00Z) holds raw.duckdb open for reading: wait for it to finish, or stop it, then run again"},
		{LockedError{Store: "raw.duckdb"}, "another process holds raw.duckdb for writing: wait for it to finish, or stop it, then run again"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%q\nwant %q", got, tc.want)
		}
	}
}
