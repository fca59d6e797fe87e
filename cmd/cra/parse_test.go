package main

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/kb"
)

// parseWith runs command c on args with its action replaced by parse, so
// flag parsing is tested apart from what the command does.
func parseWith[T any](t *testing.T, c *cli.Command, parse func(*cli.Command) (T, error), args ...string) (T, error) {
	t.Helper()
	var got T
	var perr error
	c.Action = func(_ context.Context, cmd *cli.Command) error {
		got, perr = parse(cmd)
		return nil
	}
	root := &cli.Command{Name: "cra", Commands: []*cli.Command{c}, ExitErrHandler: func(context.Context, *cli.Command, error) {}}
	if err := root.Run(context.Background(), append([]string{"cra", c.Name}, args...)); err != nil {
		return got, err
	}
	return got, perr
}

func TestBatchFlagsParse(t *testing.T) {
	a := &app{}
	since := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	b, err := parseWith(t, a.bootstrapCommand(), parseBootstrap, "--since", "2024-01-02", "--max-commits", "5", "--wait", "2m", "-j", "3", "r1", "r2")
	if want := (bootstrapOptions{repos: []string{"r1", "r2"}, jobs: 3, maxCommits: 5, since: since, wait: 2 * time.Minute}); err != nil || !reflect.DeepEqual(b, want) {
		t.Errorf("bootstrap: %+v, %v; want %+v", b, err, want)
	}
	i, err := parseWith(t, a.indexCommand(), parseIndex, "--rev", "v1", "r")
	if want := (indexOptions{repos: []string{"r"}, rev: "v1"}); err != nil || !reflect.DeepEqual(i, want) {
		t.Errorf("index: %+v, %v", i, err)
	}
	e, err := parseWith(t, a.enrichCommand(), parseEnrich, "--promote", "r")
	if want := (enrichOptions{repo: "r", promote: true}); err != nil || !reflect.DeepEqual(e, want) {
		t.Errorf("enrich: %+v, %v", e, err)
	}
	for name, tc := range map[string]struct {
		c     *cli.Command
		parse func(*cli.Command) (any, error)
		args  []string
	}{
		"bootstrap without repositories": {a.bootstrapCommand(), anyOf(parseBootstrap), nil},
		"bootstrap bad --since":          {a.bootstrapCommand(), anyOf(parseBootstrap), []string{"--since", "yesterday", "r"}},
		"bootstrap negative --wait":      {a.bootstrapCommand(), anyOf(parseBootstrap), []string{"--wait", "-5s", "r"}},
		"index negative --jobs":          {a.indexCommand(), anyOf(parseIndex), []string{"--jobs", "-1", "r"}},
		"enrich two repositories":        {a.enrichCommand(), anyOf(parseEnrich), []string{"a", "b"}},
		"export bad format":              {a.datasetsExportCommand(), anyOf(parseExport), []string{"--format", "csv", "d"}},
		"export bad version":             {a.datasetsExportCommand(), anyOf(parseExport), []string{"d@zero"}},
		"export bad layout":              {a.datasetsExportCommand(), anyOf(parseExport), []string{"--layout", "alpaca", "d"}},
		"export bad kind":                {a.datasetsExportCommand(), anyOf(parseExport), []string{"--kinds", "sft,dpo", "d"}},
		"prune keep 0":                   {a.datasetsPruneCommand(), anyOf(parsePrune), []string{"--keep", "0", "d"}},
		"prune a pinned version":         {a.datasetsPruneCommand(), anyOf(parsePrune), []string{"d@2"}},
		"curate an argument":             {a.curateCommand(), anyOf(parseCurate), []string{"extra"}},
		"curate unknown source":          {a.curateCommand(), anyOf(parseCurate), []string{"--source", "chats"}},
	} {
		if _, err := parseWith(t, tc.c, tc.parse, tc.args...); exitCode(context.Background(), err) != exitUsage {
			t.Errorf("%s: %v; want a usage error", name, err)
		}
	}
}

func TestDatasetFlagsParse(t *testing.T) {
	a := &app{}
	x, err := parseWith(t, a.datasetsExportCommand(), parseExport, "--format", "jsonl", "--out", "/tmp/x", "rel@2")
	if want := (exportOptions{ref: kb.DatasetRef{Name: "rel", Version: 2}, format: "jsonl", layout: "trl", out: "/tmp/x"}); err != nil || !reflect.DeepEqual(x, want) {
		t.Errorf("export: %+v, %v", x, err)
	}
	x, err = parseWith(t, a.datasetsExportCommand(), parseExport, "--layout", "openai", "--kinds", "sft, preference", "rel")
	if want := (exportOptions{ref: kb.DatasetRef{Name: "rel"}, format: "parquet", layout: "openai", kinds: []string{"sft", "preference"}}); err != nil || !reflect.DeepEqual(x, want) {
		t.Errorf("export --layout openai --kinds: %+v, %v", x, err)
	}
	p, err := parseWith(t, a.datasetsPruneCommand(), parsePrune, "--keep", "3", "rel")
	if want := (pruneOptions{name: "rel", keep: 3}); err != nil || p != want {
		t.Errorf("prune: %+v, %v", p, err)
	}
	c, err := parseWith(t, a.curateCommand(), parseCurate, "--name", "n", "--stages", "plan, scope", "--wait", "1m")
	if err != nil || c.name != "n" || !reflect.DeepEqual(c.stages, []string{"plan", "scope"}) || c.wait != time.Minute || c.sources != nil {
		t.Errorf("curate: %+v, %v", c, err)
	}
	for _, tt := range []struct {
		args           []string
		sources, kinds []string
		positive       float64
		err            string
	}{
		{[]string{"--source", "logged,distilled", "--kind", "preference"}, []string{"logged", "distilled"}, []string{"preference"}, 0, ""},
		{[]string{"--source", "all", "--kind", "all", "--positive-fraction", "0.5"}, []string{"synthetic", "logged", "distilled"},
			[]string{"sft", "preference", "kto"}, 0.5, ""},
		{[]string{"--source", "logs"}, nil, nil, 0, `--source "logs": use synthetic, logged, distilled or all`},
		{[]string{"--kind", "dpo"}, nil, nil, 0, `--kind "dpo": use sft, preference, kto or all`},
	} {
		c, err := parseWith(t, a.curateCommand(), parseCurate, tt.args...)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(c.sources, tt.sources) || !reflect.DeepEqual(c.kinds, tt.kinds) || c.positive != tt.positive {
			t.Errorf("%v: %+v, %v", tt.args, c, err)
		}
	}
}

func anyOf[T any](parse func(*cli.Command) (T, error)) func(*cli.Command) (any, error) {
	return func(c *cli.Command) (any, error) { return parse(c) }
}

func TestTrainPlanFlagsParse(t *testing.T) {
	a := &app{}
	got, err := parseWith(t, a.trainPlanCommand(), parseTrainPlan, "--since", "2026-03-01", "--eval", "nightly,weekly", "--repos", "/r1",
		"--repos", "/r2", "--out", "/tmp/tp", "--no-llm")
	want := trainPlanOptions{since: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), repos: []string{kb.CanonicalPath("/r1"), kb.CanonicalPath("/r2")},
		evals: []string{"nightly", "weekly"}, out: "/tmp/tp", noLLM: true}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("train-plan: %+v, %v; want %+v", got, err, want)
	}
	for name, args := range map[string][]string{
		"an argument": {"scope"},
		"bad --since": {"--since", "last week"},
	} {
		if _, err := parseWith(t, a.trainPlanCommand(), parseTrainPlan, args...); exitCode(context.Background(), err) != exitUsage {
			t.Errorf("%s: %v; want a usage error", name, err)
		}
	}
}

func TestDistillFlagsParse(t *testing.T) {
	a := &app{}
	budget := 2.5
	d, err := parseWith(t, a.distillCommand(), parseDistill, "--stage", "scope, implement", "--from", "failed-runs",
		"--repos", "/r1,/r2", "--sample", "10", "--seed", "7", "--teacher", "gpt-x", "--budget-usd", "2.5",
		"--max-calls", "100", "--dry-run", "--batch", "-j", "8", "--name", "mine", "--wait", "1m")
	want := distillOptions{name: "mine", stages: []string{"scope", "implement"}, from: "failed-runs", repos: []string{"/r1", "/r2"},
		sample: 10, seed: 7, teacher: "gpt-x", budgetUSD: &budget, maxCalls: 100, dryRun: true, batch: true, jobs: 8, wait: time.Minute}
	if err != nil || !reflect.DeepEqual(d, want) {
		t.Errorf("distill: %+v, %v;\nwant %+v", d, err, want)
	}
	d, err = parseWith(t, a.distillCommand(), parseDistill)
	if want := (distillOptions{name: "distilled", from: "synthetic"}); err != nil || !reflect.DeepEqual(d, want) {
		t.Errorf("distill defaults: %+v, %v", d, err)
	}
	if d, err := parseWith(t, a.distillCommand(), parseDistill, "--budget-usd", "0"); err != nil || d.budgetUSD == nil || *d.budgetUSD != 0 {
		t.Errorf("--budget-usd 0 is a cap of nothing, not no cap: %+v, %v", d, err)
	}
	for name, args := range map[string][]string{
		"an argument":         {"extra"},
		"plan and stage":      {"--training-plan", "p.json", "--stage", "scope"},
		"unknown source":      {"--from", "logs"},
		"seed without sample": {"--seed", "3"},
		"negative sample":     {"--sample", "-1"},
		"negative budget":     {"--budget-usd", "-1"},
		"negative max calls":  {"--max-calls", "-2"},
		"negative jobs":       {"--jobs", "-1"},
		"negative wait":       {"--wait", "-1s"},
	} {
		if _, err := parseWith(t, a.distillCommand(), parseDistill, args...); exitCode(context.Background(), err) != exitUsage {
			t.Errorf("%s: %v; want a usage error", name, err)
		}
	}
}

// --stages names stages an eval reports; an unknown one is a usage error
// that lists them.
func TestEvalStagesParse(t *testing.T) {
	a := &app{}
	for _, tc := range []struct {
		stages string
		want   []string
		err    string
	}{
		{"", nil, ""},
		{"scope, end_to_end", []string{"scope", "end_to_end"}, ""},
		{"task_analysis,precision,meta_plan,part_plan,implement", []string{"task_analysis", "precision", "meta_plan", "part_plan", "implement"}, ""},
		{"scope,bogus", nil, "--stages bogus: the stages are task_analysis,scope,precision,meta_plan,part_plan,implement,end_to_end"},
		{"adjustment", nil, "--stages adjustment: the stages are"},
	} {
		got, err := parseWith(t, a.evalCommand(), parseEval, "--stages", tc.stages)
		if tc.err != "" {
			if exitCode(context.Background(), err) != exitUsage || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("--stages %q: %v; want a usage error %q", tc.stages, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got.stages, tc.want) {
			t.Errorf("--stages %q: %v, %v; want %v", tc.stages, got.stages, err, tc.want)
		}
	}
}
