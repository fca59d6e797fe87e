// Command shards is `make shards`: the sharded nightly batch on one
// machine. It mines the repositories once in a home of its own, and again
// as N shards (N cra processes at once, each with its own home, each
// keeping its share through --shard K/N), exports every shard, imports
// the union into a fresh home, and checks that the union, and `cra sql
// --shards` over the exports, give row for row what the single run gave
// (shards.Checks: task ids, target contents, the funnel, merges,
// watermarks). It prints each step's time and peak RSS and exits 1 when
// anything differs.
//
//	go run ./internal/e2e/cmd/shards --cra bin/cra --shards 3 REPO...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/cra-dev/cra/internal/e2e"
	"github.com/cra-dev/cra/shards"
)

func main() {
	e2e.MeasureMain()
	cra := flag.String("cra", "bin/cra", "the cra binary")
	n := flag.Int("shards", 3, "how many shards (`N`)")
	keep := flag.Bool("keep", false, "keep the homes and the export folder (and print where)")
	flag.Parse()
	if *n < 1 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: shards --cra bin/cra --shards N REPO...")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, *cra, *n, *keep, flag.Args()))
}

// step is one measured cra process.
type step struct {
	name string
	m    e2e.Measured
}

func run(ctx context.Context, cra string, n int, keep bool, repos []string) int {
	cra, err := filepath.Abs(cra)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for i, r := range repos {
		if repos[i], err = filepath.Abs(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	root, err := os.MkdirTemp("", "cra-shards-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if keep {
		fmt.Fprintf(os.Stderr, "homes and exports kept under %s\n", root)
	} else {
		defer os.RemoveAll(root)
	}
	var (
		mu    sync.Mutex
		steps []step
		fail  error
	)
	do := func(name, home string, args ...string) e2e.Measured {
		argv := append([]string{cra, "--home", home}, args...)
		m, err := e2e.Measure(ctx, os.Args[0], nil, argv...)
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, step{name, m})
		switch {
		case err != nil && fail == nil:
			fail = fmt.Errorf("%s: %w", name, err)
		case m.Code > 1 && fail == nil: // 1: some repositories failed, as in the single run
			fail = fmt.Errorf("%s: exit %d\n%s", name, m.Code, m.Stderr)
		}
		return m
	}
	home := func(name string) string {
		h := filepath.Join(root, name)
		do("init "+name, h, "init")
		return h
	}
	exports := filepath.Join(root, "exports")

	single := home("single")
	do("single bootstrap", single, append([]string{"bootstrap"}, repos...)...)
	var wg sync.WaitGroup
	for k := range n {
		shard := fmt.Sprintf("%d/%d", k, n)
		h := home(fmt.Sprintf("shard-%d", k))
		wg.Add(1)
		go func() {
			defer wg.Done()
			do("shard "+shard+" bootstrap", h, append([]string{"bootstrap", "--shard", shard}, repos...)...)
			do("shard "+shard+" export", h, "shards", "export", "--shard", shard, "--out", exports)
		}()
	}
	wg.Wait()
	union := home("union")
	do("import", union, "shards", "import", exports)
	if fail != nil {
		printSteps(steps)
		fmt.Fprintln(os.Stderr, fail)
		return 1
	}

	// The checks, each one digest per side.
	digest := func(name, query string) string {
		return fmt.Sprintf("SELECT '%s' AS name, count(*) AS n, md5(coalesce(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR), '')) AS digest FROM (%s) x", name, query)
	}
	names := make([]string, 0, len(shards.Checks))
	for name := range shards.Checks {
		names = append(names, name)
	}
	slices.Sort(names)
	queries := make([]string, len(names))
	for i, name := range names {
		queries[i] = digest(name, shards.Checks[name])
	}
	script := strings.Join(queries, ";\n")
	sides := map[string]e2e.Measured{
		"single":       do("sql single", single, "sql", "--format", "csv", script),
		"union":        do("sql union", union, "sql", "--format", "csv", script),
		"sql --shards": do("sql --shards", root, "sql", "--shards", exports, "--format", "csv", script),
	}
	printSteps(steps)
	if fail != nil {
		fmt.Fprintln(os.Stderr, fail)
		return 1
	}
	return compare(names, sides)
}

// compare prints each check's row count on every side and whether the
// digests agree with the single run's.
func compare(names []string, sides map[string]e2e.Measured) int {
	rows := map[string]map[string][2]string{} // side → check → (count, digest)
	for side, m := range sides {
		rows[side] = map[string][2]string{}
		for _, line := range strings.Split(m.Stdout, "\n") {
			f := strings.Split(line, ",")
			if len(f) == 3 && f[0] != "name" {
				rows[side][f[0]] = [2]string{f[1], f[2]}
			}
		}
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "check\tsingle\tunion\tsql --shards\t")
	code := 0
	for _, name := range names {
		want := rows["single"][name]
		verdict := "equal"
		for _, side := range []string{"union", "sql --shards"} {
			if got := rows[side][name]; got != want || want[1] == "" {
				verdict, code = "DIFFERENT", 1
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", name, want[0], rows["union"][name][0], rows["sql --shards"][name][0], verdict)
	}
	w.Flush() //nolint:errcheck // stdout
	return code
}

func printSteps(steps []step) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "step\texit\tseconds\tCPU s\tpeak RSS MB\t")
	for _, s := range steps {
		if strings.HasPrefix(s.name, "init ") {
			continue
		}
		fmt.Fprintf(w, "%s\t%d\t%.1f\t%.1f\t%d\t\n", s.name, s.m.Code, s.m.Wall.Seconds(), s.m.CPU.Seconds(), s.m.PeakRSS>>20)
	}
	w.Flush() //nolint:errcheck // stdout
}
