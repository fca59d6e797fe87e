package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Bound keeps a value up to its limit as it is, and a longer one as its
// head, a marker naming its size and its tail, never over the limit and
// never splitting a character.
func TestBound(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 600) + strings.Repeat("z", 600)
	for _, tc := range []struct {
		name  string
		s     string
		limit int
		whole bool
	}{
		{"empty", "", 10, true},
		{"under", "abc", 4, true},
		{"at the limit", "abcd", 4, true},
		{"one over", strings.Repeat("x", 1001), 1000, false},
		{"far over", long, 200, false},
		{"multi-byte at the cuts", strings.Repeat("é", 1000), 301, false},
		{"limit under the marker", long, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Bound(tc.s, tc.limit)
			if tc.whole {
				if got != tc.s {
					t.Errorf("Bound changed a value within its limit: %q", got)
				}
				return
			}
			marker := fmt.Sprintf(boundMarker, tc.limit, len(tc.s))
			if !strings.Contains(got, marker) {
				t.Errorf("no marker naming the size %d: %q", len(tc.s), got)
			}
			if len(got) > max(tc.limit, len(marker)) {
				t.Errorf("%d bytes kept, limit %d", len(got), tc.limit)
			}
			if !utf8.ValidString(got) {
				t.Errorf("a character was split: %q", got)
			}
			head, tail, _ := strings.Cut(got, marker)
			if !strings.HasPrefix(tc.s, head) || !strings.HasSuffix(tc.s, tail) {
				t.Errorf("head %q or tail %q is not the value's", head, tail)
			}
			if tc.limit > 2*len(marker) && (head == "" || tail == "") {
				t.Errorf("head %d bytes, tail %d bytes: both ends must survive", len(head), len(tail))
			}
		})
	}
}

// A run's rows beside its calls are bounded: an attempt's raw answer, the
// final diff and the session archive keep their head, a marker and their
// tail; the archive stays a JSON object whose small keys are whole.
func TestRunRowsAreBounded(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	answer := "<edit>" + strings.Repeat("<x&>", MaxAttemptBytes) + "</edit>"
	diff := "diff --git a/f b/f\n" + strings.Repeat("+line\n", MaxDiffBytes/6+10) + "END OF DIFF"
	small := map[string]string{"task": "fix <add>"}
	s, err := OpenSession(dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []struct {
		key string
		v   any
	}{{"task_query", small}, {"stage_output_a", strings.Repeat("\"a<\"\n", MaxArchiveBytes/4)}, {"stage_output_b", strings.Repeat("b", MaxArchiveBytes)}} {
		if err := s.Put(kv.key, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	err = WithWriter(ctx, dir, Raw, Options{}, func(w Writer) error {
		id, err := BeginTaskRun(ctx, w.Conn, TaskRun{TaskID: "run1", RepoPath: "/r", Mode: "solve", ExecuteModel: "m", Started: time.Now()})
		if err != nil {
			return err
		}
		if _, err := RecordAttempt(ctx, w.Conn, RunAttempt{TaskRunID: id, Attempt: 1, RawResponse: answer, At: time.Now()}, nil); err != nil {
			return err
		}
		if err := FinishTaskRun(ctx, w.Conn, "run1", TaskRunEnd{FinalDiff: diff}); err != nil {
			return err
		}
		return w.Tx(ctx, func() error { return s.ArchiveRow(ctx, w.Conn, nil) })
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var raw, final string
	var blob []byte
	if err := st.DB.QueryRow(`SELECT a.raw_response, t.final_diff, s.session_blob FROM run_attempts a, task_runs t, session_archives s`).Scan(&raw, &final, &blob); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, got, orig string
		limit           int
	}{{"raw answer", raw, answer, MaxAttemptBytes}, {"final diff", final, diff, MaxDiffBytes}} {
		if len(c.got) > c.limit || !strings.Contains(c.got, fmt.Sprintf(boundMarker, c.limit, len(c.orig))) ||
			!strings.HasPrefix(c.got, c.orig[:100]) || !strings.HasSuffix(c.got, c.orig[len(c.orig)-100:]) {
			t.Errorf("%s: %d bytes (limit %d), start %.80q, end %q", c.name, len(c.got), c.limit, c.got, c.got[max(0, len(c.got)-80):])
		}
	}
	if len(blob) > MaxArchiveBytes {
		t.Errorf("archive of %d bytes, limit %d", len(blob), MaxArchiveBytes)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(blob, &keys); err != nil {
		t.Fatalf("the bounded archive is no JSON object: %v", err)
	}
	var task map[string]string
	if err := json.Unmarshal(keys["task_query"], &task); err != nil || task["task"] != small["task"] {
		t.Errorf("a small key changed: %s (%v)", keys["task_query"], err)
	}
	for _, k := range []string{"stage_output_a", "stage_output_b"} {
		var text string
		if err := json.Unmarshal(keys[k], &text); err != nil || !strings.Contains(text, "[cra: cut to ") {
			t.Errorf("%s: not kept as a bounded text with its marker: %.100s (%v)", k, keys[k], err)
		}
	}
}
