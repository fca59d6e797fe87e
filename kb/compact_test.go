package kb

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// Compact gives back the space deleted rows left, keeps every row and the
// sequences' positions, and refuses while another process has the store.
func TestCompactShrinksAndKeepsEveryRow(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	s, err := Open(ctx, dir, Raw, Options{Write: true, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO bootstrap_runs (started_at, repos, status, options) SELECT now(), 1, 'ok', '{}' FROM range(3)`,
		`INSERT INTO training_examples (id, dataset, stage, source, split, label, repo_path, target_id, messages,
			prompt_tokens, completion_tokens, created_at)
		 SELECT 'id' || i, CASE WHEN i < 190000 THEN 'old' ELSE 'kept' END, 'scope', 'synthetic', 'train', 'positive', '/r', 't' || i,
			[{'role': 'user', 'content': repeat('x', 200) || i}], 1, 1, now() FROM range(200000) r(i)`,
		`DELETE FROM training_examples WHERE dataset = 'old'`,
	} {
		if _, err := s.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	res, err := Compact(ctx, dir, Raw, "cra compact")
	if err != nil {
		t.Fatal(err)
	}
	if res.BytesAfter >= res.BytesBefore/2 || res.Tables["training_examples"] != 10000 || res.Tables["bootstrap_runs"] != 3 {
		t.Errorf("compact: %d → %d bytes, tables %v; want less than half the size and every row", res.BytesBefore, res.BytesAfter, res.Tables)
	}
	s, err = Open(ctx, dir, Raw, Options{Write: true, Command: "test"})
	if err != nil {
		t.Fatalf("the compacted store does not open: %v", err)
	}
	var id int64
	if err := s.DB.QueryRow(`INSERT INTO bootstrap_runs (started_at, repos, status, options) VALUES (now(), 1, 'ok', '{}') RETURNING id`).Scan(&id); err != nil || id != 4 {
		t.Errorf("the next run id after compact is %d (%v), want 4: the sequence moved back", id, err)
	}
	s.Close()
	if _, err := os.Stat(Raw.Path(dir) + ".compact"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary copy is left behind: %v", err)
	}

	// Another process with the store open, reading or writing: refused.
	for name, start := range map[string]func(*testing.T, string) (*exec.Cmd, func()){"reader": startReader, "writer": startHolder} {
		cmd, stop := start(t, dir)
		_, err := Compact(ctx, dir, Raw, "cra compact")
		stop()
		var le *LockedError
		if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
			t.Errorf("%s holding the store: %v; want a LockedError naming pid %d", name, err, cmd.Process.Pid)
		}
	}
}
