package datasets

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/cra-dev/cra/kb"
)

// ReadFile reads one exported shard back (Parquet through Arrow, or JSON
// Lines), calling fn for each row in file order, until ctx is cancelled.
// The file may be in any layout: its columns say which, and which kind its
// rows are (e.Kind). The version, target and task ids are not exported and
// come back empty.
func ReadFile(ctx context.Context, path, format string, fn func(kb.TrainingExample) error) error {
	return readShard(ctx, path, format, nil, func(e *example) error { return fn(e.TrainingExample) })
}

// readShard reads a shard whose columns are want's, or any shape's when
// want is nil.
func readShard(ctx context.Context, path, format string, want *shape, fn func(*example) error) error {
	if format == FormatJSONL {
		return readJSONL(ctx, path, want, fn)
	}
	return readParquet(ctx, path, want, fn)
}

func readParquet(ctx context.Context, path string, want *shape, fn func(*example) error) error {
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: batchRows}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	sh, err := parquetShape(rr.Schema(), want)
	if err != nil {
		return err
	}
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			e := example{TrainingExample: kb.TrainingExample{Kind: sh.kind}}
			for i, c := range sh.cols {
				c.read(rec.Column(i), r, &e)
			}
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	return rr.Err()
}

// parquetShape is the shape whose schema got is: want's, or, with want nil,
// any layout's (an SFT file is the same in every layout).
func parquetShape(got *arrow.Schema, want *shape) (*shape, error) {
	if want != nil {
		return want, sameSchema(got, want.schema)
	}
	for _, s := range shapes {
		if sameSchema(got, s.schema) == nil {
			return s, nil
		}
	}
	names := make([]string, got.NumFields())
	for i, f := range got.Fields() {
		names[i] = f.Name
	}
	return nil, noLayout("columns", names)
}

// noLayout says columns are no layout's, and names an export of an older
// schema (metadata named id, label, ... rather than cra_id, cra_label, ...)
// as such: this cra reads only its own schema.
func noLayout(what string, names []string) error {
	if slices.Contains(names, "id") && !slices.Contains(names, metaPrefix+"id") {
		return fmt.Errorf("%s %s are those of an export of schema version 2 or older, and this cra reads schema %d: export the dataset again (cra datasets export NAME@VERSION)",
			what, strings.Join(names, ", "), SchemaVersion)
	}
	return fmt.Errorf("%s %s are no layout's", what, strings.Join(names, ", "))
}

// sameSchema compares a file's schema with want's by field names, types and
// nullability (Parquet adds field-id metadata on the way back).
func sameSchema(got, want *arrow.Schema) error {
	if got.NumFields() != want.NumFields() {
		return fmt.Errorf("%d columns, want %d", got.NumFields(), want.NumFields())
	}
	for i, w := range want.Fields() {
		f := got.Field(i)
		if f.Name != w.Name || !arrow.TypeEqual(f.Type, w.Type) || f.Nullable != w.Nullable {
			return fmt.Errorf("column %d is %s %s (nullable %v), want %s %s (nullable %v)", i, f.Name, f.Type, f.Nullable, w.Name, w.Type, w.Nullable)
		}
	}
	return nil
}

// byKeys finds a shape by its JSON Lines keys.
var byKeys = func() map[string]*shape {
	m := map[string]*shape{}
	for _, s := range shapes {
		if _, ok := m[s.keys()]; !ok { // openai's and axolotl's sft: the same columns, the first's
			m[s.keys()] = s
		}
	}
	return m
}()

func readJSONL(ctx context.Context, path string, want *shape, fn func(*example) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	sh := want
	for sc.Scan() {
		line++
		if line%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var row map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		keys := sortedKeys(row)
		switch {
		case sh == nil && byKeys[strings.Join(keys, ",")] == nil:
			return fmt.Errorf("line %d: %w", line, noLayout("keys", keys))
		case sh == nil:
			sh = byKeys[strings.Join(keys, ",")]
		case strings.Join(keys, ",") != sh.keys():
			return fmt.Errorf("line %d: keys %s, want %s", line, strings.Join(keys, ", "), sh.keys())
		}
		e := example{TrainingExample: kb.TrainingExample{Kind: sh.kind}}
		for _, c := range sh.cols {
			if err := c.fromJSON(row[c.field.Name], &e); err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return sc.Err()
}
