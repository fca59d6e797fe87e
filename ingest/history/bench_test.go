package history

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmark repository: ~150 files, ~6,000 commits touching 1-5 files
// each with a few changed lines, some adds and deletes, a binary file now
// and then, and a side branch merged every ~40 commits.
const (
	benchFiles   = 150
	benchCommits = 6000
)

var bench struct {
	once sync.Once
	dir  string
	head string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

// benchRepo builds the benchmark repository once per test binary.
func benchRepo(b *testing.B) (dir, head string) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "history-bench-")
		if bench.err != nil {
			return
		}
		bench.head, bench.err = buildBenchRepo(filepath.Join(bench.dir, "repo"))
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return filepath.Join(bench.dir, "repo"), bench.head
}

func BenchmarkWalk(b *testing.B) {
	dir, head := benchRepo(b)
	for _, workers := range []int{1, 0} {
		name := fmt.Sprintf("workers=%d", workers)
		if workers == 0 {
			name = "workers=NumCPU"
		}
		b.Run(name, func(b *testing.B) {
			var walkTime, gitTime time.Duration
			commits := 0
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if err := Walk(context.Background(), dir, head, Options{Workers: workers}, func(Commit) error {
					commits++
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				walkTime += time.Since(start)

				b.StopTimer()
				start = time.Now()
				cmd := exec.Command("git", "log", "--numstat", "--no-renames", head)
				cmd.Dir = dir
				cmd.Env = gitEnv(dir)
				cmd.Stdout = io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				gitTime += time.Since(start)
				b.StartTimer()
			}
			b.ReportMetric(float64(commits)/walkTime.Seconds(), "commits/s")
			b.ReportMetric(walkTime.Seconds()/gitTime.Seconds(), "x_gitlog")
		})
	}
}

// buildBenchRepo writes the benchmark history with `git fast-import` and
// packs it as `git gc` would, and returns the head commit.
func buildBenchRepo(dir string) (string, error) {
	git := func(stdin io.Reader, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = gitEnv(dir)
		cmd.Stdin = stdin
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out)), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := git(nil, "init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	var stream bytes.Buffer
	writeBenchStream(&stream)
	if _, err := git(&stream, "fast-import", "--quiet"); err != nil {
		return "", err
	}
	if _, err := git(nil, "gc", "-q"); err != nil {
		return "", err
	}
	return git(nil, "rev-parse", "main")
}

// benchHistory generates the fast-import stream.
type benchHistory struct {
	w     *bufio.Writer
	r     *rand.Rand
	mark  int
	when  int64
	next  int // file name counter
	seq   int // unique line counter
	lines map[string][]string
}

func writeBenchStream(out io.Writer) {
	h := &benchHistory{
		w:     bufio.NewWriter(out),
		r:     rand.New(rand.NewPCG(42, 42)),
		when:  1_700_000_000,
		lines: map[string][]string{},
	}
	defer h.w.Flush()

	initial := map[string]string{}
	for range benchFiles {
		path, content := h.newFile()
		initial[path] = content
	}
	head := h.commit("refs/heads/main", 0, 0, "initial import", initial, nil)
	for n := 1; n < benchCommits; {
		if n%40 == 0 {
			// A side branch of three commits, merged back after two commits on main.
			fork, saved := maps.Clone(h.lines), maps.Clone(h.lines)
			side := head
			sideFiles := map[string]string{}
			for i := range 3 {
				changes, deletes := h.edits()
				side = h.commit("refs/heads/side", side, 0, fmt.Sprintf("side work %d.%d", n, i), changes, deletes)
				maps.Copy(sideFiles, changes)
				for _, p := range deletes {
					delete(sideFiles, p)
				}
			}
			sideLines := h.lines
			h.lines = saved
			for i := range 2 {
				changes, deletes := h.edits()
				head = h.commit("refs/heads/main", head, 0, fmt.Sprintf("main work %d.%d", n, i), changes, deletes)
			}
			// The merge takes the side's version of every file the side touched.
			merged := map[string]string{}
			var gone []string
			for p := range sideFiles {
				if _, ok := sideLines[p]; ok {
					merged[p] = strings.Join(sideLines[p], "")
					h.lines[p] = sideLines[p]
				}
			}
			for p := range fork {
				if _, ok := sideLines[p]; !ok {
					if _, ok := h.lines[p]; ok {
						gone = append(gone, p)
						delete(h.lines, p)
					}
				}
			}
			head = h.commit("refs/heads/main", head, side, fmt.Sprintf("Merge side %d", n), merged, gone)
			n += 6
			continue
		}
		changes, deletes := h.edits()
		head = h.commit("refs/heads/main", head, 0, fmt.Sprintf("change %d\n\nDetails of change %d.", n, n), changes, deletes)
		n++
	}
}

// newFile makes a new text file of 20-300 lines, in one of ten directories.
func (h *benchHistory) newFile() (path, content string) {
	h.next++
	path = fmt.Sprintf("pkg%d/file%d.go", h.next%10, h.next)
	lines := make([]string, 20+h.r.IntN(280))
	for i := range lines {
		lines[i] = h.line()
	}
	h.lines[path] = lines
	return path, strings.Join(lines, "")
}

func (h *benchHistory) line() string {
	h.seq++
	switch h.seq % 7 {
	case 0:
		return "}\n"
	case 3:
		return "\n"
	}
	return fmt.Sprintf("\tx%d := compute(%d, %q)\n", h.seq, h.r.IntN(1000), "value")
}

// edits picks 1-5 changes: mostly a few lines edited in a file, sometimes a
// file added or deleted, sometimes the binary asset rewritten.
func (h *benchHistory) edits() (changes map[string]string, deletes []string) {
	changes = map[string]string{}
	paths := slices.Sorted(maps.Keys(h.lines))
	for range 1 + h.r.IntN(5) {
		switch k := h.r.IntN(100); {
		case k < 3 && len(h.lines) > benchFiles/2:
			p := paths[h.r.IntN(len(paths))]
			if _, changed := changes[p]; !changed {
				delete(h.lines, p)
				deletes = append(deletes, p)
			}
		case k < 6:
			p, content := h.newFile()
			changes[p] = content
		case k < 8:
			blob := make([]byte, 2000+h.r.IntN(2000))
			for i := range blob {
				blob[i] = byte(h.r.IntN(256))
			}
			blob[0] = 0
			changes["assets/logo.bin"] = string(blob)
		default:
			p := paths[h.r.IntN(len(paths))]
			lines, ok := h.lines[p]
			if !ok {
				continue
			}
			lines = slices.Clone(lines)
			for range 1 + h.r.IntN(4) {
				i := h.r.IntN(len(lines))
				switch h.r.IntN(3) {
				case 0:
					lines[i] = h.line()
				case 1:
					lines = slices.Insert(lines, i, h.line(), h.line())
				default:
					if len(lines) > 5 {
						lines = slices.Delete(lines, i, i+1)
					}
				}
			}
			h.lines[p] = lines
			changes[p] = strings.Join(lines, "")
		}
	}
	return changes, deletes
}

// commit writes one commit (with a second parent if merge is set) and
// returns its mark.
func (h *benchHistory) commit(ref string, from, merge int, msg string, changes map[string]string, deletes []string) int {
	marks := map[string]int{}
	for _, p := range slices.Sorted(maps.Keys(changes)) {
		h.mark++
		marks[p] = h.mark
		fmt.Fprintf(h.w, "blob\nmark :%d\ndata %d\n%s\n", h.mark, len(changes[p]), changes[p])
	}
	h.mark++
	h.when += 60
	fmt.Fprintf(h.w, "commit %s\nmark :%d\n", ref, h.mark)
	fmt.Fprintf(h.w, "author Bench Author <bench@example.com> %d +0100\n", h.when)
	fmt.Fprintf(h.w, "committer Bench Author <bench@example.com> %d +0100\n", h.when)
	fmt.Fprintf(h.w, "data %d\n%s\n", len(msg), msg)
	if from != 0 {
		fmt.Fprintf(h.w, "from :%d\n", from)
	}
	if merge != 0 {
		fmt.Fprintf(h.w, "merge :%d\n", merge)
	}
	for _, p := range deletes {
		fmt.Fprintf(h.w, "D %s\n", p)
	}
	for _, p := range slices.Sorted(maps.Keys(changes)) {
		fmt.Fprintf(h.w, "M 100644 :%d %s\n", marks[p], p)
	}
	fmt.Fprintln(h.w)
	return h.mark
}
