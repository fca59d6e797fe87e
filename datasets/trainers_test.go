package datasets

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// trainerFields are the column names a trainer of one of the layouts reads
// from a row, at TRL f2cd577, axolotl 067b021 and OpenAI's fine-tuning
// formats: a metadata column with one of these names is taken for a field
// of the format (TRL's _unpair_row copies every extra column over its own
// label; apply_chat_template refuses a row whose keys are not one of its
// formats).
var trainerFields = []string{
	// TRL: trl/data_utils.py apply_chat_template (supported_keys, the
	// chat_template_kwargs and tools of a row), sft_trainer.py (text,
	// image, images, tools, chat_template_kwargs), kto_trainer.py and
	// dpo_trainer.py tokenize_fn (tools, chat_template_kwargs).
	"messages", "prompt", "completion", "chosen", "rejected", "label", "text", "tools", "image", "images",
	"chat_template_kwargs",
	// OpenAI: supervised {messages, tools, parallel_tool_calls}; DPO {input,
	// preferred_output, non_preferred_output}.
	"input", "preferred_output", "non_preferred_output", "parallel_tool_calls",
	// axolotl: chat_template (messages, conversations, system, tools),
	// chatml.ultra / llama3.ultra KTO (system, prompt, completion, label),
	// alpaca-style types (instruction, input, output).
	"conversations", "system", "instruction", "output",
}

// No layout and kind has a metadata column a trainer reads: every column
// is one of the layout's own fields or named cra_*.
func TestNoMetadataColumnIsATrainerField(t *testing.T) {
	for _, sh := range shapes {
		key := sh.layout + "/" + sh.kind
		t.Run(key, func(t *testing.T) {
			var own, meta []string
			for _, c := range sh.cols {
				if strings.HasPrefix(c.field.Name, metaPrefix) {
					meta = append(meta, c.field.Name)
				} else {
					own = append(own, c.field.Name)
				}
			}
			var want []string
			for _, f := range layoutFields[key] {
				want = append(want, f[0])
			}
			if !reflect.DeepEqual(own, want) {
				t.Errorf("columns not named %s*: %v, want only the layout's fields %v", metaPrefix, own, want)
			}
			if !reflect.DeepEqual(meta, metadataNames) {
				t.Errorf("metadata %v, want %v", meta, metadataNames)
			}
			for _, m := range meta {
				if slices.Contains(trainerFields, m) {
					t.Errorf("metadata column %s is a trainer field", m)
				}
			}
		})
	}
}

// trlFormat is TRL's check of a conversational row's keys, reimplemented
// from apply_chat_template (trl/data_utils.py lines 214-224 at TRL
// f2cd577): the row's keys among prompt, chosen, rejected, completion,
// messages and label must be one of its formats, else KeyError.
func trlFormat(keys []string) error {
	supported := []string{"prompt", "chosen", "rejected", "completion", "messages", "label"}
	var got []string
	for _, k := range keys {
		if slices.Contains(supported, k) {
			got = append(got, k)
		}
	}
	sort.Strings(got)
	for _, f := range [][]string{{"messages"}, {"prompt"}, {"completion", "prompt"}, {"chosen", "prompt", "rejected"},
		{"chosen", "rejected"}, {"completion", "label", "prompt"}} {
		if slices.Equal(got, f) {
			return nil
		}
	}
	return fmt.Errorf("KeyError: Invalid keys in the example: %v", got)
}

// Every TRL row is one of TRL's formats; schema 2's sft row, messages and
// a string label, was not.
func TestTRLRowsAreTRLFormats(t *testing.T) {
	for _, k := range kb.ExampleKinds {
		sh := shapeOf(LayoutTRL, k)
		if err := trlFormat(strings.Split(sh.keys(), ",")); err != nil {
			t.Errorf("trl/%s: %v", k, err)
		}
	}
	if err := trlFormat([]string{"messages", "id", "label"}); err == nil {
		t.Error("schema 2's sft row passes the check: the test proves nothing")
	}
}

// unpairRow is TRL's _unpair_row (trl/data_utils.py lines 440-451 at TRL
// f2cd577), over a batch of columns: each pair becomes a chosen row
// labelled True and a rejected row labelled False, and every other column
// is copied to both, after the label, so a column named label overwrites
// it.
func unpairRow(batch map[string][]any) map[string][]any {
	n := len(batch["chosen"])
	label := make([]any, 0, 2*n)
	for i := range 2 * n {
		label = append(label, i < n)
	}
	out := map[string][]any{"completion": slices.Concat(batch["chosen"], batch["rejected"]), "label": label}
	if p, ok := batch["prompt"]; ok {
		out["prompt"] = slices.Concat(p, p)
	}
	for k, v := range batch {
		if k != "chosen" && k != "rejected" && k != "prompt" {
			out[k] = slices.Concat(v, v)
		}
	}
	return out
}

// ktoDesirable is KTOTrainer's count of desirable rows,
// max(sum(dataset["label"]), 1) (trl/trainer/kto_trainer.py line 1115 at
// TRL f2cd577): Python's sum adds bools as ints and raises TypeError on a
// string.
func ktoDesirable(labels []any) (int, error) {
	sum := 0
	for _, l := range labels {
		switch v := l.(type) {
		case bool:
			if v {
				sum++
			}
		default:
			return 0, fmt.Errorf("TypeError: unsupported operand type(s) for +: 'int' and '%T'", l)
		}
	}
	return max(sum, 1), nil
}

// rowsOf reads every row of an export's files of kind as column → value,
// as a Python reader gets them: JSON objects, or Parquet rows through
// DuckDB.
func rowsOf(t *testing.T, dir, kind string) []map[string]any {
	t.Helper()
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, f := range m.Files {
		if f.Kind != kind {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if m.Format == FormatJSONL {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				var row map[string]any
				if err := json.Unmarshal([]byte(line), &row); err != nil {
					t.Fatal(err)
				}
				out = append(out, row)
			}
			continue
		}
		out = append(out, duckRowsOf(t, p)...)
	}
	return out
}

func duckRowsOf(t *testing.T, path string) []map[string]any {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return storetest.MapsOf(t, db, fmt.Sprintf("SELECT * FROM read_parquet('%s')", path))
}

// batchOf is rows as one batch of columns, as datasets' map(batched=True)
// hands them to a function.
func batchOf(rows []map[string]any) map[string][]any {
	b := map[string][]any{}
	for _, r := range rows {
		for k, v := range r {
			b[k] = append(b[k], v)
		}
	}
	return b
}

// schema2 renames a row's cra_* columns as schema 2 named them: id, label,
// ... (a preference row's label was the string "pair").
func schema2(rows []map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range rows {
		o := map[string]any{}
		for k, v := range r {
			o[strings.TrimPrefix(k, metaPrefix)] = v
		}
		out = append(out, o)
	}
	return out
}

// KTOTrainer takes the trl layout's preference rows as they are, in both
// formats: it unpairs them (kto_trainer.py lines 1029-1033 at TRL f2cd577)
// and counts the desirable ones. Schema 2's rows, a string column named
// label among them, made the count raise TypeError.
func TestKTOUnpairsExportedPreferenceRows(t *testing.T) {
	raw, _ := mixedStore(t, 12)
	for _, format := range []string{FormatParquet, FormatJSONL} {
		dir := filepath.Join(t.TempDir(), format)
		if _, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"},
			ExportOptions{Format: format, Kinds: []string{kb.KindPreference}, Out: dir}); err != nil {
			t.Fatal(err)
		}
		rows := rowsOf(t, dir, kb.KindPreference)
		if len(rows) != 12 {
			t.Fatalf("%s: %d preference rows, want 12", format, len(rows))
		}
		for _, tc := range []struct {
			name    string
			rows    []map[string]any
			wantErr string
		}{
			{"schema 3", rows, ""},
			{"schema 2", schema2(rows), "TypeError"},
		} {
			unpaired := unpairRow(batchOf(tc.rows))
			n, err := ktoDesirable(unpaired["label"])
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s, %s: KTO's count of desirable rows gives %d, %v; want %s", format, tc.name, n, err, tc.wantErr)
			case tc.wantErr == "" && (err != nil || n != 12 || len(unpaired["label"]) != 24):
				t.Errorf("%s, %s: KTO's count of desirable rows gives %d of %d, %v; want 12 of 24", format, tc.name, n, len(unpaired["label"]), err)
			}
			if tc.wantErr != "" {
				continue
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range unpaired {
					if !yield(k) {
						return
					}
				}
			})
			if err := trlFormat(keys); err != nil {
				t.Errorf("%s: an unpaired row: %v", format, err)
			}
		}
	}
}

// Every trl row carries chat_template_kwargs with the enable_thinking
// inference sends, in both formats; inspect checks it against the
// manifest.
func TestTRLRowsCarryTemplateKwargs(t *testing.T) {
	raw, _ := mixedStore(t, 8)
	for _, format := range []string{FormatParquet, FormatJSONL} {
		for _, think := range []bool{false, true} {
			dir := filepath.Join(t.TempDir(), fmt.Sprint(format, think))
			m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"}, ExportOptions{Format: format, Out: dir, EnableThinking: think})
			if err != nil {
				t.Fatal(err)
			}
			if m.EnableThinking != think {
				t.Errorf("%s: the manifest says enable_thinking %v, want %v", format, m.EnableThinking, think)
			}
			for _, kind := range kb.ExampleKinds {
				rows := rowsOf(t, dir, kind)
				if len(rows) == 0 {
					t.Fatalf("%s: no %s rows", format, kind)
				}
				for _, r := range rows {
					if got := r["chat_template_kwargs"]; !reflect.DeepEqual(got, map[string]any{"enable_thinking": think}) {
						t.Fatalf("%s %s row %v: chat_template_kwargs %#v, want enable_thinking %v", format, kind, r["cra_id"], got, think)
					}
				}
			}
			if rep, err := Inspect(context.Background(), dir); err != nil || len(rep.Problems) != 0 {
				t.Errorf("%s: inspect: %v %v", format, err, rep.Problems)
			}
			m.EnableThinking = !think
			if err := writeJSON(filepath.Join(dir, ManifestFile), m); err != nil {
				t.Fatal(err)
			}
			if rep, err := Inspect(context.Background(), dir); err != nil || !strings.Contains(strings.Join(rep.Problems, "\n"), "enable_thinking") {
				t.Errorf("%s: inspect of rows whose enable_thinking the manifest contradicts: %v %v", format, err, rep)
			}
		}
	}
}

// trlPromptTurn is how TRL renders a conversational prompt
// (trl/data_utils.py apply_chat_template, lines 237-246 at TRL f2cd577):
// after a user or tool turn with the generation prompt, after an
// assistant turn by continuing it; any other last turn is a ValueError.
func trlPromptTurn(prompt []kb.Message) error {
	if len(prompt) == 0 {
		return errors.New("IndexError: an empty prompt")
	}
	switch r := prompt[len(prompt)-1].Role; r {
	case "user", "tool", "assistant":
		return nil
	default:
		return fmt.Errorf("ValueError: Invalid role in the last message: %s", r)
	}
}

// A multi-turn sft row exports as the prompt, everything before its last
// assistant turn, and the completion, that turn: TRL renders prompt +
// completion (sft_trainer.py tokenize_fn, lines 1466-1480 at TRL
// f2cd577) and computes the loss on the completion (completion_only_loss
// None: "prompt" and "completion" in the row, lines 1174-1175), so the
// rendering is the conversation's and only the last answer is trained
// on. A row without an assistant turn after a prompt is refused.
func TestSFTPromptCompletion(t *testing.T) {
	sys, user := kb.Message{Role: "system", Content: "You write the edits."}, kb.Message{Role: "user", Content: "Fix it."}
	first, again := kb.Message{Role: "assistant", Content: "first try"}, kb.Message{Role: "user", Content: "The tests fail: try again."}
	final := kb.Message{Role: "assistant", Content: `{"edits": []}`}
	row := func(id string, msgs ...kb.Message) kb.TrainingExample {
		return kb.TrainingExample{ID: id, Stage: "implement", Source: "logged", Split: kb.SplitTrain, Kind: kb.KindSFT,
			Label: kb.LabelPositive, RepoPath: "/r", Messages: msgs}
	}
	for _, tc := range []struct {
		name               string
		msgs               []kb.Message
		prompt, completion []kb.Message
		refused            bool
	}{
		{"one turn", []kb.Message{sys, user, final}, []kb.Message{sys, user}, []kb.Message{final}, false},
		{"multi-turn", []kb.Message{sys, user, first, again, final}, []kb.Message{sys, user, first, again}, []kb.Message{final}, false},
		{"no system turn", []kb.Message{user, final}, []kb.Message{user}, []kb.Message{final}, false},
		{"no assistant turn", []kb.Message{sys, user}, nil, nil, true},
		{"no prompt", []kb.Message{final}, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := storetest.Home(t)
			storetest.Dataset(t, home, "mt", []kb.TrainingExample{row("a", tc.msgs...)})
			raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			for _, format := range []string{FormatParquet, FormatJSONL} {
				dir := filepath.Join(t.TempDir(), format)
				_, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mt"}, ExportOptions{Format: format, Out: dir})
				var le *LayoutError
				if tc.refused {
					if !errors.As(err, &le) || le.ID != "a" {
						t.Errorf("%s: export of %v: %v, want a layout error naming the row", format, tc.msgs, err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				r := rowsOf(t, dir, kb.KindSFT)[0]
				prompt, completion := asMessages(t, r["prompt"]), asMessages(t, r["completion"])
				if !reflect.DeepEqual(prompt, tc.prompt) || !reflect.DeepEqual(completion, tc.completion) {
					t.Errorf("%s: prompt %v, completion %v; want %v, %v", format, prompt, completion, tc.prompt, tc.completion)
				}
				if err := trlPromptTurn(prompt); err != nil {
					t.Errorf("%s: %v", format, err)
				}
				if got := append(prompt, completion...); !reflect.DeepEqual(got, tc.msgs) {
					t.Errorf("%s: prompt + completion render %v, the conversation is %v", format, got, tc.msgs)
				}
				if got := readDir(t, dir); len(got) != 1 || !reflect.DeepEqual(got[0].Messages, tc.msgs) {
					t.Errorf("%s: read back as %+v", format, got)
				}
			}
		})
	}
}

// asMessages is a list of {role, content} as JSON or DuckDB give it.
func asMessages(t *testing.T, v any) []kb.Message {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("messages are %T", v)
	}
	var out []kb.Message
	for _, x := range list {
		m := x.(map[string]any)
		out = append(out, kb.Message{Role: m["role"].(string), Content: m["content"].(string)})
	}
	return out
}

// A file of an export before schema 3 is refused naming its schema.
func TestReadFileRefusesSchema2(t *testing.T) {
	raw, _ := mixedStore(t, 2)
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "mix"},
		ExportOptions{Format: FormatJSONL, Kinds: []string{kb.KindPreference}, Out: dir}); err != nil {
		t.Fatal(err)
	}
	old, err := json.Marshal(schema2(rowsOf(t, dir, kb.KindPreference))[0])
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(p, append(old, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	err = ReadFile(context.Background(), p, FormatJSONL, func(kb.TrainingExample) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "schema version 2 or older") || !strings.Contains(err.Error(), "export the dataset again") {
		t.Errorf("reading a schema 2 row: %v", err)
	}
}
