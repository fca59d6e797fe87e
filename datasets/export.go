package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
)

// Export formats.
const (
	FormatParquet = "parquet"
	FormatJSONL   = "jsonl"
)

// ExportOptions say where and how a dataset is written.
type ExportOptions struct {
	Format     string   // parquet (default) or jsonl
	Layout     string   // trl (default), openai or axolotl: the fields of each kind (see Layouts)
	Kinds      []string // the kinds to write (sft, preference, kto); none: all
	Out        string   // a new or empty directory
	ShardBytes int64    // uncompressed bytes at which a shard is cut; <= 0: 256 MiB
	// EnableThinking is what inference sends the models as
	// chat_template_kwargs.enable_thinking (models.think, the same for every
	// role and stage): TRL rows carry it, so training renders each prompt
	// as inference does.
	EnableThinking bool
}

// Export writes the dataset version ref names (NAME: the latest) from the
// raw store to opts.Out in opts.Layout: shards
// <stage>/<kind>/<split>-NNNNN-of-NNNNN.<ext>, one schema per layout and
// kind, a manifest.json, a README.md dataset card and the version's
// report (report.md, report.html; WriteReport). A kind the layout has
// no format for, unless opts.Kinds leaves it out, or a row the layout
// cannot carry, is a *LayoutError and nothing is written. An openai split
// of fewer than 10 rows, which OpenAI's fine-tuning refuses, is written
// and named in the manifest's Warnings. Rows stream from
// the store (memory holds one batch and one row group at a time).
// Everything is written under a temporary directory inside Out and moved
// into place at the end, the manifest last, so an interrupted export never
// leaves a manifest naming missing files.
func Export(ctx context.Context, q kb.Querier, ref kb.DatasetRef, opts ExportOptions) (*Manifest, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	info, err := kb.ResolveDataset(ctx, q, ref)
	if err != nil {
		return nil, err
	}
	m := &Manifest{SchemaVersion: SchemaVersion, Dataset: info.Name, Version: info.Version, Format: opts.Format,
		Layout: opts.Layout, CraVersion: version.String(), CreatedAt: time.Now().UTC().Truncate(time.Second), Counts: Counts{},
		Criteria: info.Criteria, EnableThinking: opts.EnableThinking}
	kinds, err := kb.TrainingExampleKinds(ctx, q, info.Name, info.Version)
	if err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(kinds) {
		switch {
		case !slices.Contains(opts.Kinds, k):
			if m.LeftOut == nil {
				m.LeftOut = map[string]int{}
			}
			m.LeftOut[k] = kinds[k]
		case shapeOf(opts.Layout, k) == nil:
			return nil, &LayoutError{Layout: opts.Layout, Kind: k, Dataset: fmt.Sprintf("%s@%d", info.Name, info.Version), Rows: kinds[k]}
		}
	}
	if err := emptyDir(opts.Out); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(opts.Out, ".tmp-export-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	g := &group{opts: opts, tmp: tmp, m: m, min: minRows(opts.Layout)}
	err = kb.EachTrainingExample(ctx, q, info.Name, info.Version, func(e kb.TrainingExample) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !slices.Contains(opts.Kinds, e.Kind) {
			return nil
		}
		if e.Kind != g.kind || e.Stage != g.stage || e.Split != g.split {
			if err := g.end(); err != nil {
				return err
			}
			g.kind, g.stage, g.split = e.Kind, e.Stage, e.Split
			g.shape = shapeOf(opts.Layout, e.Kind)
		}
		row := example{TrainingExample: e, thinking: opts.EnableThinking}
		if why := g.shape.misfit(&row); why != "" {
			return &LayoutError{Layout: opts.Layout, Kind: e.Kind, Dataset: fmt.Sprintf("%s@%d", info.Name, info.Version), ID: e.ID, Why: why}
		}
		return g.add(&row)
	})
	if err == nil {
		err = g.end()
	}
	if err != nil {
		return nil, err
	}
	m.Warnings = fewRows(m)
	if err := writeJSON(filepath.Join(tmp, ManifestFile), m); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "README.md"), []byte(card(m)), 0o644); err != nil {
		return nil, err
	}
	// The curate-data report of the version goes beside its data.
	if _, err := WriteReport(ctx, q, kb.DatasetRef{Name: info.Name, Version: info.Version}, tmp); err != nil {
		return nil, err
	}
	// Move into place: shards, card and report first, the manifest last.
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Name() != ManifestFile {
			if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(opts.Out, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	return m, os.Rename(filepath.Join(tmp, ManifestFile), filepath.Join(opts.Out, ManifestFile))
}

// defaults fills in the format and layout and checks them and the kinds.
func (o *ExportOptions) defaults() error {
	if o.Format == "" {
		o.Format = FormatParquet
	}
	if o.Format != FormatParquet && o.Format != FormatJSONL {
		return fmt.Errorf("format %q: use parquet or jsonl", o.Format)
	}
	if o.Layout == "" {
		o.Layout = LayoutTRL
	}
	if !slices.Contains(Layouts, o.Layout) {
		return fmt.Errorf("layout %q: use %s", o.Layout, strings.Join(Layouts, ", "))
	}
	for _, k := range o.Kinds {
		if !slices.Contains(kb.ExampleKinds, k) {
			return fmt.Errorf("kind %q: use %s", k, strings.Join(kb.ExampleKinds, ", "))
		}
		if shapeOf(o.Layout, k) == nil {
			return &LayoutError{Layout: o.Layout, Kind: k}
		}
	}
	if len(o.Kinds) == 0 {
		o.Kinds = kb.ExampleKinds
	}
	if o.ShardBytes <= 0 {
		o.ShardBytes = 256 << 20
	}
	return nil
}

// openAIMinRows is the fewest examples OpenAI's fine-tuning takes in a
// training or validation file.
const openAIMinRows = 10

// minRows is the fewest rows a shard of the layout holds when its split
// has that many: an openai shard is a file a fine-tuning job takes.
func minRows(layout string) int {
	if layout == LayoutOpenAI {
		return openAIMinRows
	}
	return 1
}

// fewRows warns of the openai files a fine-tuning job refuses: a split of
// a config with fewer than openAIMinRows rows (one file, as every split
// under the shard size is). The export still writes them: a small split is
// common (eval-derived rows all go to validation), and refusing it would
// refuse the export's other configs too.
func fewRows(m *Manifest) []string {
	if m.Layout != LayoutOpenAI {
		return nil
	}
	var out []string
	for _, c := range configs(m) {
		for _, sp := range c.splits {
			if n := m.Counts[c.stage][c.kind][sp]; n < openAIMinRows {
				rows := "rows"
				if n == 1 {
					rows = "row"
				}
				out = append(out, fmt.Sprintf("config %s, split %s: %d %s, and OpenAI's fine-tuning refuses a file of fewer than %d examples: "+
					"curate more rows of this stage and kind before uploading it", c.name, sp, n, rows, openAIMinRows))
			}
		}
	}
	return out
}

// group writes one stage, kind and split: its shards, then their final
// names. A shard is cut once it passes opts.ShardBytes and holds min rows,
// and only when min more rows follow it: rows after a cut are held until
// min of them have come, and join the last shard when the split ends
// first. So no shard has fewer than min rows unless its split has.
type group struct {
	opts               ExportOptions
	tmp                string
	m                  *Manifest
	min                int
	kind, stage, split string
	shape              *shape
	cur                shard
	curRows            int
	full               bool      // cur is past opts.ShardBytes with min rows: the next min rows start a new one
	held               []example // rows after a full shard, fewer than min
	files              []FileEntry
}

// dir is the group's directory, relative to the export's.
func (g *group) dir() string { return path.Join(g.stage, g.kind) }

func (g *group) add(e *example) error {
	g.m.Counts.add(g.stage, g.kind, g.split, 1)
	if !g.full {
		return g.write(e)
	}
	g.held = append(g.held, *e)
	if len(g.held) < g.min {
		return nil
	}
	if err := g.closeShard(); err != nil {
		return err
	}
	return g.writeHeld()
}

// writeHeld writes the held rows to the current shard (a new one after a
// cut).
func (g *group) writeHeld() error {
	held := g.held
	g.held = nil
	for i := range held {
		if err := g.write(&held[i]); err != nil {
			return err
		}
	}
	return nil
}

// write writes e to the current shard, opening one if there is none.
func (g *group) write(e *example) error {
	if g.cur == nil {
		dir := filepath.Join(g.tmp, filepath.FromSlash(g.dir()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		p := filepath.Join(dir, fmt.Sprintf("%s.%d.part", g.split, len(g.files)))
		var err error
		if g.opts.Format == FormatJSONL {
			g.cur, err = newJSONLShard(p, g.shape)
		} else {
			g.cur, err = newParquetShard(p, g.shape)
		}
		if err != nil {
			return err
		}
	}
	if err := g.cur.add(e); err != nil {
		return fmt.Errorf("example %s: %w", e.ID, err)
	}
	g.curRows++
	g.full = g.cur.rawBytes() >= g.opts.ShardBytes && g.curRows >= g.min
	return nil
}

func (g *group) closeShard() error {
	rows, n, sum, err := g.cur.finish()
	g.cur, g.curRows, g.full = nil, 0, false
	if err != nil {
		return err
	}
	g.files = append(g.files, FileEntry{Stage: g.stage, Kind: g.kind, Split: g.split, Rows: rows, Bytes: n, SHA256: sum})
	return nil
}

// end closes the group's last shard, the held rows in it, and renames its
// shards NNNNN-of-NNNNN now that their number is known.
func (g *group) end() error {
	if err := g.writeHeld(); err != nil {
		return err
	}
	if g.cur != nil {
		if err := g.closeShard(); err != nil {
			return err
		}
	}
	for i := range g.files {
		f := &g.files[i]
		f.Path = path.Join(g.dir(), fmtShard(g.split, i, len(g.files), g.opts.Format))
		from := filepath.Join(g.tmp, filepath.FromSlash(g.dir()), fmt.Sprintf("%s.%d.part", g.split, i))
		if err := os.Rename(from, filepath.Join(g.tmp, filepath.FromSlash(f.Path))); err != nil {
			return err
		}
	}
	g.m.Files = append(g.m.Files, g.files...)
	g.files = nil
	return nil
}

// emptyDir makes dir if missing and refuses one that holds anything.
func emptyDir(dir string) error {
	if dir == "" {
		return errors.New("no output directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return &NotEmptyError{Dir: dir}
	}
	return nil
}

// NotEmptyError: the export directory already holds files; an export never
// mixes with or overwrites another.
type NotEmptyError struct{ Dir string }

func (e *NotEmptyError) Error() string {
	return fmt.Sprintf("%s is not empty: export into a new directory (--out)", e.Dir)
}
