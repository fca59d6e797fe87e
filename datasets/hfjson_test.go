package datasets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// hfType is an Arrow type as Hugging Face `datasets`' JSON builder sees a
// column: null, bool, int64, double, string, timestamp, list or struct.
type hfType struct {
	kind   string
	elem   *hfType            // list
	fields map[string]*hfType // struct
}

func (t *hfType) String() string {
	switch t.kind {
	case "list":
		return "list<" + t.elem.String() + ">"
	case "struct":
		var fs []string
		for _, n := range sortedKeys(t.fields) {
			fs = append(fs, n+": "+t.fields[n].String())
		}
		return "struct<" + strings.Join(fs, ", ") + ">"
	}
	return t.kind
}

// inferJSON is pyarrow's type of one JSON value.
func inferJSON(v any) *hfType {
	switch v := v.(type) {
	case nil:
		return &hfType{kind: "null"}
	case bool:
		return &hfType{kind: "bool"}
	case json.Number:
		if strings.ContainsAny(v.String(), ".eE") {
			return &hfType{kind: "double"}
		}
		return &hfType{kind: "int64"}
	case string:
		return &hfType{kind: "string"}
	case []any:
		t := &hfType{kind: "list", elem: &hfType{kind: "null"}}
		for _, x := range v {
			t.elem = mergeTypes(t.elem, inferJSON(x))
		}
		return t
	case map[string]any:
		t := &hfType{kind: "struct", fields: map[string]*hfType{}}
		for k, x := range v {
			t.fields[k] = inferJSON(x)
		}
		return t
	}
	panic(fmt.Sprintf("JSON value %T", v))
}

// mergeTypes is the type of a column whose values have types a and b, as
// pyarrow's JSON reader infers it over a file: null gives way to any type,
// lists and structs merge, anything else must agree.
func mergeTypes(a, b *hfType) *hfType {
	switch {
	case a.kind == "null":
		return b
	case b.kind == "null":
		return a
	case a.kind == "list" && b.kind == "list":
		return &hfType{kind: "list", elem: mergeTypes(a.elem, b.elem)}
	case a.kind == "struct" && b.kind == "struct":
		t := &hfType{kind: "struct", fields: map[string]*hfType{}}
		for k, v := range a.fields {
			t.fields[k] = v
		}
		for k, v := range b.fields {
			if w, ok := t.fields[k]; ok {
				t.fields[k] = mergeTypes(w, v)
			} else {
				t.fields[k] = v
			}
		}
		return t
	}
	return a // a conflict: datasets would JSON-encode the column; cra never writes one
}

// inferFile is the schema pyarrow infers for one JSON Lines file: each
// column's type over all its rows (a column a row lacks is null there).
func inferFile(t *testing.T, path string) map[string]*hfType {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]*hfType{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatal(err)
		}
		for k, v := range row {
			if s, ok := schema[k]; ok {
				schema[k] = mergeTypes(s, inferJSON(v))
			} else {
				schema[k] = inferJSON(v)
			}
		}
	}
	return schema
}

// castType is datasets' cast of a column of type from to type to (table.py
// array_cast and cast_array_to_feature at datasets b7cb10b): null casts to
// anything; nothing but null casts to null ("Couldn't cast array of type
// string to null", line 2013); any primitive casts to a string; lists and
// structs cast field by field, a struct's missing fields filled with null.
func castType(from, to *hfType) error {
	fail := fmt.Errorf("Couldn't cast array of type %s to %s", from, to)
	switch {
	case from.kind == "null":
		return nil
	case to.kind == "null":
		return fail
	case to.kind == "string":
		if from.kind == "list" || from.kind == "struct" {
			return fail
		}
		return nil
	case to.kind == "timestamp":
		if from.kind != "string" && from.kind != "timestamp" {
			return fail
		}
		return nil
	case to.kind == "int32" || to.kind == "int64":
		if from.kind != "int64" {
			return fail
		}
		return nil
	case to.kind == "list":
		if from.kind != "list" {
			return fail
		}
		return castType(from.elem, to.elem)
	case to.kind == "struct":
		if from.kind != "struct" {
			return fail
		}
		for k, f := range from.fields {
			tf, ok := to.fields[k]
			if !ok {
				return fmt.Errorf("%w: field %s", fail, k)
			}
			if err := castType(f, tf); err != nil {
				return err
			}
		}
		return nil
	}
	if from.kind != to.kind {
		return fail
	}
	return nil
}

// hfLoad is datasets' JSON builder over one config, reimplemented from
// packaged_modules/json/json.py at datasets b7cb10b: the schema is the
// declared features when the card has them, else the one pyarrow infers
// for the first file of the first split (_split_generators, lines
// 99-102); every file is cast to it (_cast_table, lines 110-132): a
// column the schema lacks fails (table.py cast_table_to_schema, "column
// names don't match"), a column the file lacks is filled with null.
func hfLoad(t *testing.T, splits [][]string, declared map[string]*hfType) error {
	t.Helper()
	schema := declared
	if schema == nil {
		schema = inferFile(t, splits[0][0])
	}
	for _, files := range splits {
		for _, f := range files {
			for col, typ := range inferFile(t, f) {
				to, ok := schema[col]
				if !ok {
					return fmt.Errorf("%s: Couldn't cast: column %s not in the schema: column names don't match", filepath.Base(f), col)
				}
				if err := castType(typ, to); err != nil {
					return fmt.Errorf("%s: column %s: %w", filepath.Base(f), col, err)
				}
			}
		}
	}
	return nil
}

// cardFeatures reads the card's dataset_info: each config's features as
// Features._from_yaml_list reads them (name, then dtype, list or struct).
func cardFeatures(t *testing.T, readme string) map[string]map[string]*hfType {
	t.Helper()
	front, _, ok := strings.Cut(strings.TrimPrefix(readme, "---\n"), "\n---\n")
	if !ok {
		t.Fatal("no front matter")
	}
	var meta struct {
		Info []struct {
			Config   string `yaml:"config_name"`
			Features []any  `yaml:"features"`
		} `yaml:"dataset_info"`
	}
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]*hfType{}
	for _, c := range meta.Info {
		out[c.Config] = yamlFields(t, c.Features)
	}
	return out
}

func yamlFields(t *testing.T, list []any) map[string]*hfType {
	t.Helper()
	out := map[string]*hfType{}
	for _, x := range list {
		f := x.(map[string]any)
		out[f["name"].(string)] = yamlFeature(t, f)
	}
	return out
}

func yamlFeature(t *testing.T, f map[string]any) *hfType {
	t.Helper()
	switch {
	case f["list"] != nil:
		if s, ok := f["list"].(string); ok {
			return &hfType{kind: "list", elem: dtypeOf(t, s)}
		}
		return &hfType{kind: "list", elem: &hfType{kind: "struct", fields: yamlFields(t, f["list"].([]any))}}
	case f["struct"] != nil:
		return &hfType{kind: "struct", fields: yamlFields(t, f["struct"].([]any))}
	}
	return dtypeOf(t, f["dtype"].(string))
}

func dtypeOf(t *testing.T, s string) *hfType {
	t.Helper()
	switch {
	case s == "string" || s == "bool" || s == "int32" || s == "int64":
		return &hfType{kind: s}
	case strings.HasPrefix(s, "timestamp["):
		return &hfType{kind: "timestamp"}
	}
	t.Fatalf("dtype %q", s)
	return nil
}

// A config whose first file has a column null in every row (train: one
// row without a commit, a signal or evidence) and whose validation file
// has strings there: datasets' JSON builder, guessing the schema from the
// first file, cannot cast the validation file (the test shows it on the
// export itself); with the features the card declares it loads every
// config of every layout, and the declared columns are the files'.
func TestJSONLLoadsWithDeclaredFeatures(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	sys, user := kb.Message{Role: "system", Content: "You write the edits."}, kb.Message{Role: "user", Content: "Fix it."}
	good, bad := kb.Message{Role: "assistant", Content: `{"edits": []}`}, kb.Message{Role: "assistant", Content: "no"}
	var examples []kb.TrainingExample
	for i := range 4 {
		base := kb.TrainingExample{Stage: "implement", Source: "logged", Split: kb.SplitValidation, RepoPath: "/r",
			Commit: fmt.Sprint("c", i), Signal: "eval", Evidence: `{"eval": "e1"}`, CreatedAt: at}
		if i == 0 { // the one train row: no commit, signal or evidence
			base.Split, base.Commit, base.Signal, base.Evidence = kb.SplitTrain, "", "", ""
		}
		sft, pair, kto := base, base, base
		sft.ID, sft.Kind, sft.Label, sft.Messages = fmt.Sprint("s", i), kb.KindSFT, kb.LabelPositive, []kb.Message{sys, user, good}
		pair.ID, pair.Kind, pair.Label, pair.Messages = fmt.Sprint("p", i), kb.KindPreference, kb.LabelPair, []kb.Message{sys, user}
		pair.Chosen, pair.Rejected = []kb.Message{good}, []kb.Message{bad}
		kto.ID, kto.Kind, kto.Label, kto.Messages = fmt.Sprint("k", i), kb.KindKTO, kb.LabelNegative, []kb.Message{user, bad}
		if i > 0 {
			kto.Messages = []kb.Message{sys, user, bad} // axolotl's system: null in train only
		}
		examples = append(examples, sft, pair, kto)
	}
	home := storetest.Home(t)
	storetest.Dataset(t, home, "nulls", examples)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	for _, layout := range Layouts {
		t.Run(layout, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			m, err := Export(context.Background(), raw.DB, kb.DatasetRef{Name: "nulls"},
				ExportOptions{Format: FormatJSONL, Layout: layout, Kinds: layoutsKinds(layout), Out: dir})
			if err != nil {
				t.Fatal(err)
			}
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			declared := cardFeatures(t, string(readme))
			cfgs := configs(m)
			if len(declared) != len(cfgs) {
				t.Errorf("the card declares features for %d configs, the export has %d", len(declared), len(cfgs))
			}
			for _, c := range cfgs {
				var splits [][]string
				for _, sp := range c.splits { // in the card's data_files order: train first
					files, _ := filepath.Glob(filepath.Join(dir, c.stage, c.kind, sp+"-*.jsonl"))
					sort.Strings(files)
					splits = append(splits, files)
				}
				if err := hfLoad(t, splits, nil); err == nil || !strings.Contains(err.Error(), "to null") {
					t.Errorf("%s: with the schema guessed from the first file: %v; want a cast to null refused (the test proves nothing)", c.name, err)
				}
				feats := declared[c.name]
				if feats == nil {
					t.Errorf("%s: no features declared", c.name)
					continue
				}
				if err := hfLoad(t, splits, feats); err != nil {
					t.Errorf("%s: with the declared features: %v", c.name, err)
				}
				if got, want := strings.Join(sortedKeys(feats), ","), shapeOf(layout, c.kind).keys(); got != want {
					t.Errorf("%s: declared columns %s, the files' %s", c.name, got, want)
				}
			}
		})
	}
}
