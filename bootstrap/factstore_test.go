package bootstrap

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// factsProject is project's history and one more commit on main, which
// the filter takes (so every blob of main's tip is parsed by the run).
func factsProject(t *testing.T) *gittest.Repo {
	t.Helper()
	r, _ := project(t)
	r.Write("app/text.py", utilV1+"\n\ndef dashes(text):\n    return text.replace(\"--\", \"-\")\n")
	r.Commit("Add a dashes helper that collapses repeated dashes")
	return r
}

// nextCommit changes one source file of main: one new blob.
func nextCommit(t *testing.T, r *gittest.Repo, path, msg string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, path))
	if err != nil {
		t.Fatal(err)
	}
	r.Write(path, string(b)+"\n\ndef added_later(x):\n    return x\n")
	r.Commit(msg)
}

// copyHome is a new home holding from's stores as they are.
func copyHome(t *testing.T, from string) string {
	t.Helper()
	return homeWithStoresOf(t, from, kb.Curated, kb.Raw)
}

// factRows lists the kept facts' keys and extractor of repo.
func factRows(t *testing.T, home, repo string) []string {
	t.Helper()
	return storetest.Rows(t, home, kb.Curated, `SELECT blob || ' ' || language || ' ' || extractor FROM bootstrap_facts
		WHERE repo_path = ? ORDER BY ALL`, kb.CanonicalPath(repo))
}

// tipBlobs are the distinct source blobs of the branches' tips (local
// and remote-tracking), with their languages, as bootstrap_facts keys
// them.
func tipBlobs(t *testing.T, repo string) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, tip := range strings.Fields(gitOut(t, repo, "for-each-ref", "--format=%(objectname)", "refs/heads", "refs/remotes")) {
		for _, line := range strings.Split(gitOut(t, repo, "ls-tree", "-r", tip), "\n") {
			meta, p, _ := strings.Cut(line, "\t")
			if f := strings.Fields(meta); len(f) == 3 && walk.SourceFile(p) {
				seen[f[2]+" "+lang.LanguageOf(p)] = true
			}
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Facts kept across runs, from one first run and its reference (a fresh
// home mining the history with one more commit), each case on a copy of
// the first run's home (so the package's tests stay cheap):
//   - a nightly run after one new commit parses only the blob it brings
//     and writes the rows of the fresh home; the facts kept are those of
//     every source blob of the branches' tips, under this binary's key;
//   - facts kept under another key (factsVersion or build, language) are
//     not used: wrong facts planted there change nothing, and are
//     replaced; under the run's own key the same wrong facts are used (the
//     control: the test sees what the cache feeds the replay);
//   - kill -9 inside the write of the facts leaves the facts kept before,
//     a curated that opens, and a next run with the fresh home's rows.
func TestFactsKeptAcrossRuns(t *testing.T) {
	t.Parallel()
	r := factsProject(t)
	mined := newHome(t)
	first := mine(t, mined, testOptions(), r.Dir).Repos[0]
	key, err := extractorKey()
	if err != nil {
		t.Fatal(err)
	}
	before := factRows(t, mined, r.Dir)
	if want := tipBlobs(t, r.Dir); len(before) != len(want) {
		t.Fatalf("kept %d facts %q; want the %d source blobs of the tips %q", len(before), before, len(want), want)
	}
	for _, k := range before {
		if !strings.HasSuffix(k, " "+key) {
			t.Errorf("kept %s; want it under %s", k, key)
		}
	}
	nextCommit(t, r, "app/text.py", "Add an added_later helper to the text module")
	fresh := newHome(t)
	if full := mine(t, fresh, testOptions(), r.Dir).Repos[0]; full.BlobsParsed <= 1 {
		t.Fatalf("a fresh home parsed %d blobs: a nightly run's 1 would prove nothing", full.BlobsParsed)
	}
	want := dump(t, fresh)

	empty, err := encodeFacts(&facts{symbols: []lang.Symbol{}, imports: []lang.Import{}, refs: []lang.Reference{}, terms: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	wrong := "unhex('" + hex.EncodeToString(empty) + "')" // no symbol, import or reference: wrong for every file here
	for _, tc := range []struct {
		name, plant string // wrong facts planted
		used        bool
	}{
		{"nightly run", "", true},
		// Each kept blob's wrong facts under another language, and under
		// another factsVersion or build, in place of the right ones.
		{"another version, build or language", `INSERT INTO bootstrap_facts
			SELECT repo_path, blob, 'javascript', extractor, ` + wrong + ` FROM bootstrap_facts;
			UPDATE bootstrap_facts SET extractor = '0/go:another-build', facts = ` + wrong + ` WHERE language <> 'javascript'`, false},
		{"the run's own key (control)", "UPDATE bootstrap_facts SET facts = " + wrong, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := copyHome(t, mined)
			if tc.plant != "" {
				storetest.Exec(t, home, kb.Curated, tc.plant)
			}
			res := mine(t, home, testOptions(), r.Dir).Repos[0]
			if res.Verified != 1 {
				t.Fatalf("verified %d commits, want the new one", res.Verified)
			}
			got := dump(t, home)
			switch {
			case tc.used && tc.plant == "":
				if res.BlobsParsed != 1 || res.BlobsLoaded < len(before) {
					t.Errorf("parsed %d blobs, loaded %d; want 1 parsed (first run: %d), the %d kept loaded",
						res.BlobsParsed, res.BlobsLoaded, first.BlobsParsed, len(before))
				}
				sameRows(t, got, want)
			case tc.used:
				if res.BlobsParsed != 1 || sameDump(got, want) {
					t.Errorf("parsed %d; rows the same as a fresh home's: the kept facts were not used", res.BlobsParsed)
				}
				return
			default:
				if res.BlobsParsed <= 1 {
					t.Errorf("parsed %d blobs: facts kept under another key were used", res.BlobsParsed)
				}
				sameRows(t, got, want)
			}
			kept := storetest.Rows(t, home, kb.Curated, `SELECT blob || ' ' || language || ' ' || extractor || ' ' || (facts = `+wrong+`)
				FROM bootstrap_facts WHERE repo_path = ? ORDER BY ALL`, kb.CanonicalPath(r.Dir))
			// All of the tips' blobs when they were loaded; else those the
			// run parsed (not the other branch's, which it did not read).
			tips := tipBlobs(t, r.Dir)
			if len(kept) > len(tips) || tc.plant == "" && len(kept) != len(tips) {
				t.Errorf("after the run: kept %d facts, want the %d of the new tips (or fewer when not loaded)", len(kept), len(tips))
			}
			for _, k := range kept {
				if f := strings.Fields(k); len(f) != 4 || !slices.Contains(tips, f[0]+" "+f[1]) || f[2] != key || f[3] != "false" {
					t.Errorf("kept %s after the run: want only right facts of the tips' blobs under the run's key", k)
				}
			}
		})
	}

	t.Run("kill -9 in the facts' write", func(t *testing.T) {
		t.Parallel()
		home := copyHome(t, mined)
		if code := stopChild(t, home, r.Dir, syscall.SIGKILL, envStopAt+"=facts:1"); code != -1 {
			t.Fatalf("exit %d, want killed in the facts' write", code)
		}
		if got := factRows(t, home, r.Dir); !equalLines(got, before) {
			t.Errorf("after the kill: kept %d facts, want the %d kept before", len(got), len(before))
		}
		if res := mine(t, home, testOptions(), r.Dir).Repos[0]; res.Status != kb.StatusUpToDate {
			t.Errorf("the run after: %s, want up_to_date (the kill came after the raw store's writes)", res.Status)
		}
		sameRows(t, dump(t, home), want)
	})
}

// Two bootstrap processes on one home, each mining a small repository of
// its own, while a reader holds curated.duckdb (as `cra sql` does): each
// waits for the reader to leave before it writes its facts (the reader
// leaves once one says it waits), and both keep the facts of their
// repository's tip, curated written by one at a time.
func TestTwoProcessesKeepTheFactsOfTheirRepositories(t *testing.T) {
	t.Parallel()
	var repos []string
	for _, name := range []string{"a", "b"} {
		r := gittest.New(t)
		r.Write(name+".py", "def "+name+"():\n    return 1\n")
		r.Commit("Add the " + name + " function")
		r.Write(name+".py", "def "+name+"(x=1):\n    return x\n")
		r.Commit("Let the " + name + " function take its value")
		repos = append(repos, r.Dir)
	}
	home := indexedHome(t, repos...) // so the processes write curated only for their facts
	reader, err := kb.Open(t.Context(), home, kb.Curated, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	waited, left := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(left)
		select {
		case <-waited:
		case <-time.After(time.Minute):
			t.Error("no process waited for the reader: the test proved nothing")
		}
		reader.Close()
	}()
	var wg sync.WaitGroup
	for i, repo := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CRA_TEST_BOOTSTRAP_HOME="+home, "CRA_TEST_BOOTSTRAP_REPO="+repo, envTrace+"=1")
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Error(err)
				return
			}
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			var said []string
			for sc := bufio.NewScanner(stderr); sc.Scan(); {
				said = append(said, sc.Text())
				if sc.Text() == reachedAt+"curated wait:1" {
					once.Do(func() { close(waited) })
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("child %d: %v: %s", i, err, strings.Join(said, "\n"))
				return
			}
			var s Summary
			if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || s.Repos[0].Status != kb.StatusOK || s.Repos[0].Verified != 1 {
				t.Errorf("child %d: %v: %s", i, err, stdout.String())
			}
		}()
	}
	wg.Wait()
	<-left
	for _, repo := range repos {
		if got, tips := factRows(t, home, repo), tipBlobs(t, repo); len(got) != 1 || len(tips) != 1 || !strings.HasPrefix(got[0], tips[0]+" ") {
			t.Errorf("%s: kept %q, want the facts of its tip's blob %q", repo, got, tips)
		}
	}
}

// The run's fact cache tells a blob's languages apart: the same bytes as
// a.py and b.js are two files, each with its own language's facts (keyed
// by blob alone, b.js got a.py's Python facts).
func TestOneBlobUnderTwoLanguagesHasTheFactsOfEach(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a.py", "x = 1\n")
	r.Write("b.js", "x = 1\n")
	commit := r.Commit("Add the same line in Python and JavaScript")
	c, err := openClone(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	repo, release := c.worker()
	w := &worker{repo: repo, release: release, parse: newParsing(nil), cache: newFactCache(factCacheBytes),
		trees: newTrees(treeBytes), mods: &moduleCache{m: map[plumbing.Hash]string{}}}
	defer w.close()
	defer w.trees.close()
	s, err := w.snapshot(commit)
	if err != nil {
		t.Fatal(err)
	}
	if s.blobs["a.py"] != s.blobs["b.js"] {
		t.Fatal("the two files are not one blob")
	}
	for p, want := range map[string]string{"a.py": lang.Python, "b.js": lang.JavaScript} {
		if f := s.facts[s.index[p]]; f == nil || f.language != want {
			t.Errorf("%s: facts %+v; want %s's", p, f, want)
		}
	}
	if n := w.cache.parsed.Load(); n != 2 {
		t.Errorf("parsed %d times; want once per language", n)
	}
}

// Stored facts come back as they were computed, nil and empty alike, and
// with the language of their key (the path's): a difference would change
// a row of a nightly run, not only a parse.
func TestKeptFactsDecodeToWhatWasParsed(t *testing.T) {
	t.Parallel()
	set := lang.NewSet()
	defer set.Close()
	const ts = "import { a as b, c } from './m'\nexport class K extends b { f(): number { return c() } }\n"
	var enc factEncoder
	for path, src := range map[string]string{
		"app/store.py": storeV1, "app/api.py": apiV1, "empty.py": "", "m.go": "package m\n\nimport (\n\t\"fmt\"\n\tx \"os\"\n)\n\nfunc (s *S) F() { fmt.Println(x.Args) }\n",
		"w.ts": ts, "w.tsx": ts, "w.mts": ts, "w.js": "const m = require('./m')\nexport default function f() { return m.g() }\n",
		"w.jsx": "export const A = () => <div />\n", "w.pyi": "def f(x: int) -> int: ...\n",
	} {
		f := extract(set, path, []byte(src))
		if f.failed != "" {
			t.Fatalf("%s: %s", path, f.failed)
		}
		js, err := encodeFacts(f)
		if err != nil {
			t.Fatal(err)
		}
		// One encoder for many facts writes each as a fresh one does.
		if again, err := enc.encode(f); err != nil || !bytes.Equal(again, js) {
			t.Errorf("%s: the shared encoder wrote %d bytes (%v), a fresh one %d", path, len(again), err, len(js))
		}
		got, err := decodeFacts(keyOf(path, plumbing.ZeroHash).language, js)
		if err != nil {
			t.Fatal(err)
		}
		if !equalFacts(got, f) {
			t.Errorf("%s: kept %+v; parsed %+v", path, got, f)
		}
	}
}

func equalLines(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// equalFacts compares facts as JSON does not: nil and empty slices apart.
func equalFacts(a, b *facts) bool { return reflect.DeepEqual(a, b) }

// sameDump reports whether two dumps hold the same rows.
func sameDump(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for table, rows := range a {
		if !equalLines(rows, b[table]) {
			return false
		}
	}
	return true
}

// Facts loaded from the store fill the cache only up to its bound, and
// never push out facts the run computed: loading stops when one does not fit.
func TestLoadedFactsStayWithinTheCacheBound(t *testing.T) {
	t.Parallel()
	one := &facts{language: lang.Python, symbols: []lang.Symbol{{Name: "f", Kind: lang.KindFunction}}}
	size := one.estimate()
	c := newFactCache(10 * size)
	computed := factKey{blob: plumbing.NewHash(fmt.Sprintf("%040x", 1)), language: lang.Python}
	c.get(computed, func() *facts { return one })
	loaded := 0
	for i := range 100 {
		if !c.put(factKey{blob: plumbing.NewHash(fmt.Sprintf("%040x", i+2)), language: lang.Python}, one) {
			break
		}
		loaded++
	}
	if loaded != 9 || c.size > c.limit {
		t.Errorf("loaded %d facts of %d bytes into a cache of %d (size %d); want 9 beside the one computed", loaded, size, c.limit, c.size)
	}
	if c.peek(computed) == nil {
		t.Error("loading pushed out facts the run computed")
	}
}

// A curated store from before bootstrap_facts existed (no writer opened it
// since cra was upgraded) has no facts to load, and the first save
// migrates it and keeps them.
func TestFactsInAStoreFromBeforeTheirTable(t *testing.T) {
	t.Parallel()
	home := newHome(t)
	storetest.Exec(t, home, kb.Curated, "DROP TABLE bootstrap_facts")
	storetest.Exec(t, home, kb.Curated, "DELETE FROM schema_migrations WHERE name = 'bootstrap_facts'")
	r := gittest.New(t)
	r.Write("a.py", "def f():\n    return 1\n")
	tip := r.Commit("Add f")
	c, err := openClone(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	run := &runner{dir: home, opts: testOptions().withDefaults()}
	cache := newFactCache(factCacheBytes)
	loaded, err := run.loadFacts(t.Context(), r.Dir, cache)
	if err != nil || len(loaded) != 0 {
		t.Fatalf("loaded %d facts from a store without the table: %v", len(loaded), err)
	}
	set := lang.NewSet()
	defer set.Close()
	cache.parser(&parsing{set: set})("a.py", []byte("def f():\n    return 1\n"))
	kept, err := factsToKeep(r.Dir, c, []string{tip}, cache, loaded)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := run.saveFacts(t.Context(), r.Dir, kept); err != nil || n != 1 {
		t.Fatalf("saved %d facts: %v; want the store migrated and a.py's kept", n, err)
	}
	if got := factRows(t, home, r.Dir); len(got) != 1 {
		t.Errorf("kept %q, want a.py's facts", got)
	}
}

// A run cut short by --max-commits also keeps the facts of the state its
// last mined commit left (where the next run starts), not only the tips'.
func TestARunCutShortKeepsTheFactsWhereItStopped(t *testing.T) {
	t.Parallel()
	r := factsProject(t)
	home := newHome(t)
	opts := testOptions()
	opts.MaxCommits = 2
	if res := mine(t, home, opts, r.Dir).Repos[0]; res.Status != kb.StatusPartial {
		t.Fatalf("status %s, want partial", res.Status)
	}
	last := rawRows(t, home, "SELECT commit FROM bootstrap_commits ORDER BY committed_at DESC LIMIT 1")[0]
	kept := factRows(t, home, r.Dir)
	var missing []string
	for _, line := range strings.Split(gitOut(t, r.Dir, "ls-tree", "-r", last), "\n") {
		meta, p, _ := strings.Cut(line, "\t")
		if f := strings.Fields(meta); len(f) == 3 && walk.SourceFile(p) &&
			!slices.ContainsFunc(kept, func(k string) bool { return strings.HasPrefix(k, f[2]+" "+lang.LanguageOf(p)+" ") }) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the facts of %v at %.8s, the last commit mined, are not kept (kept %q)", missing, last, kept)
	}
}

// A run whose new commits the filter all rejects builds nothing: it
// neither reads nor rewrites the facts kept, and the next run that builds
// uses them, parsing only what they lack.
func TestARunThatBuildsNothingLeavesTheFactsKept(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("app/a.py", "def a():\n    return 1\n")
	r.Write("app/b.py", "def b():\n    return 2\n")
	r.Commit("Add the a and b functions")
	r.Write("app/a.py", "def a(x=1):\n    return x\n")
	r.Commit("Let the a function take its value")
	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	before := factRows(t, home, r.Dir)
	if len(before) != 2 {
		t.Fatalf("kept %q, want the facts of a.py and b.py", before)
	}

	r.Write("app/b.py", "def b():\n    return 3\n")
	r.CommitAs("dependabot[bot] <support@github.com>", "Bump b from 2 to 3")
	if res := mine(t, home, testOptions(), r.Dir).Repos[0]; res.Seen != 1 || res.Verified != 0 || res.BlobsLoaded != 0 {
		t.Fatalf("the bot's commit: seen %d, verified %d, loaded %d; want it seen, rejected, nothing loaded", res.Seen, res.Verified, res.BlobsLoaded)
	}
	if got := factRows(t, home, r.Dir); !equalLines(got, before) {
		t.Errorf("after a run that built nothing: kept %q, want %q", got, before)
	}

	r.Write("app/a.py", "def a(x=1, y=2):\n    return x + y\n")
	r.Commit("Let the a function add a second value")
	res := mine(t, home, testOptions(), r.Dir).Repos[0]
	if res.Verified != 1 || res.BlobsLoaded != 2 || res.BlobsParsed != 2 {
		t.Errorf("the next run: verified %d, loaded %d, parsed %d; want 1, a.py's and b.py's facts loaded, b.py's new blob and a.py's parsed",
			res.Verified, res.BlobsLoaded, res.BlobsParsed)
	}
}
