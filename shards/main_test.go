package shards

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/bootstrap"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
)

// Environment of the child a kill test starts: it exports CRA_TEST_EXPORT
// (home) as shard CRA_TEST_SHARD into CRA_TEST_DIR, pausing after each
// file it renames into place.
const (
	envExport = "CRA_TEST_EXPORT"
	envDir    = "CRA_TEST_DIR"
	envShard  = "CRA_TEST_SHARD"
	// envImport: the child imports CRA_TEST_DIR into this home, in chunks
	// of 3 rows, touching CRA_TEST_MARK after each chunk it commits.
	envImport = "CRA_TEST_IMPORT"
	envMark   = "CRA_TEST_MARK"
)

var fixtureRoot string

func TestMain(m *testing.M) {
	if home := os.Getenv(envExport); home != "" {
		testHook = func(point string) {
			if point == "placed" {
				time.Sleep(300 * time.Millisecond)
			}
		}
		s, err := Parse(os.Getenv(envShard))
		if err == nil {
			_, err = Export(context.Background(), home, os.Getenv(envDir), s, ExportOptions{})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if home := os.Getenv(envImport); home != "" {
		testHook = func(point string) {
			if point == "chunk" {
				os.WriteFile(os.Getenv(envMark), nil, 0o644) //nolint:errcheck // the parent waits for it
				time.Sleep(20 * time.Millisecond)
			}
		}
		if _, err := Import(context.Background(), home, os.Getenv(envDir), ImportOptions{ChunkRows: 3}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "cra-shards-test-")
	if err != nil {
		panic(err)
	}
	fixtureRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is built once per test binary: the repositories, the home that
// mined them all, and for each N the homes that mined shard K of N.
var fixture struct {
	mu     sync.Mutex
	repos  []string
	single string
	homes  map[int][]string
}

const fixtureRepos = 6

// repos are six small generated repositories (a dozen commits each, one
// merged branch of two commits), half with a remote (one with
// credentials in its URL), half keyed by their folder's name.
func repos(t *testing.T) []string {
	t.Helper()
	fixture.mu.Lock()
	defer fixture.mu.Unlock()
	if fixture.repos != nil {
		return fixture.repos
	}
	for i := range fixtureRepos {
		dir := filepath.Join(fixtureRoot, "clones", fmt.Sprintf("lib%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r := gittest.Open(t, dir)
		r.Git("init", "-q", "-b", "main")
		r.Git("config", "core.autocrlf", "false")
		switch i % 3 {
		case 0:
			r.Git("remote", "add", "origin", fmt.Sprintf("https://bot:secret@example.com/org/lib%d.git", i))
		case 1:
			r.Git("remote", "add", "origin", fmt.Sprintf("https://example.com/org/lib%d", i))
		}
		buildHistory(r, i)
		fixture.repos = append(fixture.repos, dir)
	}
	return fixture.repos
}

func buildHistory(r *gittest.Repo, seed int) {
	pkg := fmt.Sprintf("lib%d", seed)
	body := func(name string, v int) string {
		return fmt.Sprintf("def %s(value):\n    return value + %d\n\n\ndef %s_twice(value):\n    return %s(%s(value))\n", name, v, name, name, name)
	}
	names := []string{"parse", "render", "store", "fetch"}
	for j, n := range names {
		r.Write(fmt.Sprintf("%s/%s.py", pkg, n), body(n, j))
	}
	r.Write(pkg+"/api.py", fmt.Sprintf("from %s.parse import parse\nfrom %s.render import render\n\n\ndef handle(value):\n    return render(parse(value))\n", pkg, pkg))
	r.Commit("Create the " + pkg + " package with parse, render, store and fetch")
	for c := range 10 {
		n := names[(c+seed)%len(names)]
		r.Write(fmt.Sprintf("%s/%s.py", pkg, n), body(n, 10*seed+c+7))
		r.Commit(fmt.Sprintf("Make %s add %d to the value it is given", n, 10*seed+c+7))
	}
	r.Git("checkout", "-q", "-b", "feature")
	r.Write(pkg+"/api.py", fmt.Sprintf("from %s.parse import parse\nfrom %s.render import render\n\n\ndef handle(value, twice=False):\n    if twice:\n        return render(parse(parse(value)))\n    return render(parse(value))\n", pkg, pkg))
	r.Commit("Let handle parse the value twice when asked to")
	r.Write(pkg+"/store.py", body("store", 99)+"\n\ndef clear():\n    return None\n")
	r.Commit("Add a clear function next to store for the handler")
	r.Git("checkout", "-q", "main")
	r.Write(pkg+"/fetch.py", body("fetch", 42))
	r.Commit("Make fetch add forty two to the value it is given")
	r.Merge("feature", "Merge pull request #3 from me/feature\n\nParse twice in handle")
}

func newHome(t *testing.T, name string) string {
	t.Helper()
	home := filepath.Join(fixtureRoot, "homes", name)
	storetest.HomeAt(t, home)
	return home
}

func mine(t *testing.T, home string, paths []string) {
	t.Helper()
	if len(paths) == 0 {
		return
	}
	_, err := bootstrap.Run(context.Background(), home, paths, bootstrap.Options{Jobs: 2, Filter: config.Default().Bootstrap, Wait: 30 * time.Second})
	if err != nil {
		t.Fatalf("bootstrap %v: %v", paths, err)
	}
}

// singleHome is one home that mined every repository: what the union of
// shards must equal.
func singleHome(t *testing.T) string {
	t.Helper()
	all := repos(t)
	fixture.mu.Lock()
	defer fixture.mu.Unlock()
	if fixture.single == "" {
		h := newHome(t, "single")
		mine(t, h, all)
		fixture.single = h
	}
	return fixture.single
}

// shardHomes are the homes that mined shard K of n, K = 0..n-1.
func shardHomes(t *testing.T, n int) []string {
	t.Helper()
	all := repos(t)
	fixture.mu.Lock()
	defer fixture.mu.Unlock()
	if fixture.homes == nil {
		fixture.homes = map[int][]string{}
	}
	if hs := fixture.homes[n]; hs != nil {
		return hs
	}
	var hs []string
	for k := range n {
		h := newHome(t, "n"+strconv.Itoa(n)+"k"+strconv.Itoa(k))
		sel := Select(context.Background(), all, Shard{K: k, N: n})
		t.Logf("shard %d/%d: %d of %d repositories", k, n, len(sel.Kept), sel.Of)
		mine(t, h, sel.Kept)
		hs = append(hs, h)
	}
	fixture.homes[n] = hs
	return hs
}
