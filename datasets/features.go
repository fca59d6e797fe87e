package datasets

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// datasetInfo writes the card's dataset_info: each config's features, every
// column with its type, so Hugging Face `datasets` reads every file of a
// config with one schema instead of guessing one.
//
// Without it, datasets' JSON builder takes the schema of the first table of
// the first split (src/datasets/packaged_modules/json/json.py, _split_generators
// lines 99-102, at datasets b7cb10b) and casts every other table to it
// (_cast_table, line 132; table.py array_cast refuses any type to null, line
// 2013): a train file whose cra_commit is null in every row types the column
// null, and a validation file with a commit fails to load. With it, load.py
// reads dataset_info from the README of a local folder too
// (LocalDatasetModuleFactory.get_module, line 441), passes the config's
// info to the builder (load_dataset_builder, line 1340; builder.py
// __init__, lines 371-377 keep it over _info()), and the JSON builder then
// casts every table to the declared features and guesses nothing (json.py
// lines 99 and 110-132). The Parquet builder casts to them the same way;
// there they are the files' own schema.
//
// JSON Lines hold a time as text, so cra_created_at is declared a string
// there (the cast from whatever pyarrow infers for it to a string always
// holds), and a timestamp in Parquet, as the files hold it.
func datasetInfo(b *strings.Builder, m *Manifest, cfgs []config) {
	if len(cfgs) == 0 {
		return
	}
	b.WriteString("dataset_info:\n")
	for _, c := range cfgs {
		sh := shapeOf(m.Layout, c.kind)
		if sh == nil {
			continue
		}
		fmt.Fprintf(b, "- config_name: %s\n  features:\n", c.name)
		writeFeatures(b, "  ", sh.schema.Fields(), m.Format == FormatJSONL)
	}
}

// writeFeatures writes fields as a `datasets` features list (the YAML form
// Features._from_yaml_list reads: name, then dtype, list or struct) at
// indent.
func writeFeatures(b *strings.Builder, indent string, fields []arrow.Field, jsonl bool) {
	for _, f := range fields {
		fmt.Fprintf(b, "%s- name: %s\n", indent, f.Name)
		writeFeature(b, indent+"  ", f.Type, jsonl)
	}
}

func writeFeature(b *strings.Builder, indent string, t arrow.DataType, jsonl bool) {
	switch t := t.(type) {
	case *arrow.ListType:
		if st, ok := t.Elem().(*arrow.StructType); ok {
			fmt.Fprintf(b, "%slist:\n", indent)
			writeFeatures(b, indent, st.Fields(), jsonl)
			return
		}
		fmt.Fprintf(b, "%slist: %s\n", indent, dtype(t.Elem(), jsonl))
	case *arrow.StructType:
		fmt.Fprintf(b, "%sstruct:\n", indent)
		writeFeatures(b, indent, t.Fields(), jsonl)
	default:
		fmt.Fprintf(b, "%sdtype: %s\n", indent, dtype(t, jsonl))
	}
}

// dtype is a primitive Arrow type as `datasets` names it.
func dtype(t arrow.DataType, jsonl bool) string {
	switch t := t.(type) {
	case *arrow.StringType:
		return "string"
	case *arrow.Int32Type:
		return "int32"
	case *arrow.BooleanType:
		return "bool"
	case *arrow.TimestampType:
		if jsonl {
			return "string"
		}
		return fmt.Sprintf("'timestamp[%s, tz=%s]'", t.Unit, t.TimeZone)
	}
	panic(fmt.Sprintf("no datasets dtype for %s", t)) // every column type is above
}

// cardWarnings repeats the manifest's warnings in the card.
func cardWarnings(b *strings.Builder, m *Manifest) {
	if len(m.Warnings) == 0 {
		return
	}
	b.WriteString("\n**Warnings**:\n\n")
	for _, w := range m.Warnings {
		fmt.Fprintf(b, "- %s\n", w)
	}
}
