package e2e

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// PrintTable writes one row per step: its exit code (every run's when they
// differ), and the median over runs of its seconds (wall and CPU), peak RSS
// and rows written, with the tables that got most of the rows. Runs hold the results
// of each run, steps in the same order.
func PrintTable(w io.Writer, runs [][]Result) error {
	if len(runs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	title := "median of " + strconv.Itoa(len(runs)) + " runs"
	if len(runs) == 1 {
		title = "1 run"
	}
	fmt.Fprintf(tw, "step\texit\tseconds\tcpu s\tpeak RSS MB\trows written\t %s: where the rows went\n", title)
	for i, first := range runs[0] {
		var codes []string
		var secs, cpu, rss, rows []float64
		for _, run := range runs {
			if i >= len(run) {
				continue
			}
			r := run[i]
			if r.Code == NotRun {
				codes = append(codes, "-")
				continue
			}
			codes = append(codes, strconv.Itoa(r.Code))
			secs = append(secs, r.Wall.Seconds())
			cpu = append(cpu, r.CPU.Seconds())
			rss = append(rss, float64(r.PeakRSS)/(1<<20))
			rows = append(rows, float64(r.Rows))
		}
		exit := codes[0]
		if slices.ContainsFunc(codes, func(c string) bool { return c != codes[0] }) {
			exit = strings.Join(codes, ",")
		}
		if len(secs) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t not run: what it needs did not finish\n", first.Step, exit)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.0f\t%s\t %s\n", first.Step, exit, Median(secs), Median(cpu), Median(rss),
			thousands(int64(Median(rows))), where(first.Tables))
	}
	return tw.Flush()
}

// Median is the middle value (the mean of the two middle ones for an even
// count); 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// where names the three tables that got most rows.
func where(t []TableRows) string {
	var parts []string
	for i, r := range t {
		if i == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %+d", r.Table, r.Rows))
	}
	return strings.Join(parts, ", ")
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Total is the wall time of a run's steps.
func Total(run []Result) time.Duration {
	var d time.Duration
	for _, r := range run {
		d += r.Wall
	}
	return d
}
