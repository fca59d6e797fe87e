package kb

import (
	"context"
	"strings"
	"testing"
	"time"
)

func stagedExample(dataset string, version int, id string) TrainingExample {
	return TrainingExample{ID: id, Dataset: dataset, Version: version, Stage: "scope", Source: "synthetic", Split: SplitTrain,
		Label: LabelPositive, RepoPath: "/r", TargetID: id, Messages: []Message{{Role: "user", Content: "q"}}, CreatedAt: time.Unix(0, 0)}
}

func countRows(t *testing.T, dir, q string) int {
	t.Helper()
	s, err := Open(context.Background(), dir, Raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.DB.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Staged examples are rows of training_examples only once their version is
// registered, in the registering transaction; a registration whose count
// is not what was staged registers nothing; the next build of the name
// clears what a dead one staged.
func TestStagedExamplesBecomeVisibleWhenRegistered(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	write := func(fn func(w Writer) error) error {
		return WithWriter(ctx, dir, Raw, Options{Command: "test"}, func(w Writer) error { return w.Tx(ctx, func() error { return fn(w) }) })
	}
	version := func(v, examples int) DatasetVersion {
		return DatasetVersion{Name: "d", Version: v, TrainingPlanID: 1, Examples: examples, Criteria: []byte(`{}`), Created: time.Unix(0, 0)}
	}
	visible := "SELECT count(*) FROM training_examples WHERE dataset = 'd'"
	if err := write(func(w Writer) error {
		return StageTrainingExamples(ctx, w, []TrainingExample{stagedExample("d", 1, "a"), stagedExample("d", 1, "b")})
	}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, dir, visible); n != 0 {
		t.Fatalf("%d rows of an unregistered version visible", n)
	}
	err := write(func(w Writer) error { return RegisterDatasetVersion(ctx, w, version(1, 3)) })
	if err == nil || !strings.Contains(err.Error(), "2 examples staged, 3 counted") {
		t.Errorf("registering 3 examples with 2 staged: %v", err)
	}
	if n := countRows(t, dir, visible) + countRows(t, dir, "SELECT count(*) FROM dataset_versions"); n != 0 {
		t.Errorf("a refused registration left %d rows", n)
	}
	if err := write(func(w Writer) error { return RegisterDatasetVersion(ctx, w, version(1, 2)) }); err != nil {
		t.Fatal(err)
	}
	if n, s := countRows(t, dir, visible), countRows(t, dir, "SELECT count(*) FROM training_examples_staging"); n != 2 || s != 0 {
		t.Errorf("after registering: %d rows visible, %d staged; want 2 and 0", n, s)
	}

	// A build of version 2 dies after staging; the next one starts afresh.
	if err := write(func(w Writer) error {
		return StageTrainingExamples(ctx, w, []TrainingExample{stagedExample("d", 2, "a"), stagedExample("e", 1, "x")})
	}); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := write(func(w Writer) (err error) { v, err = NextDatasetVersion(ctx, w, "d"); return err }); err != nil || v != 2 {
		t.Fatalf("next version %d (%v), want 2", v, err)
	}
	if n := countRows(t, dir, "SELECT count(*) FROM training_examples_staging WHERE dataset = 'd'"); n != 0 {
		t.Errorf("%d rows a dead build of d staged left after the next build began", n)
	}
	if n := countRows(t, dir, "SELECT count(*) FROM training_examples_staging WHERE dataset = 'e'"); n != 1 {
		t.Errorf("another dataset's staged rows: %d, want its 1 kept", n)
	}
}

// Migration 13 removes the rows of never-registered versions that builds
// killed before it left in training_examples, and keeps every registered
// version's.
func TestMigrationRemovesUnregisteredRowsOfOldKilledBuilds(t *testing.T) {
	t.Parallel()
	dir := initHome(t)
	ctx := context.Background()
	err := WithWriter(ctx, dir, Raw, Options{Command: "test"}, func(w Writer) error {
		if err := w.Tx(ctx, func() error {
			return StageTrainingExamples(ctx, w, []TrainingExample{stagedExample("d", 1, "a")})
		}); err != nil {
			return err
		}
		if err := w.Tx(ctx, func() error {
			return RegisterDatasetVersion(ctx, w, DatasetVersion{Name: "d", Version: 1, TrainingPlanID: 1, Examples: 1, Criteria: []byte(`{}`), Created: time.Unix(0, 0)})
		}); err != nil {
			return err
		}
		// The store as the cra before migration 13 left it after a build of
		// d@2 was killed: its rows in training_examples, unregistered (and
		// none of the later migrations applied either).
		for _, q := range []string{
			`INSERT INTO training_examples SELECT * REPLACE (2 AS version, 'b' AS id) FROM training_examples`,
			`DROP TABLE training_examples_staging`,
			`DROP TABLE bootstrap_merges`,
			`DROP TABLE ask_questions`,
			`DROP TABLE shard_home`, `DROP TABLE shard_runs`, `DROP TABLE bootstrap_walked`,
			`DROP TABLE eval_commit_judgements`,
			`CREATE TABLE eval_commit_tests (repo_path VARCHAR, commit VARCHAR, test_command VARCHAR, success BOOLEAN, output_tail VARCHAR, ran_at TIMESTAMPTZ)`,
			`ALTER TABLE eval_tasks DROP COLUMN judged_by`,
			`DROP TABLE adapters`, `DROP TABLE adapter_gates`, `DROP SEQUENCE adapter_gates_id_seq`,
			`DROP TABLE adapter_events`, `DROP SEQUENCE adapter_events_id_seq`,
			`CREATE SEQUENCE adapter_registry_id_seq`,
			`CREATE TABLE adapter_registry (id BIGINT PRIMARY KEY DEFAULT nextval('adapter_registry_id_seq'))`,
			`ALTER TABLE retrieval_llm_calls DROP COLUMN adapter`,
			`ALTER TABLE retrieval_llm_calls DROP COLUMN adapter_version`,
			`ALTER TABLE retrieval_llm_calls DROP COLUMN adapter_sha256`,
			`DELETE FROM schema_migrations WHERE version >= 13`,
		} {
			if _, err := w.Conn.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := WithWriter(ctx, dir, Raw, Options{Command: "test"}, func(Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, dir, "SELECT count(*) FROM training_examples WHERE version = 2"); n != 0 {
		t.Errorf("%d rows of the unregistered d@2 left after the migration", n)
	}
	if n := countRows(t, dir, "SELECT count(*) FROM training_examples WHERE version = 1"); n != 1 {
		t.Errorf("d@1 has %d rows after the migration, want its 1", n)
	}
}
