package datasets

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/cra-dev/cra/kb"
)

const (
	// batchRows is how many rows are built before they go to the Parquet
	// writer; rowGroupBytes is the uncompressed size at which a row group is
	// cut (one row group per batch would make files slow to read).
	batchRows     = 1024
	rowGroupBytes = 64 << 20
)

// shard is one output file being written, its rows all of one shape.
type shard interface {
	add(e *example) error
	// finish closes the file and returns its rows, bytes and sha256.
	finish() (rows int, bytes int64, sum string, err error)
	// rawBytes is the uncompressed size of the rows added so far.
	rawBytes() int64
}

// countingFile writes to a file and keeps a byte count and a sha256.
type countingFile struct {
	f *os.File
	h hash.Hash
	n int64
}

func createCounting(path string) (*countingFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &countingFile{f: f, h: sha256.New()}, nil
}

func (c *countingFile) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

func (c *countingFile) close() (int64, string, error) {
	if err := c.f.Close(); err != nil {
		return 0, "", err
	}
	return c.n, hex.EncodeToString(c.h.Sum(nil)), nil
}

func rowBytes(e *kb.TrainingExample) int64 {
	n := int64(len(e.ID) + len(e.Dataset) + len(e.Stage) + len(e.Source) + len(e.Split) + len(e.Label) + len(e.RepoPath) +
		len(e.Commit) + len(e.Signal) + len(e.Evidence) + 16)
	for _, msgs := range [][]kb.Message{e.Messages, e.Chosen, e.Rejected} {
		for _, m := range msgs {
			n += int64(len(m.Role) + len(m.Content))
		}
	}
	return n
}

// parquetShard writes rows as Parquet with zstd through Arrow.
type parquetShard struct {
	shape    *shape
	out      *countingFile
	w        *pqarrow.FileWriter
	b        *array.RecordBuilder
	pending  int
	rows     int
	raw      int64
	groupRaw int64
}

func newParquetShard(path string, sh *shape) (*parquetShard, error) {
	out, err := createCounting(path)
	if err != nil {
		return nil, err
	}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(1<<30), // row groups are cut by size, below
	)
	w, err := pqarrow.NewFileWriter(sh.schema, out, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		out.f.Close()
		return nil, err
	}
	return &parquetShard{shape: sh, out: out, w: w, b: array.NewRecordBuilder(memory.DefaultAllocator, sh.schema)}, nil
}

func (s *parquetShard) add(e *example) error {
	for i, c := range s.shape.cols {
		c.append(s.b.Field(i), e)
	}
	n := rowBytes(&e.TrainingExample)
	s.raw += n
	s.groupRaw += n
	s.pending++
	s.rows++
	if s.pending >= batchRows {
		return s.flush()
	}
	return nil
}

func (s *parquetShard) flush() error {
	if s.pending == 0 {
		return nil
	}
	rec := s.b.NewRecordBatch()
	defer rec.Release()
	s.pending = 0
	if err := s.w.WriteBuffered(rec); err != nil {
		return err
	}
	if s.groupRaw >= rowGroupBytes {
		s.groupRaw = 0
		return s.w.NewBufferedRowGroupChecked()
	}
	return nil
}

func (s *parquetShard) finish() (int, int64, string, error) {
	defer s.b.Release()
	if err := s.flush(); err != nil {
		return 0, 0, "", err
	}
	if err := s.w.Close(); err != nil { // closes the countingFile's writer side only
		return 0, 0, "", err
	}
	n, sum, err := s.out.close()
	return s.rows, n, sum, err
}

func (s *parquetShard) rawBytes() int64 { return s.raw }

// jsonlShard writes one JSON object per line: the shape's columns under the
// same names, in the same order.
type jsonlShard struct {
	shape *shape
	out   *countingFile
	w     *bufio.Writer
	rows  int
	raw   int64
}

func newJSONLShard(path string, sh *shape) (*jsonlShard, error) {
	out, err := createCounting(path)
	if err != nil {
		return nil, err
	}
	return &jsonlShard{shape: sh, out: out, w: bufio.NewWriterSize(out, 1<<20)}, nil
}

func (s *jsonlShard) add(e *example) error {
	s.w.WriteByte('{')
	for i, c := range s.shape.cols {
		v, err := c.toJSON(e)
		if err != nil {
			return fmt.Errorf("%s: %w", c.field.Name, err)
		}
		if i > 0 {
			s.w.WriteByte(',')
		}
		s.w.WriteString(strconv.Quote(c.field.Name))
		s.w.WriteByte(':')
		s.w.Write(v)
	}
	s.w.WriteString("}\n")
	s.rows++
	s.raw += rowBytes(&e.TrainingExample)
	return nil
}

func (s *jsonlShard) finish() (int, int64, string, error) {
	if err := s.w.Flush(); err != nil {
		return 0, 0, "", err
	}
	n, sum, err := s.out.close()
	return s.rows, n, sum, err
}

func (s *jsonlShard) rawBytes() int64 { return s.raw }

var _ io.Writer = (*countingFile)(nil)

func fmtShard(split string, i, n int, ext string) string {
	return fmt.Sprintf("%s-%05d-of-%05d.%s", split, i, n, ext)
}
