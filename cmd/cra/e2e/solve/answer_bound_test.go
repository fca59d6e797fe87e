package solve_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/e2e"
)

// Bounds of a cra solve whose model answers 40 MB (issue 25, finding 7:
// one such answer took 7.5 GB RSS and grew raw.duckdb to 3.4 GB).
const (
	maxSolveRSS    = 300 << 20
	maxRawAfterRun = 50 << 20
)

// A real cra solve process whose model answers 40 MB to one kind of call
// refuses the answer as unusable, peaks under 300 MB RSS and leaves a
// small raw store — also when the config asks for a max_tokens whose
// answer could be that large (the ceiling, llm.MaxAnswerBytes, holds);
// an answer just under that ceiling is taken, within the same bounds.
func TestSolveRefusesA40MBAnswerInBoundedMemory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs cra solve in child processes with 40 MB answers")
	}
	// The cra users run (make test's bin/cra), not this test binary: one
	// built with -race keeps shadow memory that is not cra's.
	bin := clitest.Binary(t)
	hugeTokens := "max_tokens = 10000000\ncontext_window = 20000000\n"
	for _, tc := range []struct {
		name, kind, config string
		size               int
		refused            bool
	}{
		{"task_analysis", "task_analysis", "", 40 << 20, true},
		{"implement", "implement", "", 40 << 20, true},
		{"task_analysis with max_tokens 10M", "task_analysis", hugeTokens, 40 << 20, true},
		{"implement with max_tokens 10M", "implement", hugeTokens, 40 << 20, true},
		{"task_analysis under the ceiling", "task_analysis", hugeTokens, llm.MaxAnswerBytes - 4096, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			huge := strings.Repeat("x", tc.size)
			s := &clitest.SolveScript{Meta: clitest.OnePart, Part: clitest.OneStep, Implement: []string{clitest.FixAdd}}
			switch tc.kind {
			case "implement":
				s.Implement = []string{"<edit file=\"calc.py\">\n<search>\n    return a - b\n</search>\n<replacement>\n" + huge + "\n</replacement>\n</edit>"}
			default:
				s.Analysis = []string{`{"summary": "` + huge + `", "files": ["calc.py"], "symbols": [], "keywords": []}`}
			}
			srv := s.Server(t)
			r := clitest.CalcRepo(t)
			home := cli.SolveHome(t, srv, r, "")
			if tc.config != "" {
				cfgPath := filepath.Join(home, "config.toml")
				cfg, _ := os.ReadFile(cfgPath)
				if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), "[models]\n", "[models]\n"+tc.config, 1)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			m, err := e2e.Measure(ctx, os.Args[0], nil, bin, "--home", home, "solve", "--repo", r.Dir, "Fix add: it must return the sum")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("exit %d in %v, peak RSS %d MB", m.Code, m.Wall.Round(time.Millisecond), m.PeakRSS>>20)
			if m.PeakRSS > maxSolveRSS {
				t.Errorf("peak RSS %d MB, want under %d MB", m.PeakRSS>>20, maxSolveRSS>>20)
			}
			if st, err := os.Stat(filepath.Join(home, "raw.duckdb")); err != nil || st.Size() > maxRawAfterRun {
				t.Errorf("raw.duckdb after the run: %v (%d MB), want under %d MB", err, st.Size()>>20, maxRawAfterRun>>20)
			}
			refused := cli.SQLRows(t, home, "select count(*) > 0 as refused from raw.retrieval_llm_calls where error like '%answer from % refused: over %'")
			if want := map[bool]string{true: "refused\ntrue\n", false: "refused\nfalse\n"}[tc.refused]; refused != want {
				t.Errorf("answers refused for their size: %q, want %q; exit %d\n%s", refused, want, m.Code, m.Stderr)
			}
			if got := cli.SQLRows(t, home, "select max(len(coalesce(response, ''))) <= "+strconv.Itoa(llm.MaxAnswerBytes)+" as bounded from raw.retrieval_llm_calls"); got != "bounded\ntrue\n" {
				t.Errorf("a logged answer is over the ceiling: %q", got)
			}
		})
	}
}
