package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/kb"
)

// A repository another run holds is skipped and reported busy with the
// holder's pid and command (exit 1), or waited for with --wait; the same
// for each batch command that takes a repository.
func TestBatchCommandsSkipOrWaitForABusyRepository(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	mustRun(t, home, "index", r.Dir)
	for _, tc := range []struct {
		batch string
		args  []string
	}{
		{"bootstrap", []string{"bootstrap", r.Dir}},
		{"index", []string{"index", r.Dir}},
		{"enrich", []string{"enrich", r.Dir}},
	} {
		t.Run(tc.batch, func(t *testing.T) {
			held, err := kb.LockInput(context.Background(), home, tc.batch, kb.CanonicalPath(r.Dir), "cra "+tc.batch+" (the other run)", 0)
			if err != nil {
				t.Fatal(err)
			}
			res := cra(t, home, "", tc.args...)
			holder := fmt.Sprintf("pid %d, cra %s (the other run)", os.Getpid(), tc.batch)
			if res.code != exitFailures || !strings.Contains(res.stdout+res.stderr, holder) {
				t.Errorf("held: exit %d, stdout %q, stderr %q; want exit 1 naming %q", res.code, res.stdout, res.stderr, holder)
			}
			if tc.batch == "enrich" {
				held.Release()
				return // enrich needs a model to go further; the lock is what is tested
			}
			time.AfterFunc(300*time.Millisecond, func() { held.Release() })
			start := time.Now()
			res = cra(t, home, "", append([]string{tc.args[0], "--wait", "1m"}, tc.args[1:]...)...)
			if res.code != exitOK || time.Since(start) < 300*time.Millisecond {
				t.Errorf("--wait: exit %d after %v (%s); want 0 once the other run let go", res.code, time.Since(start), res.stderr)
			}
		})
	}
}

// curate-data locks the dataset name for its whole run: a second run on
// the same name exits 1 naming the holder, or waits for it with --wait.
func TestCurateDataLocksTheDatasetName(t *testing.T) {
	home := newHome(t)
	r := clitest.HistoryRepo(t)
	mustRun(t, home, "bootstrap", r.Dir)
	clitest.TrainAll(t, home)
	held, err := kb.LockInput(context.Background(), home, curate.DatasetLock, "rel", "cra curate-data --name rel (the other run)", 0)
	if err != nil {
		t.Fatal(err)
	}
	res := cra(t, home, "", "curate-data", "--name", "rel")
	if res.code != exitFailures || !strings.Contains(res.stderr, fmt.Sprintf("pid %d, cra curate-data --name rel (the other run)", os.Getpid())) {
		t.Errorf("held: exit %d, stderr %q; want exit 1 naming the holder", res.code, res.stderr)
	}
	if res := cra(t, home, "", "curate-data", "--name", "other"); res.code != exitOK {
		t.Errorf("another name: exit %d (%s); want 0", res.code, res.stderr)
	}
	time.AfterFunc(300*time.Millisecond, func() { held.Release() })
	if res := cra(t, home, "", "curate-data", "--name", "rel", "--wait", "1m"); res.code != exitOK {
		t.Errorf("--wait: exit %d (%s); want 0 once the other run let go", res.code, res.stderr)
	}
}
