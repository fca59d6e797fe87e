package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/tabular"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/shards"
)

type sqlOptions struct {
	script string // the SQL text, from the argument or -f
	source string // where it came from, for errors
	format string
	output string
	stores kb.Options       // --write, --wait
	run    kb.ScriptOptions // --write, --allow-ddl
	shards string           // --shards DIR: the union of exported shards instead of the home
}

func (a *app) sqlCommand() *cli.Command {
	return &cli.Command{
		Name:      "sql",
		Usage:     "run SQL over the stores (attached as curated and raw)",
		ArgsUsage: `"<query>" | -f FILE`,
		Description: "Both stores are attached: `select * from raw.task_runs`, `from curated.files`.\n" +
			"Unqualified names look in raw, then curated. Read-only unless --write.\n" +
			"A file may hold several statements; they run in order and each query's result is printed.\n" +
			"Formats: table (default on a terminal; long cells are cut), csv (default otherwise),\n" +
			"json, jsonl, markdown, parquet (needs -o; written by DuckDB with zstd).\n" +
			"SQL errors print DuckDB's message and exit 2.\n" +
			"With --write, dropping, altering, truncating or replacing one of cra's own tables (schema_migrations,\n" +
			"raw.task_runs, curated.repos, ...) is refused, exit 2: later cra commands need them as they are;\n" +
			"--allow-ddl lets it through. Tables you created yourself are yours to drop.\n" +
			"A store another cra process is writing is waited for (--wait, default " + kb.ReadWait.String() + "; the batches hold a store\n" +
			"only while they write); the stores are held only while the SQL runs, the output is written after.\n" +
			"With --shards DIR the SQL runs over the union of the shards exported under DIR, without a home:\n" +
			"the raw tables `cra shards export` writes are views over the Parquet files the manifests name\n" +
			"(rows deduplicated as `cra shards import` would), every other table is there and empty.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read the SQL from `FILE` (- for stdin)"},
			&cli.BoolFlag{Name: "write", Usage: "open the stores read-write (takes both write locks)"},
			&cli.BoolFlag{Name: "allow-ddl", Usage: "with --write, let the SQL drop, alter, truncate or replace cra's own tables"},
			&cli.StringFlag{Name: "format", Usage: "table, csv, json, jsonl, markdown or parquet"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the result to `FILE` instead of stdout"},
			storeWaitFlag(),
			&cli.StringFlag{Name: "shards", Usage: "query the union of the shards exported under `DIR` (cra shards export), not the home"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := a.sqlOptions(cmd)
			if err != nil {
				return err
			}
			return a.runSQL(ctx, opts)
		},
	}
}

func (a *app) sqlOptions(cmd *cli.Command) (sqlOptions, error) {
	o := sqlOptions{format: cmd.String("format"), output: cmd.String("output")}
	var err error
	if o.stores, err = a.storeOptions(cmd, cmd.Bool("write")); err != nil {
		return o, err
	}
	o.run = kb.ScriptOptions{Write: o.stores.Write, AllowDDL: cmd.Bool("allow-ddl")}
	if o.shards = cmd.String("shards"); o.shards != "" && o.stores.Write {
		return o, usage.Errorf("--shards reads exported files: it cannot be used with --write")
	}
	switch file := cmd.String("file"); {
	case file != "" && cmd.Args().Len() > 0:
		return o, usage.Errorf("give the SQL as an argument or with -f, not both")
	case file == "-":
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return o, err
		}
		o.script, o.source = string(b), "stdin"
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return o, usage.Errorf("read %s: %v", file, err)
		}
		o.script, o.source = string(b), file
	case cmd.Args().Len() > 0:
		o.script, o.source = strings.Join(cmd.Args().Slice(), " "), "query"
	default:
		return o, usage.Errorf(`no SQL: run cra sql "select ..." or cra sql -f FILE`)
	}
	if o.format == "" {
		o.format = a.defaultFormat(o.output)
	}
	formats := append(slices.Clone(tabular.Formats), "parquet")
	if !slices.Contains(formats, o.format) {
		return o, usage.Errorf("--format %q: use one of %s", o.format, strings.Join(formats, ", "))
	}
	if o.format == "parquet" && o.output == "" {
		return o, usage.Errorf("--format parquet needs -o FILE")
	}
	return o, nil
}

func (a *app) defaultFormat(output string) string {
	switch ext := strings.TrimPrefix(filepath.Ext(output), "."); ext {
	case "parquet", "csv", "json", "jsonl":
		return ext
	case "md":
		return "markdown"
	}
	switch {
	case a.json:
		return "json"
	case a.stdoutTTY && output == "":
		return "table"
	}
	return "csv"
}

func (a *app) runSQL(ctx context.Context, o sqlOptions) error {
	stmts := kb.SplitStatements(o.script)
	if len(stmts) == 0 {
		return usage.Errorf("%s holds no SQL statement", o.source)
	}
	var att *kb.Attached
	var err error
	if o.shards != "" {
		att, err = shards.Attach(ctx, o.shards)
	} else {
		att, err = kb.AttachWith(ctx, a.home.Dir, o.stores)
	}
	if err != nil {
		return err
	}
	defer att.Close()
	var held *spool // stdout, written once the stores are closed
	var out io.Writer
	switch {
	case o.output == "":
		held = &spool{}
		out = held
	case o.format != "parquet":
		f, err := os.Create(o.output)
		if err != nil {
			return usage.Errorf("-o %s: %v", o.output, err)
		}
		defer f.Close()
		out = f
	}
	sets := tabular.NewResultSets(out, o.format, len(stmts))
	results := 0
	err = kb.RunScript(ctx, att.Conn, o.source, stmts, o.run, func(i int, stmt string) error {
		if results++; results > 1 && o.output != "" {
			return usage.Errorf("-o %s takes one result, but statement %d is the second query", o.output, i+1)
		}
		if o.format == "parquet" {
			return kb.CopyToParquet(ctx, att.Conn, stmt, o.output)
		}
		start := time.Now()
		rows, err := att.Conn.QueryContext(ctx, stmt)
		if err != nil {
			return err
		}
		defer rows.Close()
		n, err := sets.Write(i+1, stmt, rows)
		a.log.Debug("query", "statement", i+1, "rows", n, "elapsed", time.Since(start))
		return err
	})
	if err == nil {
		err = sets.Close()
	}
	// The stores go before the output: a writer waiting for them must not
	// wait for whoever reads stdout too.
	err = errors.Join(err, att.Close())
	if held != nil {
		err = errors.Join(err, held.flush(a.stdout))
	}
	if u := new(usage.Error); errors.As(err, &u) {
		return u
	}
	return err
}
