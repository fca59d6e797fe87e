package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/charts"
	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// reportExamples are the rows of dataset "d", versions 1 and 2: SFT,
// preference pairs under two signals (a third joins in v2) and KTO rows,
// over two repositories and both splits. Between the versions s2 and p2
// go, s5, s6, p4, k4 and k5 come, and s3 moves from validation to train.
const reportExamples = `
	(1, 's1', 'scope', 'synthetic', 'train', 'sft', 'positive', NULL, '/repos/alpha', 100, 20),
	(1, 's2', 'scope', 'synthetic', 'train', 'sft', 'positive', NULL, '/repos/alpha', 300, 50),
	(1, 's3', 'scope', 'synthetic', 'validation', 'sft', 'positive', NULL, '/repos/beta', 850, 100),
	(1, 's4', 'scope', 'synthetic', 'train', 'sft', 'positive', NULL, '/repos/beta', 200, 10),
	(1, 'p1', 'implement', 'logged', 'train', 'preference', 'pair', 'coder_retry', '/repos/alpha', 400, 200),
	(1, 'p2', 'implement', 'logged', 'train', 'preference', 'pair', 'coder_retry', '/repos/beta', 500, 300),
	(1, 'p3', 'implement', 'logged', 'validation', 'preference', 'pair', 'adjustment', '/repos/alpha', 700, 250),
	(1, 'k1', 'implement', 'logged', 'train', 'kto', 'positive', 'implement_tests', '/repos/alpha', 300, 100),
	(1, 'k2', 'implement', 'logged', 'train', 'kto', 'positive', 'complete_run', '/repos/beta', 320, 90),
	(1, 'k3', 'implement', 'logged', 'train', 'kto', 'negative', 'implement_tests', '/repos/alpha', 280, 80),
	(2, 's1', 'scope', 'synthetic', 'train', 'sft', 'positive', NULL, '/repos/alpha', 100, 20),
	(2, 's3', 'scope', 'synthetic', 'train', 'sft', 'positive', NULL, '/repos/beta', 850, 100),
	(2, 's4', 'scope', 'synthetic', 'train', 'sft', 'positive', NULL, '/repos/beta', 200, 10),
	(2, 's5', 'scope', 'synthetic', 'validation', 'sft', 'positive', NULL, '/repos/beta', 150, 30),
	(2, 's6', 'scope', 'synthetic', 'train', 'sft', 'positive', NULL, '/repos/alpha', 1200, 40),
	(2, 'p1', 'implement', 'logged', 'train', 'preference', 'pair', 'coder_retry', '/repos/alpha', 400, 200),
	(2, 'p3', 'implement', 'logged', 'validation', 'preference', 'pair', 'adjustment', '/repos/alpha', 700, 250),
	(2, 'p4', 'implement', 'logged', 'train', 'preference', 'pair', 'teacher_student', '/repos/beta', 600, 320),
	(2, 'k1', 'implement', 'logged', 'train', 'kto', 'positive', 'implement_tests', '/repos/alpha', 300, 100),
	(2, 'k2', 'implement', 'logged', 'train', 'kto', 'positive', 'complete_run', '/repos/beta', 320, 90),
	(2, 'k3', 'implement', 'logged', 'train', 'kto', 'negative', 'implement_tests', '/repos/alpha', 280, 80),
	(2, 'k4', 'implement', 'logged', 'validation', 'kto', 'negative', 'complete_run', '/repos/beta', 310, 70),
	(2, 'k5', 'implement', 'logged', 'train', 'kto', 'negative', 'eval_correct', '/repos/beta', 290, 60)`

// reportStore is a raw store holding versions 1 and 2 of dataset "d"
// (reportExamples), built as curate-data records them: examples, a
// training_datasets row per stage and kind, a dataset_versions row.
func reportStore(t testing.TB) *kb.Store {
	t.Helper()
	raw, err := kb.Open(context.Background(), storetest.Home(t), kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	if _, err := raw.DB.Exec(`
		INSERT INTO training_examples (id, dataset, version, stage, source, split, kind, label, signal, repo_path, commit,
			target_id, messages, chosen, rejected, prompt_tokens, completion_tokens, created_at)
		SELECT id, 'd', v, stage, source, split, kind, label, signal, repo, 'c-' || id, 't-' || id,
			[{'role': 'user', 'content': 'question ' || id}, {'role': 'assistant', 'content': 'answer ' || id}],
			CASE WHEN kind = 'preference' THEN [{'role': 'assistant', 'content': 'better'}] END,
			CASE WHEN kind = 'preference' THEN [{'role': 'assistant', 'content': 'worse'}] END,
			p, c, TIMESTAMPTZ '2026-11-01 10:00:00+00'
		FROM (VALUES ` + reportExamples + `) t(v, id, stage, source, split, kind, label, signal, repo, p, c);
		INSERT INTO training_datasets (training_plan_id, stage_name, base_model, dataset_path, example_count, positive_count,
			negative_count, timestamp, name, version, kind)
		SELECT version + 6, stage, 'coding', 'raw.training_examples', count(*), count(*) FILTER (WHERE label = 'positive'),
			count(*) FILTER (WHERE label = 'negative'), TIMESTAMPTZ '2026-11-01 10:00:00+00', dataset, version, kind
		FROM training_examples GROUP BY ALL;
		INSERT INTO dataset_versions (name, version, training_plan_id, examples, dropped, criteria, cra_version, created_at) VALUES
			('d', 1, 7, 10, '{"near_duplicate": 3, "secret": 1}', '{"source": "mix", "context_window": 1000, "stages": ["scope", "implement"]}',
				'v0.9.0', TIMESTAMPTZ '2026-11-01 10:00:00+00'),
			('d', 2, 8, 13, '{"near_duplicate": 1, "too_long": 2, "secret": 0}', '{"source": "mix", "context_window": 1000, "stages": ["scope", "implement"]}',
				'v0.9.1', TIMESTAMPTZ '2026-11-08 10:00:00+00')`); err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestReportMarkdownGolden(t *testing.T) {
	raw := reportStore(t)
	for _, v := range []int{1, 2} {
		paths, err := WriteReport(context.Background(), raw.DB, kb.DatasetRef{Name: "d", Version: v}, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 2 || filepath.Base(paths[0]) != ReportMarkdown || filepath.Base(paths[1]) != ReportHTML {
			t.Fatalf("paths %v: want report.md and report.html", paths)
		}
		golden.Assert(t, filepath.Join("testdata", "report", fmt.Sprintf("d-v%d.md", v)), readReport(t, paths[0]))
	}
}

// TestReportChangesAreAgainstThePreviousVersion checks the figures of
// "what changed" themselves: v2 against v1, and, once a v3 that is v1
// again exists, v3 against v2 — not against v1, with which it has nothing
// to tell apart, nor against itself.
func TestReportChangesAreAgainstThePreviousVersion(t *testing.T) {
	ctx := context.Background()
	raw := reportStore(t)
	build := func(v int) *changes {
		t.Helper()
		r, err := buildReport(ctx, raw.DB, kb.DatasetRef{Name: "d", Version: v})
		if err != nil {
			t.Fatal(err)
		}
		return r.changes
	}
	if c := build(1); c != nil {
		t.Errorf("v1 compared with v%d; it is the first version", c.previous)
	}
	c := build(2)
	if c == nil || c.previous != 1 {
		t.Fatalf("v2 changes %+v: want them against v1", c)
	}
	wantChurn := []churn{
		{stage: "implement", kind: "preference", added: 1, removed: 1, kept: 2},
		{stage: "implement", kind: "kto", added: 2, kept: 3},
		{stage: "scope", kind: "sft", added: 2, removed: 1, kept: 3, moved: 1},
	}
	if !reflect.DeepEqual(c.churn, wantChurn) {
		t.Errorf("v2 churn\n got %+v\nwant %+v", c.churn, wantChurn)
	}
	if c.added != 5 || c.removed != 2 || !reflect.DeepEqual(c.addedIDs, []string{"k4", "k5", "p4", "s5", "s6"}) ||
		!reflect.DeepEqual(c.removedIDs, []string{"p2", "s2"}) {
		t.Errorf("v2: added %d %v, removed %d %v", c.added, c.addedIDs, c.removed, c.removedIDs)
	}
	wantCounts := map[string][2]int{
		"implement/preference/train": {2, 2}, "implement/preference/validation": {1, 1},
		"implement/kto/train": {3, 4}, "implement/kto/validation": {0, 1},
		"scope/sft/train": {3, 4}, "scope/sft/validation": {1, 1},
	}
	got := map[string][2]int{}
	for _, d := range c.counts {
		got[d.stage+"/"+d.kind+"/"+d.split] = [2]int{d.was, d.now}
	}
	if !reflect.DeepEqual(got, wantCounts) {
		t.Errorf("v2 counts then and now\n got %v\nwant %v", got, wantCounts)
	}

	// v3 is v1's rows again.
	if _, err := raw.DB.Exec(`
		INSERT INTO training_examples SELECT * REPLACE (3 AS version) FROM training_examples WHERE dataset = 'd' AND version = 1;
		INSERT INTO training_datasets (training_plan_id, stage_name, base_model, dataset_path, example_count, positive_count,
			negative_count, timestamp, name, version, kind)
		SELECT training_plan_id, stage_name, base_model, dataset_path, example_count, positive_count, negative_count, timestamp, name, 3, kind
		FROM training_datasets WHERE name = 'd' AND version = 1;
		INSERT INTO dataset_versions SELECT * REPLACE (3 AS version) FROM dataset_versions WHERE name = 'd' AND version = 1`); err != nil {
		t.Fatal(err)
	}
	c = build(3)
	if c == nil || c.previous != 2 || c.added != 2 || c.removed != 5 ||
		!reflect.DeepEqual(c.addedIDs, []string{"p2", "s2"}) || !reflect.DeepEqual(c.removedIDs, []string{"k4", "k5", "p4", "s5", "s6"}) {
		t.Errorf("v3 changes %+v: want v2's additions removed and its removals back", c)
	}
	// The latest version is what NAME means, and its report says so.
	paths, err := WriteReport(ctx, raw.DB, kb.DatasetRef{Name: "d"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	md := string(readReport(t, paths[0]))
	for _, want := range []string{"# Dataset d@3", "## What changed since v2", "| scope | sft | train | 4 | 3 | -1 |",
		"| implement | kto | validation | 1 | 0 | -1 |", "First ids added: `p2`, `s2`."} {
		if !strings.Contains(md, want) {
			t.Errorf("report of d@3 lacks %q:\n%s", want, md)
		}
	}
}

func TestReportHTMLIsSelfContained(t *testing.T) {
	ctx := context.Background()
	raw := reportStore(t)
	for _, v := range []int{1, 2} {
		ref := kb.DatasetRef{Name: "d", Version: v}
		r, err := buildReport(ctx, raw.DB, ref)
		if err != nil {
			t.Fatal(err)
		}
		paths, err := WriteReport(ctx, raw.DB, ref, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		page := readReport(t, paths[1])
		f, err := charts.CheckPage(page)
		if err != nil {
			t.Fatalf("v%d: report.html: %v", v, err)
		}
		var figures []string
		for _, id := range f.Figures {
			figures = append(figures, strings.TrimPrefix(id, "chart-"))
		}
		svgs := f.SVGs
		want := []string{chartExamples, chartRepos, chartDrops, chartSignals, chartKTO, chartTokens + "implement", chartTokens + "scope"}
		if !reflect.DeepEqual(r.charts(), want) || !reflect.DeepEqual(figures, want) || svgs != len(want) {
			t.Errorf("v%d: %d svg elements in figures %v (charts %v), want one per chart %v", v, svgs, figures, r.charts(), want)
		}
		for _, bad := range []string{"http://", "https://", "<script src"} {
			if bytes.Contains(page, []byte(bad)) {
				t.Errorf("v%d: report.html holds %q", v, bad)
			}
		}
		if len(f.Outside) > 0 {
			t.Errorf("v%d: report.html refers outside itself: %q", v, f.Outside)
		}

	}
}

// TestReportWithoutPairsKTOOrWindow: a plain synthetic dataset with no
// context window recorded says so instead of drawing empty charts.
func TestReportWithoutPairsKTOOrWindow(t *testing.T) {
	raw := reportStore(t)
	if _, err := raw.DB.Exec(`DELETE FROM training_examples WHERE kind <> 'sft';
		UPDATE dataset_versions SET criteria = '{"source": "synthetic,logged,distilled"}', dropped = '{}'`); err != nil {
		t.Fatal(err)
	}
	r, err := buildReport(context.Background(), raw.DB, kb.DatasetRef{Name: "d", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{chartExamples, chartRepos, chartTokens + "scope"}; !reflect.DeepEqual(r.charts(), want) {
		t.Errorf("charts %v, want %v", r.charts(), want)
	}
	md := reportMarkdown(r)
	for _, want := range []string{"from synthetic, logged and distilled data.", "No preference pairs in this version.", "No KTO rows in this version.", "Nothing was dropped.",
		"record no context window", "| scope | 4 | 210 | 950 | 950 | — | — |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if _, err := reportHTML(r); err != nil {
		t.Fatal(err)
	}
}

func TestReportOfAMissingVersion(t *testing.T) {
	raw := reportStore(t)
	dir := filepath.Join(t.TempDir(), "report")
	_, err := WriteReport(context.Background(), raw.DB, kb.DatasetRef{Name: "d", Version: 9}, dir)
	if !errors.Is(err, kb.ErrNotFound) || !strings.Contains(err.Error(), "1, 2") {
		t.Errorf("err %v: want not found, naming the versions there are", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed report left %s behind", dir)
	}
}

func readReport(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkReport reports on a version of 1,000,000 rows over 4 stages,
// 3 kinds and 50 repositories, with a previous version of the same size
// that shares 90 % of its ids.
func BenchmarkReport(b *testing.B) {
	const rows = 1_000_000
	raw, err := kb.Open(context.Background(), storetest.Home(b), kb.Raw, kb.Options{Write: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	if _, err := raw.DB.Exec(fmt.Sprintf(`
		INSERT INTO training_examples (id, dataset, version, stage, source, split, kind, label, signal, repo_path, target_id,
			messages, prompt_tokens, completion_tokens, created_at)
		SELECT printf('id%%08d', i + v * %[1]d // 10), 'd', v, ['scope', 'precision', 'plan', 'implement'][i %% 4 + 1], 'logged',
			CASE WHEN i %% 10 = 0 THEN 'validation' ELSE 'train' END, ['sft', 'preference', 'kto'][i %% 3 + 1],
			CASE i %% 3 WHEN 1 THEN 'pair' WHEN 2 THEN ['positive', 'negative'][i %% 2 + 1] ELSE 'positive' END,
			['coder_retry', 'adjustment', 'eval'][i %% 3 + 1], '/repos/r' || (i %% 50), 't' || i,
			[{'role': 'user', 'content': 'q'}], (i * 7919) %% 30000, (i * 104729) %% 2000, now()
		FROM range(%[1]d) r(i), (VALUES (1), (2)) vs(v);
		INSERT INTO training_datasets (training_plan_id, stage_name, base_model, dataset_path, example_count, positive_count,
			negative_count, timestamp, name, version, kind)
		SELECT 1, stage, 'coding', 'raw.training_examples', count(*), 0, 0, now(), 'd', version, kind FROM training_examples GROUP BY ALL;
		INSERT INTO dataset_versions VALUES ('d', 1, 1, %[1]d, '{"near_duplicate": 5}', '{"context_window": 32768}', 'bench', now()),
			('d', 2, 1, %[1]d, '{"near_duplicate": 5}', '{"context_window": 32768}', 'bench', now())`, rows)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := WriteReport(context.Background(), raw.DB, kb.DatasetRef{Name: "d"}, b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(rows/(b.Elapsed().Seconds()/float64(b.N)), "rows/s")
}
