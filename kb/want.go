package kb

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// How a Lease learns that another writer or a reader wants its store.
// Opening and closing DuckDB costs tens of milliseconds of CPU each time
// (the instance, the catalog, the checkpoint), so a lease keeps its store
// open between writes for as long as writes keep coming — up to its hold
// — unless someone else wants the store: a process refused because a
// writer holds the store touches "<store>.want", and the lease, which
// looks at that file's time every idle period, lets go as soon as it
// changed after the lease opened the store. A program that does not take
// cra's turns (the DuckDB CLI) waits at most the hold.

func wantPath(store string) string { return store + ".want" }

// wantSlack covers the file system's coarse clock: a want noted just
// after the lease opened may carry a time slightly before it.
const wantSlack = 20 * time.Millisecond

// signalWant notes that this process wants store, which a writer holds.
// A failure only costs the wait until the holder's hold ends.
func signalWant(store string) {
	p, now := wantPath(store), time.Now()
	if err := os.Chtimes(p, now, now); errors.Is(err, fs.ErrNotExist) {
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			f.Close()
		}
	}
}

// wantedSince says whether a process wanted store since t.
func wantedSince(store string, t time.Time) bool {
	fi, err := os.Stat(wantPath(store))
	return err == nil && !fi.ModTime().Before(t.Add(-wantSlack))
}
