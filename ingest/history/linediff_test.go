package history

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestLineCount(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		ins, del int
	}{
		{"empty/empty", "", "", 0, 0},
		{"identical", "a\nb\n", "a\nb\n", 0, 0},
		{"add to empty", "", "a\nb\nc\n", 3, 0},
		{"add to empty, no newline at end", "", "a\nb", 2, 0},
		{"delete all", "a\nb\nc\n", "", 0, 3},
		{"delete all, no newline at end", "a\nb", "", 0, 2},
		{"empty line vs nothing", "", "\n", 1, 0},
		{"newline added at end", "x", "x\n", 1, 1},
		{"newline removed at end", "a\nx\n", "a\nx", 1, 1},
		{"line appended after a line without newline", "a\nb", "a\nb\nc\n", 2, 1},
		{"line appended, both without newline", "a\nb", "a\nb\nc", 2, 1},
		{"prefix of the last line", "a\nab", "a\nabc", 1, 1},
		{"last line grows a newline and text", "x", "xy\n", 1, 1},
		{"crlf is content", "a\r\nb\r\n", "a\nb\r\n", 1, 1},
		{"crlf everywhere", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", 1, 1},
		{"cr alone does not split", "a\rb\n", "a\rc\n", 1, 1},
		{"single-line change", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"single line, no newline", "a", "b", 1, 1},
		{"insert in the middle", "a\nc\n", "a\nb\nc\n", 1, 0},
		{"delete in the middle", "a\nb\nc\n", "a\nc\n", 0, 1},
		{"insert at the start", "b\nc\n", "a\nb\nc\n", 1, 0},
		{"suffix starts mid-line", "p\nxy\n", "q\nxy\n", 1, 1},
		{"suffix covers a whole side", "x\n", "yx\n", 1, 1},
		{"prefix covers a whole side", "ab\n", "ab\nab\n", 1, 0},
		{"moved block", "1\n2\n3\nA\nB\nC\n4\n5\n", "1\nA\nB\nC\n2\n3\n4\n5\n", 2, 2},
		{"moved single line", "a\nb\nc\nd\n", "b\nc\nd\na\n", 1, 1},
		{"swap", "a\nb\n", "b\na\n", 1, 1},
		{"reversed", "a\nb\nc\nd\n", "d\nc\nb\na\n", 3, 3},
		{"repeated lines", "x\nx\nx\n", "x\nx\n", 0, 1},
		{"repeated lines grow", "x\ny\nx\n", "x\nx\ny\nx\nx\n", 2, 0},
		{"blank lines", "\n\n\n", "\n\na\n\n", 1, 0},
		{"interleaved edits", "1\n2\n3\n4\n5\n6\n7\n", "1\nb\n3\n4a\n4\n5\n7\n8\n", 3, 2},
		{"every other line", "a\nb\nc\nd\ne\n", "a\nB\nc\nD\ne\n", 2, 2},
		{"complete rewrite", "a\nb\nc\n", "d\ne\n", 2, 3},
		{"rewrite sharing repeated lines", "a\n}\nb\n}\n", "c\n}\nd\n}\ne\n", 3, 2},
		{"classic myers example", "a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n", 2, 3},
		{"binary-ish bytes", "\x00\xff\n", "\x00\xfe\n", 1, 1},
		// A blank line with enough matches (4 for 12 or 13 lines) amid more
		// than 3*2 replaced lines is discarded, as git does: not minimal.
		{"blank amid 8 replaced lines", "\n\n\n\na0\na1\na2\na3\n\na4\na5\na6\na7\n", "\n\n\n\nb0\nb1\nb2\nb3\n\nb4\nb5\nb6\nb7\n", 9, 9},
		{"blank amid 7 replaced lines", "\n\n\n\na0\na1\na2\na3\n\na4\na5\na6\n", "\n\n\n\nb0\nb1\nb2\nb3\n\nb4\nb5\nb6\n", 8, 8},
		{"blank amid 6 replaced lines", "\n\n\n\na0\na1\na2\n\na4\na5\na6\n", "\n\n\n\nb0\nb1\nb2\n\nb4\nb5\nb6\n", 6, 6},
	}
	var lc lineCounter // shared: buffers carry over between calls
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins, del := lc.count([]byte(tt.a), []byte(tt.b))
			if ins != tt.ins || del != tt.del {
				t.Errorf("count(%q, %q) = +%d -%d, want +%d -%d", tt.a, tt.b, ins, del, tt.ins, tt.del)
			}
			// Swapping the sides swaps the counts.
			ins, del = lc.count([]byte(tt.b), []byte(tt.a))
			if ins != tt.del || del != tt.ins {
				t.Errorf("count(%q, %q) = +%d -%d, want +%d -%d", tt.b, tt.a, ins, del, tt.del, tt.ins)
			}
		})
	}
}

// lcsDP is the textbook O(N*M) longest common subsequence length of the lines
// of a and b, the reference for count.
func lcsDP(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// splitLines splits text as count does: lines keep their newline.
func splitLines(text []byte) []string {
	return strings.SplitAfter(string(text), "\n")[:countLines(text)]
}

// smallText is a random text of up to max lines over an alphabet of k lines,
// sometimes without a newline at the end, sometimes with CRLF lines.
func smallText(rnd *rand.Rand, max, k int) []byte {
	var buf bytes.Buffer
	for range rnd.IntN(max + 1) {
		switch c := rnd.IntN(k + 2); c {
		case k:
			buf.WriteString("\n")
		case k + 1:
			buf.WriteString("l0\r\n")
		default:
			fmt.Fprintf(&buf, "l%d\n", c)
		}
	}
	if buf.Len() > 0 && rnd.IntN(4) == 0 {
		buf.Truncate(buf.Len() - 1)
	}
	return buf.Bytes()
}

func TestLineCountMatchesLCS(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	lc := lineCounter{minimal: true}
	check := func(a, b []byte) {
		t.Helper()
		la, lb := splitLines(a), splitLines(b)
		common := lcsDP(la, lb)
		ins, del := lc.count(a, b)
		if ins != len(lb)-common || del != len(la)-common {
			t.Fatalf("count(%q, %q) = +%d -%d, want +%d -%d", a, b, ins, del, len(lb)-common, len(la)-common)
		}
	}
	for i := range 4000 {
		k := 1 + i%8 // small alphabets make many equal lines and long searches
		a := smallText(rnd, 40, k)
		b := smallText(rnd, 40, k)
		check(a, b)
		check(a, editText(rnd, a, 1+rnd.IntN(4), 10))
	}
	// Larger inputs where the search runs for hundreds of edits.
	for range 30 {
		check(smallText(rnd, 250, 30), smallText(rnd, 250, 30))
	}
	for range 10 {
		check(smallText(rnd, 1000, 30), smallText(rnd, 1000, 30))
	}
}

// TestLineCountMatchesGit compares count with `git diff --no-index --numstat`
// on random texts of up to a few hundred lines with edits of a few lines. All
// pairs are written to two directories and diffed by one git run.
func TestLineCountMatchesGit(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	var pairs [][2][]byte
	for i := range 600 {
		var a []byte
		switch i % 3 {
		case 0:
			a = randomText(rnd, 1+rnd.IntN(400), 1+rnd.IntN(400))
		case 1:
			a = smallText(rnd, 300, 50)
		default:
			a = randomCode(rnd, 1+rnd.IntN(300))
		}
		b := editText(rnd, a, 1+rnd.IntN(6), 50)
		if i%10 == 0 {
			b = editText(rnd, b, 20, 50) // a larger edit now and then
		}
		pairs = append(pairs, [2][]byte{a, b})
	}
	compareWithGit(t, pairs)
}

// TestLineCountMatchesGitRepeatedLines plants what makes git's counts differ
// from a minimal edit script: blocks of code rewritten with the same blank
// lines and braces among new statements. git discards such repeated lines
// when unique lines surround them; a minimal counter matches them.
func TestLineCountMatchesGitRepeatedLines(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	var pairs [][2][]byte
	for i := range 400 {
		a := sparseCode(rnd, 20+rnd.IntN(400))
		b := rewriteBlocks(rnd, a, 1+rnd.IntN(3), 5+rnd.IntN(30))
		if i%4 == 0 {
			b = editText(rnd, b, 1+rnd.IntN(4), 50)
		}
		pairs = append(pairs, [2][]byte{a, b})
	}
	want := compareWithGit(t, pairs)
	// The inputs must tell git apart from a minimal counter.
	lc := lineCounter{minimal: true}
	above := 0
	for i, p := range pairs {
		ins, del := lc.count(p[0], p[1])
		if w := want[strconv.Itoa(i)]; w[0]+w[1] > ins+del {
			above++
		}
	}
	if above < len(pairs)/10 {
		t.Errorf("git counts more than the minimum for %d pairs of %d; the test needs more", above, len(pairs))
	}
}

// TestLineCountMatchesGitDiscardPatterns pins the rule that discards
// repeated lines: both sides are the same sequence of unique lines (replaced
// on the other side), repeated lines (blank lines and braces, which a long
// shared prefix makes frequent) and kept lines (shared, rare), in random
// mixes and runs longer than the 100-line window, so that the repeated lines
// match unless discarded. Unique lines are sometimes missing on one side, so
// that the sides decide differently.
func TestLineCountMatchesGitDiscardPatterns(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	var prefix strings.Builder
	for i := range 150 {
		fmt.Fprintf(&prefix, "p%d\n\n}\n", i)
	}
	var pairs [][2][]byte
	for i := range 300 {
		var a, b strings.Builder
		a.WriteString(prefix.String())
		b.WriteString(prefix.String())
		pRepeated, pKept := rnd.Float64()*0.4, rnd.Float64()*0.08
		n := 5 + rnd.IntN(40)
		if i%5 == 0 {
			n = 100 + rnd.IntN(200)
		}
		for l := range n {
			switch r := rnd.Float64(); {
			case r < pKept:
				fmt.Fprintf(&a, "k%d\n", l)
				fmt.Fprintf(&b, "k%d\n", l)
			case r < pKept+pRepeated:
				line := []string{"\n", "}\n"}[rnd.IntN(2)]
				a.WriteString(line)
				b.WriteString(line)
			default: // sometimes on one side only
				if rnd.IntN(5) != 0 {
					fmt.Fprintf(&a, "a%d\n", l)
				}
				if rnd.IntN(5) != 0 {
					fmt.Fprintf(&b, "b%d\n", l)
				}
			}
		}
		if rnd.IntN(2) == 0 {
			a.WriteString("end\n")
			b.WriteString("end\n")
		}
		pairs = append(pairs, [2][]byte{[]byte(a.String()), []byte(b.String())})
	}
	compareWithGit(t, pairs)
}

// TestLineCountMatchesGitLargeRewrites compares count with git on rewrites
// costing more than 2*256 edits, where git's search gives up minimality: it
// cuts at its furthest point after 256 edits per direction (more for inputs
// over 65,532 lines), and beyond that it accepts a long snake. The texts are
// noise over a few distinct lines, with shared blocks between.
func TestLineCountMatchesGitLargeRewrites(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	var pairs [][2][]byte
	for i := range 60 {
		k := 2 + rnd.IntN(30)
		if i < 40 {
			n := 600 + rnd.IntN(1000)
			pairs = append(pairs, [2][]byte{noise(rnd, "a", n, k), noise(rnd, "b", n, k)})
		} else {
			a, b := noiseWithBlocks(rnd, 40, k)
			pairs = append(pairs, [2][]byte{a, b})
		}
	}
	if !testing.Short() {
		for range 2 {
			// Over 65,532 lines: the search goes on to 512 edits per
			// direction, and accepts a snake from 257.
			a, b := noiseWithBlocks(rnd, 700, 3)
			pairs = append(pairs, [2][]byte{a, b})
		}
	}
	want := compareWithGit(t, pairs)
	lc := lineCounter{minimal: true}
	above := 0
	for i, p := range pairs {
		ins, del := lc.count(p[0], p[1])
		if w := want[strconv.Itoa(i)]; w[0]+w[1] > ins+del {
			above++
		}
	}
	if above < len(pairs)/2 {
		t.Errorf("git counts more than the minimum for %d pairs of %d; the test needs more", above, len(pairs))
	}
}

// noise is n random lines among k distinct ones, between a first and a last
// line unique to tag.
func noise(rnd *rand.Rand, tag string, n, k int) []byte {
	var buf bytes.Buffer
	buf.WriteString(tag + "\n")
	for range n {
		fmt.Fprintf(&buf, "%d\n", rnd.IntN(k))
	}
	buf.WriteString(tag + " end\n")
	return buf.Bytes()
}

// noiseWithBlocks is two texts of segs segments: a block of distinct lines
// both share, or noise over k lines, different on each side.
func noiseWithBlocks(rnd *rand.Rand, segs, k int) (a, b []byte) {
	var ba, bb bytes.Buffer
	ba.WriteString("a\n")
	bb.WriteString("b\n")
	for seg := range segs {
		if rnd.IntN(3) == 0 {
			for l := range 10 + rnd.IntN(40) {
				fmt.Fprintf(&ba, "c%d.%d\n", seg, l)
				fmt.Fprintf(&bb, "c%d.%d\n", seg, l)
			}
			continue
		}
		for range 20 + rnd.IntN(80) {
			fmt.Fprintf(&ba, "%d\n", rnd.IntN(k))
		}
		for range 20 + rnd.IntN(80) {
			fmt.Fprintf(&bb, "%d\n", rnd.IntN(k))
		}
	}
	return ba.Bytes(), bb.Bytes()
}

// rewriteBlocks replaces blocks of about size lines of text with new code
// of the same shape.
func rewriteBlocks(rnd *rand.Rand, text []byte, blocks, size int) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	lines = lines[:len(lines)-1] // randomCode ends every line
	for range blocks {
		n := min(1+rnd.IntN(2*size), len(lines))
		i := rnd.IntN(len(lines) - n + 1)
		repl := strings.SplitAfter(string(sparseCode(rnd, 1+rnd.IntN(2*size))), "\n")
		lines = slices.Concat(lines[:i], repl[:len(repl)-1], lines[i+n:])
	}
	return []byte(strings.Join(lines, ""))
}

// compareWithGit checks count on every pair against `git diff --no-index
// --numstat`, run once on two directories holding all the pairs, and returns
// git's counts by pair index.
func compareWithGit(t *testing.T, pairs [][2][]byte) map[string][2]int {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for side, name := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		for i, p := range pairs {
			if err := os.WriteFile(filepath.Join(dir, name, strconv.Itoa(i)), p[side], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := gitNumstat(t, dir, "a", "b")
	var lc lineCounter
	for i, p := range pairs {
		ins, del := lc.count(p[0], p[1])
		if w := want[strconv.Itoa(i)]; ins != w[0] || del != w[1] {
			t.Errorf("pair %d: count = +%d -%d, git diff = +%d -%d\n--- a\n%s\n--- b\n%s", i, ins, del, w[0], w[1], p[0], p[1])
		}
	}
	return want
}

// gitNumstat runs `git diff --no-index --numstat` on directories a and b in
// dir and returns the counts by file name; identical files are absent.
func gitNumstat(t *testing.T, dir, a, b string) map[string][2]int {
	t.Helper()
	cmd := exec.Command("git", "diff", "--no-index", "--numstat", "-z", a, b)
	cmd.Dir = dir
	cmd.Env = gitEnv(t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 { // 1: there are differences
		t.Fatalf("git diff --no-index: %v: %s", err, stderr.String())
	}
	counts := map[string][2]int{}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+2 < len(fields); i += 3 {
		parts := strings.Split(fields[i], "\t")
		ins, err1 := strconv.Atoi(parts[0])
		del, err2 := strconv.Atoi(parts[1])
		if len(parts) != 3 || err1 != nil || err2 != nil {
			t.Fatalf("git diff --no-index: record %q", fields[i])
		}
		counts[filepath.Base(fields[i+1])] = [2]int{ins, del}
	}
	return counts
}

// randomCode is a random text shaped like source code: distinct statements
// among braces, blank lines and other lines that repeat.
func randomCode(rnd *rand.Rand, lines int) []byte {
	common := []string{"}\n", "\n", "\t}\n", "\treturn nil\n", "\tif err != nil {\n", "\t\treturn err\n", "\t\t}\n", "\t},\n"}
	var buf bytes.Buffer
	for range lines {
		if rnd.IntN(3) == 0 {
			buf.WriteString(common[rnd.IntN(len(common))])
		} else {
			fmt.Fprintf(&buf, "\tv%d := f(%d)\n", rnd.IntN(1<<20), rnd.IntN(100))
		}
	}
	return buf.Bytes()
}

// sparseCode is a random text shaped like source code with few repeated
// lines: about one line in ten is blank and one in thirty a closing brace.
func sparseCode(rnd *rand.Rand, lines int) []byte {
	var buf bytes.Buffer
	for range lines {
		switch k := rnd.IntN(30); {
		case k < 3:
			buf.WriteString("\n")
		case k == 3:
			buf.WriteString("}\n")
		default:
			fmt.Fprintf(&buf, "\tv%d := f(%d)\n", rnd.IntN(1<<20), rnd.IntN(100))
		}
	}
	return buf.Bytes()
}

// randomText is a random text of n lines of one to eight words picked among
// vocab words: long lines are nearly all distinct, short ones repeat, as in
// prose or code.
func randomText(rnd *rand.Rand, n, vocab int) []byte {
	var buf bytes.Buffer
	for range n {
		writeWords(&buf, rnd, "w", vocab)
	}
	return buf.Bytes()
}

func writeWords(buf *bytes.Buffer, rnd *rand.Rand, prefix string, vocab int) {
	for i := range 1 + rnd.IntN(8) {
		if i > 0 {
			buf.WriteByte(' ')
		}
		buf.WriteString(prefix)
		buf.WriteString(strconv.Itoa(rnd.IntN(vocab)))
	}
	buf.WriteByte('\n')
}

// editText applies edits random edits to the lines of text: a line replaced,
// one to three lines inserted or deleted, or a block of lines moved. New lines
// are made as randomText's, of other words.
func editText(rnd *rand.Rand, text []byte, edits, vocab int) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	newLine := func() string {
		var buf bytes.Buffer
		writeWords(&buf, rnd, "e", vocab)
		return buf.String()
	}
	for range edits {
		i := rnd.IntN(len(lines) + 1)
		switch op := rnd.IntN(8); {
		case op < 3 && i < len(lines):
			lines[i] = newLine()
		case op < 5:
			for range 1 + rnd.IntN(3) {
				lines = append(lines[:i], append([]string{newLine()}, lines[i:]...)...)
			}
		case op < 7 && i < len(lines):
			lines = append(lines[:i], lines[min(i+1+rnd.IntN(3), len(lines)):]...)
		case op == 7 && i < len(lines):
			block := append([]string(nil), lines[i:min(i+1+rnd.IntN(5), len(lines))]...)
			lines = append(lines[:i], lines[i+len(block):]...)
			j := rnd.IntN(len(lines) + 1)
			lines = append(lines[:j], append(block, lines[j:]...)...)
		}
	}
	// A last line without its newline stays an ordinary line once edits move
	// it: terminate every line but the last.
	for i, l := range lines[:max(len(lines)-1, 0)] {
		if !strings.HasSuffix(l, "\n") {
			lines[i] = l + "\n"
		}
	}
	return []byte(strings.Join(lines, ""))
}

// gitEnv is the environment for running git in tests: the caller's, without
// git's own variables, with HOME in home and no system configuration, so that
// git runs with its defaults.
func gitEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
}

func BenchmarkLineCount(b *testing.B) {
	rnd := rand.New(rand.NewPCG(9, 9))
	base := randomCode(rnd, 5000)
	rewriteA, rewriteB := randomCode(rnd, 20000), randomCode(rnd, 20000)
	tests := []struct {
		name string
		a, b []byte
	}{
		{"5000 lines, 50 scattered edits", base, editText(rnd, base, 50, 1000)},
		{"20000 lines, complete rewrite", rewriteA, rewriteB},
		{"20000 lines of 400 repeated, complete rewrite", randomText(rnd, 20000, 400), randomText(rnd, 20000, 400)},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			var lc lineCounter
			var ins, del int
			b.SetBytes(int64(len(tt.a) + len(tt.b)))
			for range b.N {
				ins, del = lc.count(tt.a, tt.b)
			}
			b.ReportMetric(float64(ins), "ins")
			b.ReportMetric(float64(del), "del")
		})
	}
}
