package datasets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"gopkg.in/yaml.v3"

	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// mixedExamples are n examples of each kind over two stages and both
// splits: unicode, newlines, quotes, HTML characters, empty answers, a NULL
// commit, KTO rows with and without a system turn (and one with an empty
// one), both KTO labels in each stage, signals and evidence.
func mixedExamples(n int) []kb.TrainingExample {
	at := time.Date(2026, 11, 1, 10, 0, 0, 123456000, time.UTC)
	sys := kb.Message{Role: "system", Content: "You write the edits."}
	answer := func(s string) kb.Message { return kb.Message{Role: "assistant", Content: s} }
	signals := []string{"coder_retry", "adjustment", "eval", "teacher_student"}
	var out []kb.TrainingExample
	for i := range n {
		base := kb.TrainingExample{Stage: []string{"implement", "scope"}[i%2], Source: "logged", Split: kb.SplitTrain,
			RepoPath: fmt.Sprintf("/repos/r%d", i%3), Commit: fmt.Sprintf("c%d", i), TargetID: fmt.Sprintf("t%d", i),
			PromptTokens: 100 + i, CompletionTokens: 10 + i, CreatedAt: at.Add(time.Duration(i) * time.Second)}
		if i%4 == 0 {
			base.Split = kb.SplitValidation
		}
		if i%5 == 0 {
			base.Commit = ""
		}
		user := kb.Message{Role: "user", Content: fmt.Sprintf("Task %d:\n- naïve → fixed ✓\n\ttab \"quoted\" <b>&amp;</b>", i)}
		good := answer(fmt.Sprintf(`{"edits": [{"file": "a%d.py"}]}`, i))
		bad := answer("")
		if i%7 != 0 {
			bad = answer(fmt.Sprintf("wrong answer %d", i))
		}

		sft := base
		sft.ID, sft.Kind, sft.Label, sft.Source = fmt.Sprintf("sft%04d", i), kb.KindSFT, kb.LabelPositive, "synthetic"
		sft.Messages = []kb.Message{sys, user, good}

		pair := base
		pair.ID, pair.Kind, pair.Label = fmt.Sprintf("pref%04d", i), kb.KindPreference, kb.LabelPair
		pair.Messages, pair.Chosen, pair.Rejected = []kb.Message{sys, user}, []kb.Message{good}, []kb.Message{bad}
		pair.Signal, pair.Evidence, pair.TaskID = signals[i%4], fmt.Sprintf(`{"run": "r%d", "attempts": [1, 2]}`, i), fmt.Sprintf("task%d", i)

		kto := base
		kto.ID, kto.Kind, kto.Label = fmt.Sprintf("kto%04d", i), kb.KindKTO, kb.LabelPositive
		kto.Messages = []kb.Message{sys, user, good}
		if i/2%2 == 1 {
			kto.Label, kto.Messages[2] = kb.LabelNegative, bad
		}
		switch i % 6 {
		case 3:
			kto.Messages = kto.Messages[1:] // no system turn
		case 5:
			kto.Messages = []kb.Message{{Role: "system", Content: ""}, user, kto.Messages[2]}
		}
		kto.Signal, kto.Evidence = "eval", fmt.Sprintf(`{"eval": "e%d", "score": 0.5}`, i)
		out = append(out, sft, pair, kto)
	}
	return out
}

// mixedStore is a home whose raw store holds dataset "mix": mixedExamples(n),
// and the raw store opened to read it.
func mixedStore(t testing.TB, n int) (*kb.Store, string) {
	home := storetest.Home(t)
	storetest.Dataset(t, home, "mix", mixedExamples(n))
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw, home
}

// mixRows are the table's rows of dataset "mix" as an export gives them
// back, sorted by id.
func mixRows(t testing.TB, q kb.Querier) []kb.TrainingExample {
	var out []kb.TrainingExample
	if err := kb.EachTrainingExample(context.Background(), q, "mix", 1, func(e kb.TrainingExample) error {
		e.Version = 0
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return normalise(out)
}

func ofKindRows(rows []kb.TrainingExample, kinds ...string) []kb.TrainingExample {
	var out []kb.TrainingExample
	for _, e := range rows {
		if slices.Contains(kinds, e.Kind) {
			out = append(out, e)
		}
	}
	return out
}

// The trainer fields each layout names, as DuckDB types them (quotes
// dropped) and as Arrow types them, then the metadata after them.
const (
	duckMessages = "STRUCT(role VARCHAR, content VARCHAR)[]"
	duckMessage  = "STRUCT(role VARCHAR, content VARCHAR)"
	arrowMsgs    = "list<element: struct<role: utf8, content: utf8>, nullable>"
	arrowMsg     = "struct<role: utf8, content: utf8>"
	duckKwargs   = "STRUCT(enable_thinking BOOLEAN)"
	arrowKwargs  = "struct<enable_thinking: bool>"
)

var layoutFields = map[string][][3]string{ // name, DuckDB type, Arrow type
	"trl/sft":            {{"prompt", duckMessages, arrowMsgs}, {"completion", duckMessages, arrowMsgs}, {"chat_template_kwargs", duckKwargs, arrowKwargs}},
	"trl/preference":     {{"prompt", duckMessages, arrowMsgs}, {"chosen", duckMessages, arrowMsgs}, {"rejected", duckMessages, arrowMsgs}, {"chat_template_kwargs", duckKwargs, arrowKwargs}},
	"trl/kto":            {{"prompt", duckMessages, arrowMsgs}, {"completion", duckMessages, arrowMsgs}, {"label", "BOOLEAN", "bool"}, {"chat_template_kwargs", duckKwargs, arrowKwargs}},
	"openai/sft":         {{"messages", duckMessages, arrowMsgs}},
	"openai/preference":  {{"input", "STRUCT(messages " + duckMessages + ")", "struct<messages: " + arrowMsgs + ">"}, {"preferred_output", duckMessages, arrowMsgs}, {"non_preferred_output", duckMessages, arrowMsgs}},
	"axolotl/sft":        {{"messages", duckMessages, arrowMsgs}},
	"axolotl/preference": {{"messages", duckMessages, arrowMsgs}, {"chosen", duckMessage, arrowMsg}, {"rejected", duckMessage, arrowMsg}},
	"axolotl/kto":        {{"system", "VARCHAR", "utf8"}, {"prompt", "VARCHAR", "utf8"}, {"completion", "VARCHAR", "utf8"}, {"label", "BOOLEAN", "bool"}},
}

// metadataNames are the metadata columns of every layout and kind.
var metadataNames = []string{"cra_id", "cra_dataset", "cra_stage", "cra_source", "cra_split", "cra_repo", "cra_commit", "cra_label",
	"cra_signal", "cra_evidence", "cra_prompt_tokens", "cra_completion_tokens", "cra_created_at"}

// canonical is, per layout and kind, SQL over the layout's fields giving a
// row's messages, chosen, rejected and label as the table holds them.
var canonical = map[string]string{
	"trl/sft":            "prompt || completion, NULL, NULL, cra_label",
	"trl/preference":     "prompt, chosen, rejected, cra_label",
	"trl/kto":            "prompt || completion, NULL, NULL, CASE WHEN label THEN 'positive' ELSE 'negative' END",
	"openai/sft":         "messages, NULL, NULL, cra_label",
	"openai/preference":  "input.messages, preferred_output, non_preferred_output, cra_label",
	"axolotl/sft":        "messages, NULL, NULL, cra_label",
	"axolotl/preference": "messages, [chosen], [rejected], cra_label",
	"axolotl/kto": `CASE WHEN system IS NULL THEN [] ELSE [{'role': 'system', 'content': system}] END
		|| [{'role': 'user', 'content': prompt}, {'role': 'assistant', 'content': completion}], NULL, NULL,
		CASE WHEN label THEN 'positive' ELSE 'negative' END`,
}

// Every layout, format and kind, written from a real store and read back by
// DuckDB (read_parquet, read_json), by Arrow (the Parquet schema) and by
// ReadFile, each equal to the table.
func TestExportLayouts(t *testing.T) {
	raw, _ := mixedStore(t, 40)
	table := mixRows(t, raw.DB)
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	for _, layout := range Layouts {
		for _, format := range []string{FormatParquet, FormatJSONL} {
			t.Run(layout+"-"+format, func(t *testing.T) {
				kinds := layoutsKinds(layout)
				dir := filepath.Join(t.TempDir(), "out")
				m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"},
					ExportOptions{Format: format, Layout: layout, Kinds: kinds, Out: dir, ShardBytes: 2 << 10})
				if err != nil {
					t.Fatal(err)
				}
				want := ofKindRows(table, kinds...)
				if got := readDir(t, dir); !reflect.DeepEqual(got, want) {
					t.Fatalf("ReadFile gives %d rows; they differ from the table's %d (first: %+v vs %+v)", len(got), len(want), first(got), first(want))
				}
				if rep, err := Inspect(context.Background(), dir); err != nil || len(rep.Problems) != 0 {
					t.Errorf("inspect: %v %v", err, rep.Problems)
				}
				if m.Layout != layout || m.SchemaVersion != SchemaVersion {
					t.Errorf("manifest: layout %q, schema %d", m.Layout, m.SchemaVersion)
				}
				for _, kind := range kinds {
					key := layout + "/" + kind
					glob := filepath.Join(dir, "*", kind, "*."+format)
					files, _ := filepath.Glob(glob)
					if len(files) < 3 { // implement's train and validation, scope's train
						t.Fatalf("%s: %d files", key, len(files))
					}
					for _, f := range m.Files {
						if f.Kind == kind && !strings.HasPrefix(f.Path, f.Stage+"/"+kind+"/"+f.Split+"-") {
							t.Errorf("%s: file %s", key, f.Path)
						}
					}
					duckColumns(t, duck, key, reader(format, glob))
					duckRows(t, duck, key, reader(format, glob), ofKindRows(want, kind))
					if format == FormatParquet {
						arrowSchemas(t, key, files)
					}
				}
			})
		}
	}
}

// layoutsKinds are the kinds layout writes.
func layoutsKinds(layout string) []string {
	var out []string
	for _, k := range kb.ExampleKinds {
		if shapeOf(layout, k) != nil {
			out = append(out, k)
		}
	}
	return out
}

func reader(format, glob string) string {
	if format == FormatJSONL {
		return fmt.Sprintf("read_json('%s')", glob)
	}
	return fmt.Sprintf("read_parquet('%s')", glob)
}

// duckColumns checks the names and types DuckDB reads: the layout's fields
// first, typed as the layout names them, then the metadata.
func duckColumns(t *testing.T, duck *sql.DB, key, from string) {
	t.Helper()
	rows, err := duck.Query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " + from + ")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names, types []string
	for rows.Next() {
		var n, ty string
		if err := rows.Scan(&n, &ty); err != nil {
			t.Fatal(err)
		}
		names, types = append(names, n), append(types, strings.ReplaceAll(ty, `"`, ""))
	}
	fields := layoutFields[key]
	var wantNames []string
	for i, f := range fields {
		wantNames = append(wantNames, f[0])
		if i < len(types) && types[i] != f[1] {
			t.Errorf("%s (%s): %s is %s, want %s", key, from, f[0], types[i], f[1])
		}
	}
	wantNames = append(wantNames, metadataNames...)
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("%s (%s): columns %v, want %v", key, from, names, wantNames)
	}
}

// duckRows reads the rows back through DuckDB by the layout's field names
// and compares them with the table's.
func duckRows(t *testing.T, duck *sql.DB, key, from string, want []kb.TrainingExample) {
	t.Helper()
	rows, err := duck.Query(fmt.Sprintf(`SELECT cra_id, %s, cra_commit, cra_signal, cra_evidence, cra_prompt_tokens,
		cra_completion_tokens, epoch_us(cra_created_at) FROM %s ORDER BY cra_id`, canonical[key], from))
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	defer rows.Close()
	var got []kb.TrainingExample
	for rows.Next() {
		var e kb.TrainingExample
		var msgs, chosen, rejected any
		var commit, signal, evidence sql.NullString
		var at int64
		if err := rows.Scan(&e.ID, &msgs, &chosen, &rejected, &e.Label, &commit, &signal, &evidence, &e.PromptTokens,
			&e.CompletionTokens, &at); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		e.Messages, e.Chosen, e.Rejected = toMessages(t, msgs), toMessages(t, chosen), toMessages(t, rejected)
		e.Commit, e.Signal, e.Evidence, e.CreatedAt = commit.String, signal.String, evidence.String, time.UnixMicro(at).UTC()
		got = append(got, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var exp []kb.TrainingExample
	for _, e := range want {
		exp = append(exp, kb.TrainingExample{ID: e.ID, Label: e.Label, Messages: e.Messages, Chosen: e.Chosen, Rejected: e.Rejected,
			Commit: e.Commit, Signal: e.Signal, Evidence: e.Evidence, PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens,
			CreatedAt: e.CreatedAt})
	}
	sort.Slice(exp, func(i, j int) bool { return exp[i].ID < exp[j].ID })
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("%s (%s): DuckDB reads %d rows that differ from the table's %d (first: %+v vs %+v)", key, from, len(got), len(exp), first(got), first(exp))
	}
}

// toMessages is a DuckDB list of {role, content} structs as messages.
func toMessages(t *testing.T, v any) []kb.Message {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("messages scanned as %T", v)
	}
	out := []kb.Message{}
	for _, x := range list {
		m := x.(map[string]any)
		out = append(out, kb.Message{Role: m["role"].(string), Content: m["content"].(string)})
	}
	return out
}

// arrowSchemas checks each Parquet file's Arrow schema: the layout's fields
// typed as it names them, and the same schema in every file of the kind.
func arrowSchemas(t *testing.T, key string, files []string) {
	t.Helper()
	var firstSchema *arrow.Schema
	for _, p := range files {
		rdr, err := file.OpenParquetFile(p, false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		s, err := fr.Schema()
		rdr.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range layoutFields[key] {
			if got := s.Field(i); got.Name != f[0] || got.Type.String() != f[2] {
				t.Errorf("%s: %s: column %d is %s %s, want %s %s", key, filepath.Base(p), i, got.Name, got.Type, f[0], f[2])
			}
		}
		if firstSchema == nil {
			firstSchema = s
		} else if !s.Equal(firstSchema) {
			t.Errorf("%s: %s has schema\n%s\nanother file of the kind has\n%s", key, p, s, firstSchema)
		}
	}
}

// The openai layout has no KTO format: a dataset with kto rows is refused
// before anything is written, naming the layouts and the --kinds that
// would do; with the kinds selected, the manifest and card say what was
// left out.
func TestOpenAIRefusesKTO(t *testing.T) {
	raw, _ := mixedStore(t, 8)
	dir := filepath.Join(t.TempDir(), "out")
	_, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"}, ExportOptions{Layout: LayoutOpenAI, Format: FormatJSONL, Out: dir})
	var le *LayoutError
	if !errors.As(err, &le) || le.Kind != kb.KindKTO || le.Rows != 8 {
		t.Fatalf("openai export of a dataset with kto rows: %v", err)
	}
	for _, s := range []string{"layout openai has no format for kto rows", "mix@1 holds 8", "--layout trl or axolotl", "--kinds sft,preference"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the refused export made its directory: %v", err)
	}

	m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"},
		ExportOptions{Layout: LayoutOpenAI, Format: FormatJSONL, Out: dir, Kinds: []string{kb.KindSFT, kb.KindPreference}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.LeftOut, map[string]int{kb.KindKTO: 8}) {
		t.Errorf("left out %v, want 8 kto", m.LeftOut)
	}
	for _, f := range m.Files {
		if f.Kind == kb.KindKTO {
			t.Errorf("a kto file was written: %s", f.Path)
		}
	}
	if readme, _ := os.ReadFile(filepath.Join(dir, "README.md")); !strings.Contains(string(readme), "Left out of this export (`--kinds`): 8 kto rows.") {
		t.Errorf("the card does not say the kto rows were left out:\n%s", readme)
	}

	// Asked for by name, kto is refused whatever the dataset holds.
	_, err = Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"},
		ExportOptions{Layout: LayoutOpenAI, Kinds: []string{kb.KindKTO}, Out: filepath.Join(t.TempDir(), "kto")})
	if !errors.As(err, &le) || err.Error() != "layout openai has no format for kto rows: export them with --layout trl or axolotl" {
		t.Errorf("openai export of --kinds kto: %v", err)
	}
}

// A row the layout's format cannot carry is refused, naming it; the trl
// layout, which can, writes it.
func TestLayoutRefusesRowItCannotCarry(t *testing.T) {
	home := storetest.Home(t)
	e := mixedExamples(1)[2] // kto
	e.Messages = append([]kb.Message{e.Messages[1], {Role: "assistant", Content: "first try"}}, e.Messages[1:]...)
	storetest.Dataset(t, home, "mix", []kb.TrainingExample{e})
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	_, err = Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"}, ExportOptions{Layout: LayoutAxolotl, Out: filepath.Join(t.TempDir(), "out")})
	var le *LayoutError
	if !errors.As(err, &le) || le.ID != e.ID || !strings.Contains(err.Error(), "export it with --layout trl") {
		t.Fatalf("axolotl export of a multi-turn kto prompt: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "trl")
	if _, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"}, ExportOptions{Out: dir}); err != nil {
		t.Fatal(err)
	}
	if got := readDir(t, dir); len(got) != 1 || !reflect.DeepEqual(got[0].Messages, e.Messages) {
		t.Errorf("trl export of the multi-turn kto prompt read back as %+v", got)
	}
}

// The card of a mixed dataset, one of whose stages has validation rows
// only, in each layout: golden files (-update
// rewrites them), a YAML front matter whose configs cover every file, and
// axolotl snippets that are YAML.
func TestCardGolden(t *testing.T) {
	home := storetest.Home(t)
	storetest.Dataset(t, home, "mix", withEvalOnlyStage(12))
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, tc := range []struct {
		layout, format string
		kinds          []string
	}{
		{LayoutTRL, FormatParquet, nil},
		{LayoutOpenAI, FormatJSONL, []string{kb.KindSFT, kb.KindPreference}},
		{LayoutAxolotl, FormatParquet, nil},
	} {
		dir := filepath.Join(t.TempDir(), tc.layout)
		m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"}, ExportOptions{Layout: tc.layout, Format: tc.format, Kinds: tc.kinds, Out: dir})
		if err != nil {
			t.Fatal(err)
		}
		readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
		if err != nil || string(readme) != card(m) {
			t.Errorf("%s: README.md is not the manifest's card (%v)", tc.layout, err)
		}
		checkCardConfigs(t, dir, m, string(readme))
		if tc.layout == LayoutAxolotl {
			blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
			if want := len(configs(m)) - len(evalOnly(configs(m))); len(blocks) != want {
				t.Errorf("axolotl: %d yaml snippets, want one per config with train rows (%d)", len(blocks), want)
			}
			for _, b := range blocks {
				var cfg struct {
					Datasets []map[string]any `yaml:"datasets"`
				}
				if err := yaml.Unmarshal([]byte(b[1]), &cfg); err != nil || len(cfg.Datasets) != 1 || cfg.Datasets[0]["type"] == nil {
					t.Errorf("axolotl snippet is not a datasets config (%v):\n%s", err, b[1])
				}
			}
		}
		m.CraVersion, m.CreatedAt = "test", time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
		golden.Assert(t, filepath.Join("testdata", "card_"+tc.layout+".golden"), []byte(card(m)))
	}
}

// checkCardConfigs checks the card's front matter: one config per stage and
// kind of the manifest, named stage-kind, whose data_files cover exactly
// that config's files.
func checkCardConfigs(t *testing.T, dir string, m *Manifest, readme string) {
	t.Helper()
	front, _, ok := strings.Cut(strings.TrimPrefix(readme, "---\n"), "\n---\n")
	if !ok {
		t.Fatalf("README.md has no YAML front matter:\n%s", readme)
	}
	var meta struct {
		Configs []struct {
			Name  string `yaml:"config_name"`
			Files []struct {
				Split string `yaml:"split"`
				Path  string `yaml:"path"`
			} `yaml:"data_files"`
		} `yaml:"configs"`
	}
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		t.Fatal(err)
	}
	covered := map[string]string{} // file → config
	for _, c := range meta.Configs {
		for _, f := range c.Files {
			matches, _ := filepath.Glob(filepath.Join(dir, f.Path))
			for _, p := range matches {
				rel, _ := filepath.Rel(dir, p)
				covered[filepath.ToSlash(rel)] = c.Name + "/" + f.Split
			}
		}
	}
	for _, f := range m.Files {
		if want := f.Stage + "-" + f.Kind + "/" + f.Split; covered[f.Path] != want {
			t.Errorf("%s: the card's config for %s is %q, want %q", m.Layout, f.Path, covered[f.Path], want)
		}
	}
	if len(covered) != len(m.Files) {
		t.Errorf("%s: the card's data_files match %d files, the manifest lists %d", m.Layout, len(covered), len(m.Files))
	}
}

// Inspect reads each file as its manifest kind's columns: a file with
// another kind's columns is a problem even when its sha256 is right.
func TestInspectChecksKindColumns(t *testing.T) {
	raw, _ := mixedStore(t, 8)
	dir := filepath.Join(t.TempDir(), "out")
	m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"}, ExportOptions{Format: FormatJSONL, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	var sft, pref *FileEntry
	for i, f := range m.Files {
		switch {
		case f.Kind == kb.KindSFT && sft == nil:
			sft = &m.Files[i]
		case f.Kind == kb.KindPreference && pref == nil:
			pref = &m.Files[i]
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, pref.Path))
	os.WriteFile(filepath.Join(dir, sft.Path), b, 0o644) //nolint:errcheck // inspected below
	sft.SHA256, sft.Rows = pref.SHA256, pref.Rows
	if err := writeJSON(filepath.Join(dir, ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	rep, err := Inspect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(rep.Problems, "\n"); !strings.Contains(all, sft.Path+": line 1: keys") {
		t.Errorf("problems:\n%s\nwant %s's columns named", all, sft.Path)
	}
}

// The openai layout writes no shard under 10 rows when its split has 10 or
// more, however small the shard size (a shard is cut after 10 rows, and
// only when 10 more follow); other layouts cut by size alone. A split of
// fewer than 10 rows is written with a warning naming its config, split
// and count, in the manifest and the card.
func TestOpenAIShardsAndSmallSplits(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	var examples []kb.TrainingExample
	for _, g := range []struct {
		stage, split string
		n            int
	}{{"plan", kb.SplitTrain, 25}, {"plan", kb.SplitValidation, 10}, {"scope", kb.SplitTrain, 9}, {"scope", kb.SplitValidation, 1}} {
		for i := range g.n {
			examples = append(examples, kb.TrainingExample{ID: fmt.Sprintf("%s-%s-%02d", g.stage, g.split, i), Stage: g.stage,
				Source: "synthetic", Split: g.split, Kind: kb.KindSFT, Label: kb.LabelPositive, RepoPath: "/r", CreatedAt: at,
				Messages: []kb.Message{{Role: "user", Content: "Plan."}, {Role: "assistant", Content: fmt.Sprint(i)}}})
		}
	}
	home := storetest.Home(t)
	storetest.Dataset(t, home, "small", examples)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	for _, tc := range []struct {
		layout, format string
		shards         map[string][]int // stage/split → rows per shard
		warnings       []string
	}{
		{LayoutOpenAI, FormatJSONL, map[string][]int{"plan/train": {10, 15}, "plan/validation": {10}, "scope/train": {9}, "scope/validation": {1}},
			[]string{"config scope-sft, split train: 9 rows", "config scope-sft, split validation: 1 row,"}},
		{LayoutOpenAI, FormatParquet, map[string][]int{"plan/train": {10, 15}, "plan/validation": {10}, "scope/train": {9}, "scope/validation": {1}},
			[]string{"config scope-sft, split train: 9 rows", "config scope-sft, split validation: 1 row,"}},
		{LayoutAxolotl, FormatJSONL, map[string][]int{"plan/train": slices.Repeat([]int{1}, 25), "plan/validation": slices.Repeat([]int{1}, 10),
			"scope/train": slices.Repeat([]int{1}, 9), "scope/validation": {1}}, nil},
	} {
		t.Run(tc.layout+"-"+tc.format, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "small"},
				ExportOptions{Layout: tc.layout, Format: tc.format, Out: dir, ShardBytes: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]int{}
			for _, f := range m.Files {
				got[f.Stage+"/"+f.Split] = append(got[f.Stage+"/"+f.Split], f.Rows)
			}
			if !reflect.DeepEqual(got, tc.shards) {
				t.Errorf("rows per shard %v, want %v", got, tc.shards)
			}
			if len(m.Warnings) != len(tc.warnings) {
				t.Errorf("warnings %q, want %d", m.Warnings, len(tc.warnings))
			}
			readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
			for i, w := range tc.warnings {
				if i < len(m.Warnings) && (!strings.HasPrefix(m.Warnings[i], w) || !strings.Contains(m.Warnings[i], "fewer than 10 examples")) {
					t.Errorf("warning %q, want it to start %q and name the limit", m.Warnings[i], w)
				}
				if !strings.Contains(string(readme), w) {
					t.Errorf("the card does not warn %q", w)
				}
			}
			if got := readDir(t, dir); len(got) != len(examples) {
				t.Errorf("read back %d rows, want %d", len(got), len(examples))
			}
			if rep, err := Inspect(context.Background(), dir); err != nil || len(rep.Problems) != 0 {
				t.Errorf("inspect: %v %v", err, rep.Problems)
			}
		})
	}
}
