package bootstrap

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cra-dev/cra/ingest/lang"
)

// The fact cache's bound is in estimated bytes: the estimate must be what
// the facts hold on the heap, or a cache of 64 MB holds twice that. Facts
// of many Python files are kept and the heap they hold (after a GC) is
// compared with the sum of their estimates. Not parallel: it reads the
// heap's size.
func TestFactsEstimateIsWhatTheHeapHolds(t *testing.T) {
	set := lang.NewSet()
	defer set.Close()
	sources := make([][]byte, 200)
	for i := range sources {
		sources[i] = pythonModule(i, 40)
	}
	kept := make([]*facts, len(sources))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var estimate int64
	for i, src := range sources {
		kept[i] = extract(set, fmt.Sprintf("pkg/m%d.py", i), src)
		estimate += kept[i].estimate()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(kept)
	t.Logf("facts of %d files: estimated %d KB, heap grew by %d KB", len(kept), estimate>>10, held>>10)
	if ratio := float64(held) / float64(estimate); ratio < 0.85 || ratio > 1.15 {
		t.Errorf("the heap holds %.2f× the estimate (%d against %d bytes): the cache bound would be off by as much", ratio, held, estimate)
	}
}

// pythonModule is a module of n functions with docstrings, imports,
// calls and attribute reads: what replay's facts are made of.
func pythonModule(seed, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"Module %d: helpers for sessions and adapters.\"\"\"\nimport os\nfrom .utils import parse_header_links, to_key_val_list\nfrom . import models as m%d\n\n", seed, seed)
	for i := range n {
		fmt.Fprintf(&b, "class Handler%d_%d(object):\n    \"\"\"Handles request %d and retries connectionErrors.\"\"\"\n\n", seed, i, i)
		fmt.Fprintf(&b, "    def send_request_%d(self, prepared, timeout=None, verify=True):\n", i)
		fmt.Fprintf(&b, "        \"\"\"Sends a prepared request through the adapter pool %d.\"\"\"\n", i)
		fmt.Fprintf(&b, "        headers = to_key_val_list(prepared.headers)\n        links = parse_header_links(headers.get('link_%d'))\n", i)
		fmt.Fprintf(&b, "        if self.max_retries > %d:\n            return m%d.Response(links, os.environ.get('HOME'))\n        return self.fallback(prepared, links)\n\n", i, seed)
	}
	return []byte(b.String())
}

// A path's lexical words are reused while its facts are the same and
// made again when the path holds another blob's facts.
func TestDocTextsFollowTheFacts(t *testing.T) {
	d := docTexts{}
	a := &facts{terms: []string{"alpha"}}
	b := &facts{terms: []string{"beta"}}
	first := d.of("pkg/mod.py", a)
	if got := fmt.Sprint(first); !strings.HasSuffix(got, "alpha]") || !strings.Contains(got, "mod") {
		t.Fatalf("words of pkg/mod.py with a's facts = %s", got)
	}
	if again := d.of("pkg/mod.py", a); &again[0] != &first[0] {
		t.Error("the same facts made the words again")
	}
	if got := fmt.Sprint(d.of("pkg/mod.py", b)); !strings.HasSuffix(got, "beta]") || strings.Contains(got, "alpha") {
		t.Errorf("words after the path changed blob = %s, want b's", got)
	}
	if got := fmt.Sprint(docTexts(nil).of("x.py", a)); !strings.HasSuffix(got, "alpha]") {
		t.Errorf("words without a cache = %s", got)
	}
}
