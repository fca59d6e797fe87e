package history

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests in this file compare against the history of a real repository
// named by an environment variable; they are skipped without it. They are how
// the line counter is checked against git on histories too large to commit:
//
//	CRA_HISTORY_REPO=/path/to/repo go test -run TestRealHistory -v ./ingest/history
//	CRA_LINEDIFF_REPO=/path/to/repo go test -run TestRealLineCounts -v ./ingest/history
//
// CRA_HISTORY_DUMP names a file that receives the mismatching entries.

// TestRealHistory walks a repository from HEAD (or CRA_HISTORY_HEAD) and
// compares every commit with `git log --numstat --no-renames`, reporting how
// many file entries differ.
func TestRealHistory(t *testing.T) {
	dir := os.Getenv("CRA_HISTORY_REPO")
	if dir == "" {
		t.Skip("CRA_HISTORY_REPO is not set")
	}
	head := os.Getenv("CRA_HISTORY_HEAD")
	if head == "" {
		head = revParse(t, dir, "HEAD")
	}
	start := time.Now()
	want := gitLog(t, dir, head)
	gitTime := time.Since(start)
	start = time.Now()
	got := walkAll(t, dir, head, Options{})
	walkTime := time.Since(start)
	byHash := map[string]Commit{}
	for _, c := range got {
		byHash[c.Hash] = c
	}
	dump := dumpFile(t)
	files, bad, other := 0, 0, 0
	for _, w := range want {
		g, ok := byHash[w.Hash]
		if !ok {
			other++
			continue
		}
		gf := map[string]FileChange{}
		for _, f := range g.Files {
			gf[f.Path] = f
		}
		if len(gf) != len(w.Files) {
			other++
		}
		for _, wf := range w.Files {
			files++
			if f, ok := gf[wf.Path]; !ok || f != wf {
				bad++
				fmt.Fprintf(dump, "%s\t%s\t%d\t%d\t%d\t%d\n", w.Hash, wf.Path, wf.Insertions, wf.Deletions, f.Insertions, f.Deletions)
			}
		}
	}
	t.Logf("%s: %d commits, %d file entries, %d differ from git log (%.3f%%), %d commits with other differences; git log %v, Walk %v",
		dir, len(want), files, bad, 100*float64(bad)/float64(max(files, 1)), other, gitTime.Round(time.Millisecond), walkTime.Round(time.Millisecond))
	if bad > 0 || other > 0 {
		t.Fail()
	}
}

// TestRealLineCounts counts the lines of every modified text file in the
// history of a repository, from the blob pairs `git log --raw --numstat`
// names, and compares with git's numbers. It is quicker than TestRealHistory
// and checks only the line counter.
func TestRealLineCounts(t *testing.T) {
	dir := os.Getenv("CRA_LINEDIFF_REPO")
	if dir == "" {
		t.Skip("CRA_LINEDIFF_REPO is not set")
	}
	pairs := blobPairs(t, dir)
	cat := newCatFile(t, dir)
	dump := dumpFile(t)
	var lc lineCounter
	bad := 0
	for _, p := range pairs {
		a, b := cat.blob(p.from), cat.blob(p.to)
		ins, del := lc.count(a, b)
		if ins != p.ins || del != p.del {
			bad++
			fmt.Fprintf(dump, "%s\t%s\t%d\t%d\t%d\t%d\n", p.from, p.to, p.ins, p.del, ins, del)
		}
	}
	t.Logf("%s: %d distinct modified text blob pairs, %d differ from git (%.3f%%)", dir, len(pairs), bad, 100*float64(bad)/float64(max(len(pairs), 1)))
	if bad > 0 {
		t.Fail()
	}
}

func dumpFile(t *testing.T) io.Writer {
	name := os.Getenv("CRA_HISTORY_DUMP")
	if name == "" {
		return io.Discard
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", rev)
	cmd.Dir = dir
	cmd.Env = gitEnv(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git rev-parse %s: %v", rev, err)
	}
	return strings.TrimSpace(string(out))
}

type blobPair struct {
	from, to string
	ins, del int
}

// blobPairs lists the distinct blob pairs of modified regular files and
// symlinks in the history from HEAD, with git's counts; binary pairs are
// left out.
func blobPairs(t *testing.T, dir string) []blobPair {
	t.Helper()
	cmd := exec.Command("git", "log", "--raw", "--numstat", "--no-renames", "--no-abbrev", "-z", "--format=%x01%H", "HEAD")
	cmd.Dir = dir
	cmd.Env = gitEnv(t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	seen := map[[2]string]bool{}
	var pairs []blobPair
	for _, chunk := range strings.Split(string(out), "\x01")[1:] {
		tokens := strings.Split(chunk, "\x00")
		raw := map[string][2]string{}
		for i := 0; i < len(tokens); i++ {
			tok := strings.TrimLeft(tokens[i], "\n")
			if _, rest, ok := strings.Cut(tok, "\n"); ok && !strings.HasPrefix(tok, ":") {
				tok = strings.TrimLeft(rest, "\n") // the commit hash line
			}
			switch {
			case strings.HasPrefix(tok, ":"):
				f := strings.Fields(tok)
				i++
				if len(f) == 5 && f[4] == "M" && f[0] != ":160000" && f[1] != "160000" {
					raw[tokens[i]] = [2]string{f[2], f[3]}
				}
			case strings.Contains(tok, "\t"):
				parts := strings.SplitN(tok, "\t", 3)
				ins, err1 := strconv.Atoi(parts[0])
				del, err2 := strconv.Atoi(parts[1])
				if err1 != nil || err2 != nil || len(parts) != 3 {
					continue // binary
				}
				r, ok := raw[parts[2]]
				if !ok || seen[r] {
					continue
				}
				seen[r] = true
				pairs = append(pairs, blobPair{r[0], r[1], ins, del})
			}
		}
	}
	return pairs
}

// catFile reads blobs through one `git cat-file --batch`.
type catFile struct {
	t   *testing.T
	in  io.Writer
	out *bufio.Reader
}

func newCatFile(t *testing.T, dir string) *catFile {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = dir
	cmd.Env = gitEnv(t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return &catFile{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (c *catFile) blob(hash string) []byte {
	c.t.Helper()
	fmt.Fprintln(c.in, hash)
	header, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatalf("cat-file %s: %v", hash, err)
	}
	f := strings.Fields(header)
	size, err := strconv.Atoi(f[len(f)-1])
	if err != nil || len(f) != 3 || f[1] != "blob" {
		c.t.Fatalf("cat-file %s: %q", hash, header)
	}
	buf := make([]byte, size+1) // the content and a newline
	if _, err := io.ReadFull(c.out, buf); err != nil {
		c.t.Fatalf("cat-file %s: %v", hash, err)
	}
	return bytes.Clone(buf[:size])
}
