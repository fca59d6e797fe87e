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
