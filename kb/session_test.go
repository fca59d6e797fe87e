package kb

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"
)

func TestSessionPersistsAndArchives(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	s, err := OpenSession(dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put("task_query", map[string]string{"task": "t"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("stage_progress", map[string][]string{"completed": {"scope"}, "remaining": {"plan"}}); err != nil {
		t.Fatal(err)
	}
	// A killed run leaves the state it reached: reopening reads it back.
	again, err := OpenSession(dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	var progress map[string][]string
	if ok, err := again.Get("stage_progress", &progress); !ok || err != nil || progress["completed"][0] != "scope" {
		t.Fatalf("reopened: %v %v %v", progress, ok, err)
	}
	if !reflect.DeepEqual(again.Keys(), []string{"stage_progress", "task_query"}) {
		t.Errorf("keys %v", again.Keys())
	}
	if err := WithWriter(context.Background(), dir, Raw, Options{}, func(w Writer) error { return again.Archive(context.Background(), w) }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(again.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the session file is left after archiving: %v", err)
	}
	st, err := Open(context.Background(), dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var blob []byte
	if err := st.DB.QueryRow(`SELECT session_blob FROM session_archives WHERE task_id = 'run1'`).Scan(&blob); err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(blob, &keys); err != nil || len(keys) != 2 {
		t.Errorf("archived %s (%v)", blob, err)
	}
}

// PutAll puts its keys together or not at all: the keys a kill must
// never separate (a step's result and the cumulative diff) are one write.
func TestSessionPutAllIsAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := OpenSession(dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutAll(map[string]any{"step_result:p1:s1": "ok", "cumulative_diff": "+x"}); err != nil {
		t.Fatal(err)
	}
	again, err := OpenSession(dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Keys(), []string{"cumulative_diff", "step_result:p1:s1"}) {
		t.Errorf("keys on disk %v", again.Keys())
	}
	// A value that cannot be encoded: neither key changes, in memory or
	// on disk.
	if err := s.PutAll(map[string]any{"step_result:p1:s2": "ok", "cumulative_diff": make(chan int)}); err == nil {
		t.Fatal("a channel was encoded")
	}
	again, err = OpenSession(dir, "run1")
	if err != nil {
		t.Fatal(err)
	}
	var diff string
	for name, sess := range map[string]*Session{"in memory": s, "on disk": again} {
		if ok, _ := sess.Get("step_result:p1:s2", new(string)); ok {
			t.Errorf("%s: the second step's result was put without its diff", name)
		}
		if _, err := sess.Get("cumulative_diff", &diff); err != nil || diff != "+x" {
			t.Errorf("%s: cumulative diff %q %v, want the first step's", name, diff, err)
		}
	}
}
