package datasets

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/cra-dev/cra/kb"
)

// ReadFile reads one exported shard back (Parquet through Arrow, or JSON
// Lines), calling fn for each row in file order, until ctx is cancelled.
func ReadFile(ctx context.Context, path, format string, fn func(kb.TrainingExample) error) error {
	if format == FormatJSONL {
		return readJSONL(ctx, path, fn)
	}
	return readParquet(ctx, path, fn)
}

func readParquet(ctx context.Context, path string, fn func(kb.TrainingExample) error) error {
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
	if err := sameSchema(rr.Schema()); err != nil {
		return err
	}
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec := rr.RecordBatch()
		str := func(i int) *array.String { return rec.Column(i).(*array.String) }
		msgs := rec.Column(8).(*array.List)
		structs := msgs.ListValues().(*array.Struct)
		roles, contents := structs.Field(0).(*array.String), structs.Field(1).(*array.String)
		pt, ct := rec.Column(9).(*array.Int32), rec.Column(10).(*array.Int32)
		at := rec.Column(11).(*array.Timestamp)
		for r := 0; r < int(rec.NumRows()); r++ {
			e := kb.TrainingExample{ID: str(0).Value(r), Dataset: str(1).Value(r), Stage: str(2).Value(r),
				Source: str(3).Value(r), Split: str(4).Value(r), Label: str(5).Value(r), RepoPath: str(6).Value(r),
				PromptTokens: int(pt.Value(r)), CompletionTokens: int(ct.Value(r)),
				CreatedAt: at.Value(r).ToTime(arrow.Microsecond).UTC()}
			if !str(7).IsNull(r) {
				e.Commit = str(7).Value(r)
			}
			start, end := msgs.ValueOffsets(r)
			e.Messages = make([]kb.Message, 0, end-start)
			for k := start; k < end; k++ {
				e.Messages = append(e.Messages, kb.Message{Role: roles.Value(int(k)), Content: contents.Value(int(k))})
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return rr.Err()
}

func readJSONL(ctx context.Context, path string, fn func(kb.TrainingExample) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		if line%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var r jsonlRow
		dec := json.NewDecoder(bytesReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		at, err := time.Parse("2006-01-02T15:04:05.000000Z", r.CreatedAt)
		if err != nil {
			return fmt.Errorf("line %d: created_at: %w", line, err)
		}
		e := kb.TrainingExample{ID: r.ID, Dataset: r.Dataset, Stage: r.Stage, Source: r.Source, Split: r.Split,
			Label: r.Label, RepoPath: r.Repo, Messages: r.Messages, PromptTokens: r.PromptTokens,
			CompletionTokens: r.CompletionTokens, CreatedAt: at}
		if r.Commit != nil {
			e.Commit = *r.Commit
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return sc.Err()
}

// sameSchema compares a file's schema with Schema by field names, types and
// nullability (Parquet adds field-id metadata on the way back).
func sameSchema(got *arrow.Schema) error {
	if got.NumFields() != Schema.NumFields() {
		return fmt.Errorf("%d columns, want %d", got.NumFields(), Schema.NumFields())
	}
	for i, want := range Schema.Fields() {
		f := got.Field(i)
		if f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type) || f.Nullable != want.Nullable {
			return fmt.Errorf("column %d is %s %s (nullable %v), want %s %s (nullable %v)", i, f.Name, f.Type, f.Nullable, want.Name, want.Type, want.Nullable)
		}
	}
	return nil
}
