package curate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// Targets are read in windows bounded by bytes, not only by task count:
// 600 tasks whose files to edit are ~100 KB each (60 MB of targets, far
// fewer than taskWindow tasks) are read in windows of about windowBytes,
// each task once, in id order; and curate-data reads them within the
// smallest memory limit [store] accepts.
func TestTargetsAreReadInWindowsBoundedByBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 60 MB of targets")
	}
	home := storetest.Home(t)
	storetest.SyntheticTasksSized(t, home, 600, 3_200)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := raw.DB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	starts, err := windowStarts(context.Background(), conn, kb.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) < 3 {
		t.Errorf("%d windows over 60 MB of targets, want one per ~%d MB", len(starts), windowBytes>>20)
	}
	sizes := storetest.RowsOf(t, raw.DB, `SELECT k.id, sum(strlen(t.target::VARCHAR)) FROM synthetic_tasks k
		JOIN synthetic_targets t ON t.task_id = k.id GROUP BY k.id ORDER BY k.id`)
	var maxTask int64
	bytesOf := map[string]int64{}
	for _, r := range sizes {
		var id string
		var n int64
		if _, err := fmt.Sscanf(r, "%s %d", &id, &n); err != nil {
			t.Fatal(err)
		}
		bytesOf[id], maxTask = n, max(maxTask, n)
	}
	var seen []string
	window, winBytes, winTasks := -1, int64(0), 0
	check := func() {
		if winBytes > windowBytes+maxTask || winTasks > taskWindow {
			t.Errorf("window %d holds %d tasks and %d bytes: over %d tasks or %d bytes", window, winTasks, winBytes, taskWindow, windowBytes+maxTask)
		}
	}
	err = eachTask(context.Background(), conn, Options{}, func(k *Task) error {
		if window+1 < len(starts) && k.ID == starts[window+1] {
			if window >= 0 {
				check()
			}
			window, winBytes, winTasks = window+1, 0, 0
		}
		winBytes += bytesOf[k.ID]
		winTasks++
		seen = append(seen, k.ID)
		return nil
	})
	check()
	conn.Close()
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 600 {
		t.Fatalf("read %d tasks, want 600", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("task %s read after %s: not in id order, or twice", seen[i], seen[i-1])
		}
	}

	kb.SetMemoryLimit("512MB")
	t.Cleanup(func() { kb.SetMemoryLimit("") })
	opts := testOptions("large")
	opts.Curate.PerRepoCap = 0
	if _, err := Curate(context.Background(), home, opts); err != nil {
		t.Fatalf("curate-data on 60 MB of targets within 512 MB: %v", err)
	}
}

// adds records each Add: one per transaction of example rows.
type adds struct{ n []int64 }

func (a *adds) Phase(string, int64) {}
func (a *adds) Add(n int64)         { a.n = append(a.n, n) }

// Example rows go in transactions of at most writeBatch rows and about
// writeBytes of text: 40 rows of 1 MB make three transactions or more, and
// 3,000 small rows two.
func TestExampleRowsAreWrittenInTransactionsBoundedByBytes(t *testing.T) {
	for _, c := range []struct {
		name        string
		rows, bytes int
		most        int64 // rows in a transaction
	}{
		{"large rows", 40, 1 << 20, 17}, // 16 MB of text
		{"small rows", 3000, 100, 2000},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := storetest.Home(t)
			var got adds
			err := kb.WithWriter(context.Background(), home, kb.Raw, kb.Options{}, func(w kb.Writer) error {
				b := &exampleBatch{w: &datasetWriter{Writer: w, name: "d", version: 1}, progress: &got}
				for i := range c.rows {
					err := b.add(context.Background(), kb.TrainingExample{ID: fmt.Sprint(i), Dataset: "d", Version: 1, Stage: "plan",
						Source: "synthetic", Split: kb.SplitTrain, RepoPath: "/r", TargetID: fmt.Sprint(i),
						Messages: []kb.Message{{Role: "user", Content: strings.Repeat("x", c.bytes)}}})
					if err != nil {
						return err
					}
				}
				return b.flush(context.Background())
			})
			if err != nil {
				t.Fatal(err)
			}
			total := int64(0)
			for _, n := range got.n {
				total += n
				if n > c.most {
					t.Errorf("a transaction of %d rows of %d bytes, want at most %d", n, c.bytes, c.most)
				}
			}
			if total != int64(c.rows) || len(got.n) < c.rows/int(c.most) {
				t.Errorf("transactions %v: %d rows in %d, want %d rows in at least %d", got.n, total, len(got.n), c.rows, c.rows/int(c.most))
			}
		})
	}
}
