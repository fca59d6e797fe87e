package golden

import (
	"fmt"
	"strings"
)

const (
	// diffContext is the number of unchanged lines shown around a change.
	diffContext = 3
	// diffMaxLines caps a diff's body: the first differences locate the
	// problem, and a whole-file rewrite would bury them.
	diffMaxLines = 80
	// diffMaxCells bounds the line-matching table; past it the differing
	// middle is shown as removed then added, which stays correct, only coarser.
	diffMaxCells = 4_000_000
)

// op is one line of an edit script: ' ' kept, '-' only in a, '+' only in b.
type op struct {
	kind byte
	line string
}

// diff is a unified-style line diff from a (labelled aLabel) to b (labelled
// bLabel): hunks of changed lines with diffContext lines around them, at most
// diffMaxLines lines, then a count of what was left out. A missing final
// newline on either side is said, since it is otherwise invisible.
func diff(aLabel, bLabel, a, b string) string {
	if a == b {
		return ""
	}
	as, bs := splitLines(a), splitLines(b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aLabel, bLabel)
	ops := editScript(as, bs)
	body, omitted := hunks(ops)
	for _, l := range body {
		out.WriteString(l)
		out.WriteByte('\n')
	}
	if omitted > 0 {
		fmt.Fprintf(&out, "... %d more diff lines not shown\n", omitted)
	}
	if strings.HasSuffix(a, "\n") != strings.HasSuffix(b, "\n") && a != "" && b != "" {
		fmt.Fprintf(&out, "(%s ends with a newline: %t; %s: %t)\n",
			aLabel, strings.HasSuffix(a, "\n"), bLabel, strings.HasSuffix(b, "\n"))
	}
	return out.String()
}

// splitLines splits s into lines without their newlines; a final newline
// does not make an empty last line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// editScript turns a into b line by line: the common prefix and suffix are
// kept, the middle matched by longest common subsequence.
func editScript(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for _, l := range a[:pre] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, middle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

// middle is the edit script of two sequences with no common prefix or
// suffix, by a longest-common-subsequence table (or all removed then all
// added when the table would be too large).
func middle(a, b []string) []op {
	var ops []op
	if len(a)*len(b) > diffMaxCells {
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, op{'+', b[j]})
			j++
		default:
			ops = append(ops, op{'-', a[i]})
			i++
		}
	}
	return ops
}

// hunks renders ops as unified hunks, each headed by its line ranges, and
// returns at most diffMaxLines of them plus how many lines were cut.
func hunks(ops []op) (lines []string, omitted int) {
	// aLine[k], bLine[k]: the 1-based line numbers op k starts at in a and b.
	aLine, bLine := make([]int, len(ops)+1), make([]int, len(ops)+1)
	aLine[0], bLine[0] = 1, 1
	for k, o := range ops {
		aLine[k+1], bLine[k+1] = aLine[k], bLine[k]
		if o.kind != '+' {
			aLine[k+1]++
		}
		if o.kind != '-' {
			bLine[k+1]++
		}
	}
	var all []string
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-diffContext)
		end := k // one past the last op of the hunk
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		all = append(all, fmt.Sprintf("@@ -%d,%d +%d,%d @@",
			aLine[start], aLine[end]-aLine[start], bLine[start], bLine[end]-bLine[start]))
		for _, o := range ops[start:end] {
			all = append(all, string(o.kind)+o.line)
		}
		k = end
	}
	if len(all) > diffMaxLines {
		return all[:diffMaxLines], len(all) - diffMaxLines
	}
	return all, 0
}
