package gittest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Synthetic is a generated repository for benchmarks: Python, Go and
// TypeScript sources that import and call each other, with a long history
// written in one go by `git fast-import` (thousands of commits per second).
type Synthetic struct {
	Files   int // source files in the final tree
	Commits int // commits on main; every 50th is a merge of a short branch
	Funcs   int // functions per file (size); default 20
	// Realistic makes the history look like people's work, for mining it:
	// a commit changes one function per file (not every line that carries
	// the version) and its message names what it changed, in a few
	// phrasings, with some bot, wip and oversized commits among them.
	Realistic bool
	// MergedBranches makes every 50th step on main a topic branch of 2 to
	// 4 commits with realistic messages, each changing the same two files,
	// merged with --no-ff ten commits later (a pull request's merge
	// message). The first of those ten changes the same two files, and
	// all ten are committed after the branch: a walk from the tip delivers
	// them before the branch (first parents first) although they are
	// younger, the history shape on which co-change counts must not
	// depend on where a batch ends.
	MergedBranches bool
}

// Build writes the repository into dir (a new work tree, checked out) and
// returns the total size of the final tree in bytes.
func (s Synthetic) Build(tb testing.TB, dir string) int64 {
	tb.Helper()
	if s.Funcs == 0 {
		s.Funcs = 20
	}
	rng := rand.New(rand.NewPCG(1, 2))
	run := func(stdin *os.File, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = stdin
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	run(nil, "init", "-q", "-b", "main")
	stream := filepath.Join(tb.TempDir(), "stream")
	f, err := os.Create(stream)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	paths := make([]string, s.Files)
	versions := make([]int, s.Files)
	for i := range paths {
		paths[i] = syntheticPath(i)
	}
	when := int64(1_700_000_000)
	mark := 0
	// bump: each changed file moves to its next version; else the commit
	// writes the files as they are at their latest version (a merge).
	commit := func(ref, msg string, from string, merge string, changes []int, bump bool) {
		mark++
		when += 60
		fmt.Fprintf(w, "commit %s\nmark :%d\nauthor Dev <dev@example.com> %d +0000\ncommitter Dev <dev@example.com> %d +0000\n", ref, mark, when, when)
		fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
		if from != "" {
			fmt.Fprintf(w, "from %s\n", from)
		}
		if merge != "" {
			fmt.Fprintf(w, "merge %s\n", merge)
		}
		for _, i := range changes {
			if bump {
				versions[i]++
			}
			body := syntheticSource(paths[i], i, versions[i], s.Funcs, s.Files, s.Realistic)
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", paths[i], len(body), body)
		}
	}
	all := make([]int, s.Files)
	for i := range all {
		all[i] = i
	}
	commit("refs/heads/main", "Initial import", "", "", all, true)
	var branchFiles []int // the files of the branch waiting to be merged
	topic := ""           // its tip's mark
	for c := 1; c < s.Commits; c++ {
		n := 1 + rng.IntN(3)
		changes := make([]int, n)
		for j := range changes {
			changes[j] = rng.IntN(s.Files)
		}
		switch {
		case c%50 == 0 && s.MergedBranches && s.Files >= 2:
			a := rng.IntN(s.Files)
			branchFiles = []int{a, (a + 1 + rng.IntN(s.Files-1)) % s.Files}
			from := fmt.Sprintf(":%d", mark)
			for k := range 2 + rng.IntN(3) {
				f := branchFiles[k%2]
				// c = 1: a plain phrasing, never "wip".
				commit("refs/heads/topic", realisticMessage(rng, 1, f, versions[f]+1, s.Funcs), from, "", branchFiles, true)
				from = ""
			}
			topic = fmt.Sprintf(":%d", mark)
			continue
		case c%50 == 1 && topic != "":
			changes = branchFiles // the branch's files, changed again on main
		case c%50 == 10 && topic != "":
			commit("refs/heads/main", fmt.Sprintf("Merge pull request #%d from dev/topic-%d\n\nTopic %d", c, c, c), "", topic, branchFiles, false)
			topic = ""
			continue
		case c%50 == 0:
			base := fmt.Sprintf(":%d", mark)
			commit("refs/heads/topic", fmt.Sprintf("Topic change %d", c), base, "", changes, true)
			topic := fmt.Sprintf(":%d", mark)
			commit("refs/heads/main", fmt.Sprintf("Merge topic %d", c), base, topic, nil, true)
			continue
		}
		msg := fmt.Sprintf("Change %d: update %s", c, paths[changes[0]])
		if s.Realistic {
			msg = realisticMessage(rng, c, changes[0], versions[changes[0]]+1, s.Funcs)
		}
		commit("refs/heads/main", msg, "", "", changes, true)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	in, err := os.Open(stream)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	run(in, "fast-import", "--quiet")
	run(nil, "checkout", "-q", "-f", "main")
	var total int64
	for _, p := range paths {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			tb.Fatal(err)
		}
		total += fi.Size()
	}
	return total
}

func syntheticPath(i int) string {
	pkg := fmt.Sprintf("pkg%02d", i/10)
	switch i % 3 {
	case 0:
		return fmt.Sprintf("py/%s/mod%03d.py", pkg, i)
	case 1:
		return fmt.Sprintf("go/%s/file%03d.go", pkg, i)
	}
	return fmt.Sprintf("ts/%s/mod%03d.ts", pkg, i)
}

// realisticMessage is the message of commit c, which changes file i to
// version v (so function v % funcs in realistic mode).
func realisticMessage(rng *rand.Rand, c, i, v, funcs int) string {
	f := v % funcs
	var name string
	switch i % 3 {
	case 0:
		name = fmt.Sprintf("Service%d.op%d", i, f)
	case 1:
		name = fmt.Sprintf("Store%d.Op%d", i, f)
	default:
		name = fmt.Sprintf("Widget%d.render%d", i, f)
	}
	switch c % 10 {
	case 3:
		return "wip"
	case 7:
		return fmt.Sprintf("Fix the result of %s for large inputs\n\nThe counter was off by one.\n\nSigned-off-by: Dev <dev@example.com>", name)
	}
	templates := []string{
		"Fix %s when the input is missing",
		"Handle unknown keys in %s",
		"Make %s return the cached value first",
		"Refactor %s to share the helper",
		"Add a fast path to %s for small inputs",
	}
	return fmt.Sprintf(templates[rng.IntN(len(templates))], name)
}

// syntheticSource is file i at version v: funcs functions with docstrings,
// comments, error paths and calls into a neighbouring file. In realistic
// mode only function v % funcs carries the version, so a new version
// changes a few lines.
func syntheticSource(path string, i, v, funcs, files int, realistic bool) string {
	var b strings.Builder
	next := (i + 3) % files
	fv := func(f int) int { // the version function f shows
		if realistic && f != v%funcs {
			return 0
		}
		return v
	}
	switch i % 3 {
	case 0:
		fmt.Fprintf(&b, "\"\"\"Module %d, version %d.\"\"\"\nimport logging\nfrom py.pkg%02d import mod%03d\n\nlog = logging.getLogger(__name__)\n_cache = {}\n\n\n", i, v, next/10, next)
		fmt.Fprintf(&b, "class Service%d:\n    \"\"\"A service.\"\"\"\n\n    def __init__(self):\n        self.state = %d\n\n", i, v)
		for f := range funcs {
			fmt.Fprintf(&b, "    def op%d(self, x, y=None):\n        \"\"\"Operation %d.\n\n        Args:\n            x: the input.\n            y: optional.\n\n        Returns:\n            the result.\n        \"\"\"\n", f, f)
			fmt.Fprintf(&b, "        # TODO: handle y (version %d)\n        if x is None:\n            log.error(\"op%d got no input\")\n            raise ValueError(\"x is required\")\n", fv(f), f)
			fmt.Fprintf(&b, "        self.state += 1\n        _cache[x] = mod%03d.helper(x)\n        return self.op%d(x) if x > 100 else x * %d\n\n", next, (f+1)%funcs, f+fv(f))
		}
		b.WriteString("\ndef helper(x):\n    return x\n")
	case 1:
		fmt.Fprintf(&b, "// Package pkg%02d is generated for benchmarks (version %d).\npackage pkg%02d\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\n", i/10, v, i/10)
		fmt.Fprintf(&b, "// ErrNotFound%d is returned when nothing matches.\nvar ErrNotFound%d = errors.New(\"not found\")\n\n// Store%d keeps values.\ntype Store%d struct {\n\titems map[string]int\n\tn     int\n}\n\n", i, i, i, i)
		for f := range funcs {
			fmt.Fprintf(&b, "// Op%d does operation %d.\n// It returns ErrNotFound%d for unknown keys.\nfunc (s *Store%d) Op%d(k string) (int, error) {\n", f, f, i, i, f)
			fmt.Fprintf(&b, "\tv, ok := s.items[k]\n\tif !ok {\n\t\treturn 0, fmt.Errorf(\"op%d %%s: %%w\", k, ErrNotFound%d)\n\t}\n\ts.n++ // count calls (version %d)\n\treturn v + %d, nil\n}\n\n", f, i, fv(f), f)
		}
	default:
		fmt.Fprintf(&b, "import { helper } from '../pkg%02d/mod%03d';\n\n/** Module %d, version %d. */\nexport class Widget%d {\n  private count = 0;\n\n", next/10, next, i, v, i)
		for f := range funcs {
			fmt.Fprintf(&b, "  /**\n   * Render part %d.\n   * @param x the input\n   * @returns the output\n   */\n  render%d(x: number): number {\n", f, f)
			fmt.Fprintf(&b, "    if (x < 0) {\n      throw new Error('negative input %d');\n    }\n    this.count++; // FIXME: overflow (version %d)\n    return helper(x) + %d;\n  }\n\n", f, fv(f), f)
		}
		b.WriteString("}\n\nexport function helper(x: number): number {\n  return x;\n}\n")
	}
	return b.String()
}
