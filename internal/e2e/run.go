package e2e

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NotRun is the Code of a step that did not run because the step it
// needs did not finish.
const NotRun = -1

// Result is one step of one run.
type Result struct {
	Step string
	Code int // exit code, or NotRun
	// OK: the step did what it is for (exit 0, or a Verdict step's 1).
	OK      bool
	Wall    time.Duration
	CPU     time.Duration // user and system: what a loaded machine does not inflate
	PeakRSS int64         // bytes
	// Rows is what the step wrote: rows added to the stores, or rows
	// exported (from the export's manifest).
	Rows int64
	// Tables says where the rows went, largest first ("raw.synthetic_targets
	// +8337, ...").
	Tables []TableRows
	Stdout string
	Stderr string
}

// TableRows is a table's change in row count.
type TableRows struct {
	Table string
	Rows  int64
}

// Runner runs the recipe's steps in one home.
type Runner struct {
	Cra     string // the cra binary
	Home    string
	Wrapper string   // the measuring wrapper (see MeasureMain)
	Env     []string // added to every step's environment
	// StartModel starts the model, once, before the first step that
	// calls it.
	StartModel func(ctx context.Context) error
	// Progress, when set, gets a line as each step ends.
	Progress io.Writer

	tables  []string
	modelUp bool
}

// Run runs steps in order and returns a result for each. A step whose
// Needs did not finish is not run; an error is a failure of the runner
// itself (a step's failure is its Result).
func (r *Runner) Run(ctx context.Context, steps []Step) ([]Result, error) {
	finished := map[string]bool{}
	var out []Result
	before, err := r.count(ctx)
	if err != nil {
		return out, err
	}
	for _, s := range steps {
		res := Result{Step: s.Name, Code: NotRun}
		if s.Needs != "" && !finished[s.Needs] {
			out = append(out, res)
			r.progress(res)
			continue
		}
		if s.Model && !r.modelUp && r.StartModel != nil {
			if err := r.StartModel(ctx); err != nil {
				return out, fmt.Errorf("start the model before %s: %w", s.Name, err)
			}
			r.modelUp = true
		}
		m, err := Measure(ctx, r.Wrapper, r.Env, append([]string{r.Cra, "--home", r.Home}, s.Args...)...)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.Name, err)
		}
		res.Code, res.Wall, res.CPU, res.PeakRSS, res.Stdout, res.Stderr = m.Code, m.Wall, m.CPU, m.PeakRSS, m.Stdout, m.Stderr
		res.OK = m.Code == 0 || m.Code == 1 && s.Verdict
		finished[s.Name] = res.OK || m.Code == 1 && s.Partial
		if finished[s.Name] && s.After != nil {
			if err := s.After(); err != nil {
				return out, fmt.Errorf("after %s: %w", s.Name, err)
			}
		}
		after, err := r.count(ctx)
		if err != nil {
			return out, fmt.Errorf("after %s: %w", s.Name, err)
		}
		res.Tables = diff(before, after)
		for _, t := range res.Tables {
			res.Rows += t.Rows
		}
		before = after
		if s.Export != "" && m.Code == 0 {
			n, err := exportedRows(s.Export)
			if err != nil {
				return out, fmt.Errorf("%s: %w", s.Name, err)
			}
			res.Rows, res.Tables = n, []TableRows{{Table: filepath.Base(s.Export), Rows: n}}
		}
		out = append(out, res)
		r.progress(res)
	}
	return out, nil
}

func (r *Runner) progress(res Result) {
	if r.Progress == nil {
		return
	}
	if res.Code == NotRun {
		fmt.Fprintf(r.Progress, "e2e: %-20s not run\n", res.Step)
		return
	}
	fmt.Fprintf(r.Progress, "e2e: %-22s exit %d  %6.1f s (cpu %6.1f s)  %5.0f MB  %d rows\n", res.Step, res.Code,
		res.Wall.Seconds(), res.CPU.Seconds(), float64(res.PeakRSS)/(1<<20), res.Rows)
}

// count returns the row count of every table of both stores (none before
// cra init).
func (r *Runner) count(ctx context.Context) (map[string]int64, error) {
	if _, err := os.Stat(filepath.Join(r.Home, "raw.duckdb")); err != nil {
		return map[string]int64{}, nil
	}
	if r.tables == nil {
		rows, err := r.sql(ctx, "SELECT database_name || '.' || table_name FROM duckdb_tables() WHERE database_name IN ('raw', 'curated') ORDER BY 1")
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			r.tables = append(r.tables, row[0])
		}
	}
	var q []string
	for _, t := range r.tables {
		q = append(q, fmt.Sprintf("SELECT '%s', count(*) FROM %s", t, t))
	}
	rows, err := r.sql(ctx, strings.Join(q, " UNION ALL "))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, row := range rows {
		n, err := strconv.ParseInt(row[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("count %s: %q", row[0], row[1])
		}
		out[row[0]] = n
	}
	return out, nil
}

// sql runs a query with `cra sql` and returns its rows, the header left out.
func (r *Runner) sql(ctx context.Context, query string) ([][]string, error) {
	cmd := exec.CommandContext(ctx, r.Cra, "--home", r.Home, "sql", "--format", "csv", query)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("cra sql: %w: %s", err, stderr.String())
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("cra sql: %v: %q", err, out)
	}
	return rows[1:], nil
}

// diff is what changed from before to after, largest first.
func diff(before, after map[string]int64) []TableRows {
	var out []TableRows
	for t, n := range after {
		if d := n - before[t]; d != 0 {
			out = append(out, TableRows{t, d})
		}
	}
	slices.SortFunc(out, func(a, b TableRows) int {
		if a.Rows != b.Rows {
			return int(b.Rows - a.Rows)
		}
		return strings.Compare(a.Table, b.Table)
	})
	return out
}

// exportedRows sums the rows of an export's files, from its manifest.
func exportedRows(dir string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return 0, err
	}
	var m struct {
		Files []struct{ Rows int64 }
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, fmt.Errorf("%s/manifest.json: %w", dir, err)
	}
	var n int64
	for _, f := range m.Files {
		n += f.Rows
	}
	return n, nil
}
