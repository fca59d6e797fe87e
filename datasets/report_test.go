package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/internal/report/reporttest"
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
	raw := writableRaw(t)
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

// lopsidedStore is a raw store holding dataset "logged" v1 as logged
// data built on eval tasks comes out (issue 26): one repository, most
// rows in validation — scope 12 of 386 in train, implement's pairs 1 of
// 91, plan none at all —, preference pairs far fewer than implement's SFT
// rows, KTO rows all positive, short stages (scope a few hundred tokens)
// beside implement's long ones, three over the 32,768-token window.
func lopsidedStore(t testing.TB) *kb.Store {
	t.Helper()
	raw := writableRaw(t)
	if _, err := raw.DB.Exec(`
		CREATE TEMP TABLE lopsided AS
		SELECT stage || '-' || kind || '-' || i AS id, stage, kind, CASE WHEN i < train THEN 'train' ELSE 'validation' END AS split,
			CASE WHEN kind = 'preference' THEN 'pair' ELSE 'positive' END AS label,
			CASE WHEN kind = 'sft' THEN NULL WHEN kind = 'kto' THEN 'implement_tests' ELSE 'coder_retry' END AS signal,
			lo + (i * 7919) % span AS p, 40 + i % 60 AS c
		FROM (VALUES ('scope', 'sft', 386, 12, 300, 1500), ('plan', 'sft', 40, 0, 200, 700),
				('implement', 'sft', 1050, 950, 4000, 26000), ('implement', 'preference', 91, 1, 2000, 4000),
				('implement', 'kto', 30, 30, 3000, 9000)) s(stage, kind, n, train, lo, span), range(n) r(i);
		UPDATE lopsided SET p = 33000 WHERE id IN ('implement-sft-3', 'implement-sft-4', 'implement-sft-5');
		INSERT INTO training_examples (id, dataset, version, stage, source, split, kind, label, signal, repo_path, commit,
			target_id, messages, chosen, rejected, prompt_tokens, completion_tokens, created_at)
		SELECT id, 'logged', 1, stage, 'logged', split, kind, label, signal, '/repos/click', 'c-' || id, 't-' || id,
			[{'role': 'user', 'content': 'question ' || id}, {'role': 'assistant', 'content': 'answer ' || id}],
			CASE WHEN kind = 'preference' THEN [{'role': 'assistant', 'content': 'better'}] END,
			CASE WHEN kind = 'preference' THEN [{'role': 'assistant', 'content': 'worse'}] END,
			p, c, TIMESTAMPTZ '2026-11-01 10:00:00+00'
		FROM lopsided;
		INSERT INTO training_datasets (training_plan_id, stage_name, base_model, dataset_path, example_count, positive_count,
			negative_count, timestamp, name, version, kind)
		SELECT 3, stage, 'coding', 'raw.training_examples', count(*), count(*) FILTER (WHERE label = 'positive'),
			count(*) FILTER (WHERE label = 'negative'), TIMESTAMPTZ '2026-11-01 10:00:00+00', dataset, version, kind
		FROM training_examples GROUP BY ALL;
		INSERT INTO dataset_versions (name, version, training_plan_id, examples, dropped, criteria, cra_version, created_at) VALUES
			('logged', 1, 3, 1597, '{}', '{"source": "logged", "context_window": 32768, "safety_margin": 0.1, "validation_fraction": 0.1,
				"holdout_repos": [], "stages": ["scope", "plan", "implement"]}', 'v0.9.2', TIMESTAMPTZ '2026-11-01 10:00:00+00')`); err != nil {
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
	paths, err := WriteReport(context.Background(), lopsidedStore(t).DB, kb.DatasetRef{Name: "logged"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "report", "logged-v1.md"), readReport(t, paths[0]))
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
	wantChurn := []kb.ExampleChurn{
		{Stage: "implement", Kind: "preference", Added: 1, Removed: 1, Kept: 2, AddedIDs: []string{"p4"}, RemovedIDs: []string{"p2"}},
		{Stage: "implement", Kind: "kto", Added: 2, Kept: 3, AddedIDs: []string{"k4", "k5"}, RemovedIDs: []string{}},
		{Stage: "scope", Kind: "sft", Added: 2, Removed: 1, Kept: 3, Moved: 1, AddedIDs: []string{"s5", "s6"}, RemovedIDs: []string{"s2"}},
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
		got[d.Stage+"/"+d.Kind+"/"+d.Split] = [2]int{d.Was, d.Now}
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
		f, err := reporttest.CheckPage(page)
		if err != nil {
			t.Fatalf("v%d: report.html: %v", v, err)
		}
		var figures []string
		for _, fig := range f.Figures {
			figures = append(figures, strings.TrimPrefix(fig.ID, "chart-"))
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

// TestReportWarnings: each flag on both sides of its threshold, against
// a version that trips none.
func TestReportWarnings(t *testing.T) {
	sft := func(train, val int) splitCount {
		return splitCount{stage: "scope", kind: kb.KindSFT, train: train, val: val}
	}
	repos := []splitCount{{key: "/repos/a", train: 50}, {key: "/repos/b", train: 50}}
	base := func() *versionReport {
		return &versionReport{stageKinds: []splitCount{sft(90, 10)}, repos: repos, window: 1000,
			tokens: []tokenStats{{TokenLengths: kb.TokenLengths{Stage: "scope", N: 100, Max: 900}}}}
	}
	for _, c := range []struct {
		name   string
		change func(r *versionReport)
		want   string // a warning holding this; "" for none at all
	}{
		{"clean", func(*versionReport) {}, ""},
		{"share at the threshold", func(r *versionReport) { r.stageKinds = []splitCount{sft(50, 50)} }, ""},
		{"share under it", func(r *versionReport) { r.stageKinds = []splitCount{sft(49, 51)} }, "`scope-sft`: 49 of 100 rows (49.0 %) in train, under the 50 %"},
		{"no train rows", func(r *versionReport) { r.stageKinds = []splitCount{sft(0, 5)} }, "`scope-sft` has no train rows (5 in validation)"},
		{"train rows at the minimum", func(r *versionReport) { r.stageKinds = []splitCount{sft(10, 0)} }, ""},
		{"train rows under it", func(r *versionReport) { r.stageKinds = []splitCount{sft(9, 0)} }, "`scope-sft`: 9 rows in train, fewer than 10"},
		{"whole version at half", func(r *versionReport) {
			r.stageKinds = []splitCount{sft(50, 50), {stage: "plan", kind: kb.KindSFT, train: 50, val: 50}}
		}, ""},
		{"whole version under half", func(r *versionReport) {
			r.stageKinds = []splitCount{sft(49, 0), {stage: "plan", kind: kb.KindSFT, train: 50, val: 101}}
		}, "Over the whole version only 99 of 200 examples (49.5 %) are in train."},
		{"one repository", func(r *versionReport) { r.repos = repos[:1] }, "Every example comes from one repository (`/repos/a`)"},
		{"pairs at a tenth of SFT", func(r *versionReport) {
			r.stageKinds = append(r.stageKinds, splitCount{stage: "scope", kind: kb.KindPreference, train: 10})
		}, ""},
		{"pairs under a tenth", func(r *versionReport) {
			r.stageKinds = append(r.stageKinds, splitCount{stage: "scope", kind: kb.KindPreference, train: 9, val: 0})
		}, "`scope`: 9 preference pairs beside 100 SFT rows (9.0 %)"},
		{"KTO both labels", func(r *versionReport) {
			r.labels = []labelCount{{stage: "scope", kind: kb.KindKTO, label: kb.LabelPositive, n: 30}, {stage: "scope", kind: kb.KindKTO, label: kb.LabelNegative, n: 1}}
		}, ""},
		{"KTO positive only", func(r *versionReport) {
			r.labels = []labelCount{{stage: "scope", kind: kb.KindKTO, label: kb.LabelPositive, n: 30}}
		}, "`scope`: KTO rows all positive (30)"},
		{"KTO negative only", func(r *versionReport) {
			r.labels = []labelCount{{stage: "scope", kind: kb.KindKTO, label: kb.LabelNegative, n: 1}}
		}, "`scope`: KTO rows all negative (1)"},
		{"one over the window", func(r *versionReport) { r.tokens[0].Over = 1 }, "`scope`: 1 example longer than the context window of 1,000 tokens"},
	} {
		r := base()
		c.change(r)
		s := r.warningsSection()
		if c.want == "" {
			if len(s.List) > 0 || len(s.Paras) != 1 || !strings.HasPrefix(s.Paras[0], "Nothing to flag") {
				t.Errorf("%s: warnings %q, want none and a paragraph saying so", c.name, s.List)
			}
			continue
		}
		if !slices.ContainsFunc(s.List, func(w string) bool { return strings.Contains(w, c.want) }) {
			t.Errorf("%s: warnings %q, want one holding %q", c.name, s.List, c.want)
		}
	}
}

// TestReportLopsidedVersion: the version of issue 26 — most rows in
// validation, one repository, short stages beside long ones — is flagged
// in both reports, and each stage's histogram spans its own lengths, with
// the context window drawn only where it is in reach.
func TestReportLopsidedVersion(t *testing.T) {
	ctx := context.Background()
	raw := lopsidedStore(t)
	r, err := buildReport(ctx, raw.DB, kb.DatasetRef{Name: "logged"})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range r.tokens {
		most := slices.Max(st.bins)
		if st.lo > st.Min || st.hi() <= st.Max || len(st.bins) > histogramBins+1 || 2*most > st.N {
			t.Errorf("%s: bins from %d by %d (%d of them, the fullest %d of %d) for lengths %d to %d: want the stage's own range cut into up to %d",
				st.Stage, st.lo, st.width, len(st.bins), most, st.N, st.Min, st.Max, histogramBins)
		}
		if shown, want := r.windowShown(st), st.Stage == "implement"; shown != want {
			t.Errorf("%s: window drawn %v, want %v (implement reaches it, scope and plan end far below)", st.Stage, shown, want)
		}
	}
	for _, c := range []struct{ stage, want string }{
		{"scope", "context window (32,768): right of this scale →"},
		{"implement", "context window (32,768)"},
	} {
		svg, err := r.chart(chartTokens + c.stage)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(svg, []byte(c.want)) {
			t.Errorf("%s histogram lacks %q", c.stage, c.want)
		}
	}

	paths, err := WriteReport(ctx, raw.DB, kb.DatasetRef{Name: "logged"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	md, page := string(readReport(t, paths[0])), string(readReport(t, paths[1]))
	warnings := r.warningsSection().List
	for _, want := range []string{"`scope-sft`: 12 of 386 rows (3.1 %) in train", "`implement-preference`: 1 of 91 rows (1.1 %) in train",
		"`plan-sft` has no train rows", "one repository (`/repos/click`)", "91 preference pairs beside 1,050 SFT rows",
		"KTO rows all positive (30)", "3 examples longer than the context window"} {
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
	if !strings.Contains(md, "## Warnings\n") || strings.Count(md, "\n- ") != len(warnings) {
		t.Errorf("report.md: want a Warnings section listing the %d warnings:\n%s", len(warnings), md)
	}
	if strings.Count(page, "<li>") != len(warnings) || !strings.Contains(page, "<h2>Warnings</h2>") {
		t.Errorf("report.html: want a Warnings section listing the %d warnings", len(warnings))
	}
	if n, want := strings.Count(page, "<figcaption"), len(r.charts()); n != want {
		t.Errorf("report.html: %d figure captions for %d figures", n, want)
	}
	for _, want := range []string{"Examples per 100-token bin of prompt plus completion tokens", "shortest example (340) to its longest (1,840).",
		"characters / 4 × (1 + 0.1 safety margin)", "lies too far right to draw on this scale", "nothing is sampled, so no interval is drawn"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// writableRaw is the raw store of a new home, open to write, closed when
// the test ends.
func writableRaw(t testing.TB) *kb.Store {
	t.Helper()
	raw, err := kb.Open(context.Background(), storetest.Home(t), kb.Raw, kb.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}
