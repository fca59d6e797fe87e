package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/fakellm"
)

const validMeta = `{"purpose": "Keeps values", "module": "app", "domain": "storage", "concepts": ["cache"], "public_api_surface": ["Store"], "complexity_notes": ""}`

func TestEnrichCommand(t *testing.T) {
	srv := fakellm.New(t)
	var mu sync.Mutex
	asked := map[string]int{}
	healthy := false
	srv.SetDefault(func(req fakellm.Request) fakellm.Reply {
		prompt := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		defer mu.Unlock()
		for _, f := range []string{"pkg/main.py", "pkg/util.py", "pkg/worker.py"} {
			if strings.Contains(prompt, "File "+f+" ") {
				asked[f]++
				switch {
				case healthy:
				case f == "pkg/util.py" && asked[f] == 1:
					return fakellm.Reply{Text: "Sure! Here is what the file does."} // malformed: asked again
				case f == "pkg/worker.py":
					return fakellm.Reply{Status: 400, Error: "context length exceeded"}
				}
			}
		}
		return fakellm.Reply{Text: validMeta}
	})
	home := modelHome(t, srv.OllamaURL())
	r := clitest.SmallRepo(t)
	r.Write("pkg/worker.py", "def work():\n    return 1\n")
	r.Commit("Add the worker")
	if res := cra(t, home, "", "enrich", r.Dir); res.code != exitUsage || !strings.Contains(res.stderr, "cra index") {
		t.Fatalf("not indexed: exit %d, %q", res.code, res.stderr)
	}
	mustRun(t, home, "index", r.Dir)

	type summary struct {
		Files, Skipped, Enriched, Retried, Failed, Promoted int
		Errors                                              []string
	}
	run := func(args ...string) (summary, int) {
		res := cra(t, home, "", append([]string{"--json", "enrich", "--jobs", "2"}, args...)...)
		var s summary
		if err := json.Unmarshal([]byte(res.stdout), &s); err != nil {
			t.Fatalf("%v: %s %s", err, res.stdout, res.stderr)
		}
		return s, res.code
	}
	first, code := run(r.Dir)
	if code != exitFailures || first.Files != 3 || first.Enriched != 2 || first.Retried != 1 || first.Failed != 1 ||
		len(first.Errors) != 1 || !strings.Contains(first.Errors[0], "pkg/worker.py") {
		t.Fatalf("first run: exit %d, %+v", code, first)
	}
	rows := mustRun(t, home, "sql", "--format", "csv", `SELECT file_path, valid, error IS NOT NULL AS failed FROM raw.enrichment_outputs ORDER BY 1`)
	if rows != "file_path,valid,failed\npkg/main.py,true,false\npkg/util.py,true,false\npkg/worker.py,false,true\n" {
		t.Errorf("enrichment_outputs:\n%s", rows)
	}
	if calls := mustRun(t, home, "sql", "--format", "csv", `SELECT count(*) FROM raw.retrieval_llm_calls WHERE call_type = 'enrichment'`); calls != "count_star()\n4\n" {
		t.Errorf("logged calls: %q, want 4 (one retry)", calls)
	}

	mu.Lock()
	healthy = true
	mu.Unlock()
	before := srv.Calls()
	second, code := run(r.Dir)
	if code != exitOK || second.Skipped != 2 || second.Enriched != 1 || srv.Calls()-before != 1 {
		t.Errorf("second run: exit %d, %+v, %d calls; want only the failed file asked again", code, second, srv.Calls()-before)
	}
	before = srv.Calls()
	third, code := run(r.Dir, "--promote")
	if code != exitOK || third.Skipped != 3 || srv.Calls() != before || third.Promoted != 3 {
		t.Errorf("resumed run: exit %d, %+v, %d new calls; want no call and 3 promoted", code, third, srv.Calls()-before)
	}
	meta := mustRun(t, home, "sql", "--format", "csv", `SELECT count(*), min(purpose) FROM curated.file_metadata`)
	if meta != "count_star(),min(purpose)\n3,Keeps values\n" {
		t.Errorf("file_metadata: %q", meta)
	}
}

// While cra enrich waits on a slow model, the raw store is free: a `cra
// sql` in another process reads it (before, enrich held it for its whole
// run and every reader was refused).
func TestSQLReadsWhileEnrichWaitsOnTheModel(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetDefault(func(fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Text: validMeta, Delay: 700 * time.Millisecond}
	})
	home := modelHome(t, srv.OllamaURL())
	r := clitest.SmallRepo(t)
	mustRun(t, home, "index", r.Dir)
	done := make(chan result)
	go func() { done <- cra(t, home, "", "enrich", "--jobs", "1", r.Dir) }()
	srv.WaitForCalls(t, 1, 30*time.Second)
	var read result
	for range 5 { // the store is held for a moment after each write
		read = craProcesses(t, []string{"--home", home, "sql", "--format", "csv", "select count(*) from raw.retrieval_llm_calls"})[0]
		if read.code == exitOK {
			break
		}
		time.Sleep(150 * time.Millisecond)
	}
	if read.code != exitOK {
		t.Errorf("cra sql during enrich: exit %d %s", read.code, read.stderr)
	}
	if res := <-done; res.code != exitOK {
		t.Errorf("enrich: exit %d %s", res.code, res.stderr)
	}
}
