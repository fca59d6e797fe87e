package datasets

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// fixtureStore is a raw store holding dataset "d": n examples over two
// stages and both splits, with unicode, newlines, empty strings and a NULL
// commit among them.
func fixtureStore(t testing.TB, n int) (*kb.Store, string) {
	home := storetest.Home(t)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	if _, err := raw.DB.Exec(fmt.Sprintf(`
		INSERT INTO training_datasets (training_plan_id, stage_name, base_model, dataset_path, example_count, positive_count,
			negative_count, timestamp, name, version)
		VALUES (1, 'scope', 'reasoning', 'raw.training_examples', 0, 0, 0, now(), 'd', 1),
		       (1, 'implement', 'coding', 'raw.training_examples', 0, 0, 0, now(), 'd', 1);
		INSERT INTO dataset_versions (name, version, training_plan_id, examples, dropped, criteria, cra_version, created_at)
		VALUES ('d', 1, 1, %d, '{"trivial": 2}', '{"source": "synthetic"}', 'test', now());
		INSERT INTO training_examples (id, dataset, stage, source, split, label, repo_path, commit, target_id, messages,
			prompt_tokens, completion_tokens, created_at)
		SELECT printf('id%%06d', i), 'd', CASE WHEN i %% 3 = 0 THEN 'implement' ELSE 'scope' END, 'synthetic',
			CASE WHEN i %% 5 = 0 THEN 'validation' ELSE 'train' END, 'positive', '/repos/r' || (i %% 4),
			CASE WHEN i %% 7 = 0 THEN NULL ELSE 'c' || i END, 't' || i,
			[{'role': 'system', 'content': 'You select files.'},
			 {'role': 'user', 'content': 'Task ' || i || E':\n- naïve → fixed ✓\n\ttab "quoted"'},
			 {'role': 'assistant', 'content': CASE WHEN i %% 11 = 0 THEN '' ELSE '{"relevant": ["a' || i || '.py"]}' END}],
			100 + i, 10 + i, TIMESTAMPTZ '2026-11-01 10:00:00+00' + to_seconds(i)
		FROM range(%d) r(i)`, n, n)); err != nil {
		t.Fatal(err)
	}
	return raw, home
}

func tableRows(t testing.TB, q kb.Querier) []kb.TrainingExample {
	var out []kb.TrainingExample
	if err := kb.EachTrainingExample(context.Background(), q, "d", 1, func(e kb.TrainingExample) error {
		e.Version = 0 // the manifest carries the version, not each exported row
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func readDir(t testing.TB, dir string) []kb.TrainingExample {
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []kb.TrainingExample
	for _, f := range m.Files {
		if err := ReadFile(context.Background(), filepath.Join(dir, f.Path), m.Format, func(e kb.TrainingExample) error {
			out = append(out, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func normalise(rows []kb.TrainingExample) []kb.TrainingExample {
	out := append([]kb.TrainingExample(nil), rows...)
	for i := range out {
		out[i].TargetID, out[i].TaskID = "", "" // not exported
		out[i].CreatedAt = out[i].CreatedAt.UTC()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func TestExportRoundTrip(t *testing.T) {
	raw, _ := fixtureStore(t, 500)
	want := normalise(tableRows(t, raw.DB))
	dirs := map[string]string{}
	for _, format := range []string{FormatParquet, FormatJSONL} {
		dir := filepath.Join(t.TempDir(), "out")
		m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "d"}, ExportOptions{Format: format, Out: dir})
		if err != nil {
			t.Fatal(err)
		}
		dirs[format] = dir
		if got := readDir(t, dir); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: read back %d rows; they differ from the table's %d (first: %+v vs %+v)", format, len(got), len(want), first(got), first(want))
		}
		if m.Counts["scope"]["sft"]["train"]+m.Counts["scope"]["sft"]["validation"]+m.Counts["implement"]["sft"]["train"]+m.Counts["implement"]["sft"]["validation"] != 500 {
			t.Errorf("%s: manifest counts %v", format, m.Counts)
		}
		rep, err := Inspect(context.Background(), dir)
		if err != nil || len(rep.Problems) != 0 {
			t.Errorf("%s: inspect: %v %v", format, err, rep.Problems)
		}
		var names []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got := strings.Join(names, " "); got != "README.md implement manifest.json report.html report.md scope" {
			t.Errorf("%s: the export directory holds %s, want the shards, manifest, card and report (no temporary left)", format, got)
		}
	}

	// DuckDB reads both exports with the same rows, and the Parquet files
	// as the table holds them.
	var n int
	if err := raw.DB.QueryRow(fmt.Sprintf(`SELECT count(*) FROM read_parquet('%s/*/*/*.parquet') p
		JOIN read_json('%s/*/*/*.jsonl', columns = {cra_id: 'VARCHAR', prompt: 'STRUCT(role VARCHAR, content VARCHAR)[]',
			completion: 'STRUCT(role VARCHAR, content VARCHAR)[]', cra_commit: 'VARCHAR'}) j
		ON j.cra_id = p.cra_id AND j.prompt = p.prompt AND j.completion = p.completion AND j.cra_commit IS NOT DISTINCT FROM p.cra_commit`,
		dirs[FormatParquet], dirs[FormatJSONL])).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 500 {
		t.Errorf("rows equal in the Parquet and JSONL exports: %d, want 500", n)
	}
	raw.DB.QueryRow(fmt.Sprintf(`SELECT count(*) FROM read_parquet('%s/*/*/*.parquet') p
		JOIN training_examples t ON t.id = p.cra_id AND t.messages = p.prompt || p.completion AND t.commit IS NOT DISTINCT FROM p.cra_commit
		AND t.created_at = p.cra_created_at AND t.split = p.cra_split AND t.stage = p.cra_stage`, dirs[FormatParquet])).Scan(&n) //nolint:errcheck // n checked
	if n != 500 {
		t.Errorf("read_parquet rows equal to the table's: %d, want 500", n)
	}
}

func first(rows []kb.TrainingExample) any {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

func TestExportShardsAndCard(t *testing.T) {
	raw, _ := fixtureStore(t, 3000)
	dir := filepath.Join(t.TempDir(), "out")
	m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "d"}, ExportOptions{Out: dir, ShardBytes: 20 << 10})
	if err != nil {
		t.Fatal(err)
	}
	perGroup := map[string]int{}
	rows := 0
	for _, f := range m.Files {
		perGroup[f.Stage+"/"+f.Kind+"/"+f.Split]++
		rows += f.Rows
		if !strings.Contains(f.Path, "-of-") || !strings.HasSuffix(f.Path, ".parquet") {
			t.Errorf("shard name %s", f.Path)
		}
	}
	if rows != 3000 || perGroup["scope/sft/train"] < 3 {
		t.Errorf("%d rows over shards %v: want 3000 and several scope/sft/train shards", rows, perGroup)
	}
	n := perGroup["scope/sft/train"]
	if _, err := os.Stat(filepath.Join(dir, "scope", "sft", fmtShard("train", n-1, n, "parquet"))); err != nil {
		t.Errorf("last scope/train shard: %v", err)
	}

	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkCardConfigs(t, dir, m, string(readme))
}

func TestInspectFindsDamage(t *testing.T) {
	raw, _ := fixtureStore(t, 200)
	dir := filepath.Join(t.TempDir(), "out")
	m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "d"}, ExportOptions{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	// Truncate one file, and claim one row too many for another.
	p := filepath.Join(dir, m.Files[0].Path)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)/2], 0o644) //nolint:errcheck // inspected below
	m.Files[1].Rows++
	js, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(dir, ManifestFile), js, 0o644) //nolint:errcheck
	rep, err := Inspect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(rep.Problems, "\n")
	if !strings.Contains(all, m.Files[0].Path+": sha256") || !strings.Contains(all, m.Files[1].Path+":") || !strings.Contains(all, "the manifest says") {
		t.Errorf("problems:\n%s\nwant the truncated file and the row count named", all)
	}

	if _, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "d"}, ExportOptions{Out: dir}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("export into a non-empty directory: %v", err)
	}
	if _, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "nope"}, ExportOptions{Out: t.TempDir()}); err == nil {
		t.Error("export of a missing dataset succeeded")
	}
}
