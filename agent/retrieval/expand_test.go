package retrieval

import (
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb/schema"
)

// memGraph is a repository state in memory.
type memGraph struct {
	files map[string][]string // path → top-level symbols
	edges []Edge
	cochg map[string]map[string]int
}

func (g memGraph) FilesNamed(tok string) []string {
	if _, ok := g.files[tok]; ok {
		return []string{tok}
	}
	var out []string
	for p := range g.files {
		if strings.HasSuffix(p, "/"+tok) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func (g memGraph) Definers(name string, limit int) []string {
	var out []string
	for _, p := range g.paths() {
		if slices.Contains(g.files[p], name) {
			out = append(out, p)
		}
	}
	return out
}

func (g memGraph) ModulesNamed(name string) []string {
	var out []string
	for _, p := range g.paths() {
		if strings.TrimSuffix(path.Base(p), path.Ext(p)) == name {
			out = append(out, p)
		}
	}
	return out
}

func (g memGraph) paths() []string {
	var out []string
	for p := range g.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (g memGraph) Dependencies() []Edge              { return g.edges }
func (g memGraph) CoChanged(p string) map[string]int { return g.cochg[p] }
func (g memGraph) Exists(p string) bool              { _, ok := g.files[p]; return ok }
func (g memGraph) TopLevelSymbols(p string) []string { return g.files[p] }
func (g memGraph) Documents() []Document {
	var out []Document
	for _, p := range g.paths() {
		out = append(out, Document{Path: p, Text: Terms(append([]string{p}, g.files[p]...)...)})
	}
	return out
}

func TestExpandTiers(t *testing.T) {
	g := memGraph{
		files: map[string][]string{
			"app/store.py": {"Store", "make_store"},
			"app/api.py":   {"handler"},
			"app/cli.py":   {"main"},
			"app/util.py":  {"slugify", "a", "b", "c"},
			"app/cache.py": {"Cache"},
			"docs/conf.py": {},
		},
		edges: []Edge{
			{From: "app/api.py", To: "app/store.py"}, {From: "app/cli.py", To: "app/store.py"},
			{From: "app/store.py", To: "app/util.py"}, {From: "app/cli.py", To: "app/api.py"},
		},
		cochg: map[string]map[string]int{
			"app/store.py": {"app/cli.py": 3, "app/cache.py": 2, "docs/conf.py": 1, "app/old.py": 5},
		},
	}
	lim := Limits{Dependencies: 2, CoChanges: 5, Symbols: 2, CoChangeMin: 2}
	got := Expand(g, "Let Store.get return a default value", lim)
	want := []schema.ScopeCandidate{
		{Path: "app/store.py", Tier: schema.TierSeed, Rank: 1, Reason: "defines Store", Symbols: []string{"Store", "make_store"}},
		// Two importers tie on links: the one changed with the seed more often first; the cap keeps two of three.
		{Path: "app/cli.py", Tier: schema.TierDependency, Rank: 1, Reason: "imports app/store.py", Symbols: []string{"main"}},
		{Path: "app/api.py", Tier: schema.TierDependency, Rank: 2, Reason: "imports app/store.py", Symbols: []string{"handler"}},
		// Above the minimum count and still there; cli.py is taken already, old.py is gone, conf.py too rare.
		{Path: "app/cache.py", Tier: schema.TierCoChange, Rank: 1, Reason: "changed with app/store.py in 2 earlier commits", Symbols: []string{"Cache"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand:\n got %+v\nwant %+v", got, want)
	}
}

func TestMentions(t *testing.T) {
	g := memGraph{files: map[string][]string{
		"pkg/util.go": {"Slugify"}, "app/store.py": {"Store"}, "app/views.py": {"render"}, "b/views.py": {"render"},
		"a/forms.py": {}, "b/forms.py": {}, "c/forms.py": {},
	}}
	for _, tc := range []struct {
		text string
		want []Mention
	}{
		{"Fix pkg/util.go for empty input", []Mention{{Files: []string{"pkg/util.go"}, Reason: "named in the message: pkg/util.go"}}},
		{"Make `Slugify` strip spaces", []Mention{{Files: []string{"pkg/util.go"}, Reason: "defines Slugify", Symbol: "Slugify"}}},
		{"Speed up the store module", []Mention{{Files: []string{"app/store.py"}, Reason: "module store"}}},
		{"Render the views faster", []Mention{{Files: []string{"app/views.py", "b/views.py"}, Reason: "module views"}}}, // a plain word: at most two files
		{"Validate the forms first", nil}, // a plain word naming three modules says nothing
		{"Store everything", nil},         // the first word is prose
	} {
		if got := Mentions(tc.text, g); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Mentions(%q) = %+v, want %+v", tc.text, got, tc.want)
		}
	}
}

// Tier 4 adds the files that share the task's rarer words (in their path,
// symbol names or docstrings), best first, after the other tiers, capped;
// words in more than half the files do not count.
func TestExpandLexicalTier(t *testing.T) {
	g := memGraph{files: map[string][]string{
		"pkg/connectionpool.py": {"HTTPConnectionPool", "urlopen"},
		"pkg/sockets_util.py":   {"wrap_socket"},
		"pkg/models.py":         {"Response"},
		"pkg/auth.py":           {"HTTPBasicAuth"},
		"pkg/compat.py":         {},
		"pkg/hooks.py":          {"dispatch_hook"},
	}}
	task := "Retry when the connection pool resets the socket"
	got := Expand(g, task, Limits{Lexical: 2, LexicalMinTerms: 1})
	var paths []string
	for _, c := range got {
		if c.Tier != schema.TierLexical {
			t.Errorf("%s is tier %d: the task names no file", c.Path, c.Tier)
		}
		paths = append(paths, c.Path)
	}
	if !reflect.DeepEqual(paths, []string{"pkg/connectionpool.py", "pkg/sockets_util.py"}) {
		t.Errorf("tier 4 %v: want the pool (two shared words) before the socket helper (one)", paths)
	}
	if len(got) > 0 && (!strings.Contains(got[0].Reason, "connection") || !strings.Contains(got[0].Reason, "pool")) {
		t.Errorf("reason %q does not name the shared words", got[0].Reason)
	}
	if got := Expand(g, task, Limits{Lexical: 1, LexicalMinTerms: 2}); len(got) != 1 || got[0].Path != "pkg/connectionpool.py" {
		t.Errorf("two shared words required, one candidate: %+v", got)
	}
	if got := Expand(g, "Tidy the pkg layout", Limits{Lexical: 5, LexicalMinTerms: 1}); len(got) != 0 {
		t.Errorf("a word in every path (pkg) matched: %+v", got)
	}
}

func TestTerms(t *testing.T) {
	got := Terms("parseHTTPHeader get_netrc_auth pkg/session.py v2Client")
	want := []string{"parse", "http", "header", "netrc", "auth", "pkg", "session", "client"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

// The model's task analysis adds seeds after the task's own mentions, each
// seed saying where it came from; names matching too many files add none.
func TestSeedsMergeMentionsAndTaskAnalysis(t *testing.T) {
	g := memGraph{files: map[string][]string{
		"app/store.py": {"Store"}, "app/api.py": {"handler"}, "app/util.py": {"slugify"},
		"a/x.py": {"run"}, "b/x.py": {"run"}, "c/x.py": {"run"}, "d/x.py": {"run"},
	}}
	got := Seeds("Let Store.get return a default", prompt.TaskAnalysis{
		Files: []string{"app/api.py", "missing.py"}, Symbols: []string{"slugify", "run", "Store"}}, g)
	want := []Mention{
		{Files: []string{"app/store.py"}, Reason: "mention: defines Store", Symbol: "Store"},
		{Files: []string{"app/api.py"}, Reason: "task_analysis: names app/api.py"},
		{Files: []string{"app/util.py"}, Reason: "task_analysis: defines slugify", Symbol: "slugify"},
		{Files: []string{"app/store.py"}, Reason: "task_analysis: defines Store", Symbol: "Store"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Seeds:\n got %+v\nwant %+v", got, want)
	}
	cands := ExpandFrom(g, got, "", Limits{})
	if len(cands) != 3 || cands[0].Reason != "mention: defines Store" || cands[2].Path != "app/util.py" {
		t.Errorf("ExpandFrom: %+v; want each seed once, first reason kept", cands)
	}
}

func TestRefineAddsWhatTheEvidenceNames(t *testing.T) {
	g := memGraph{files: map[string][]string{
		"app/store.py": {"Store"}, "app/api.py": {"handler"}, "app/cache.py": {"Cache", "evict"},
		"tests/test_api.py": {"test_missing"}, "app/keys.py": {"KeyNormalizer"}, "docs/x.py": {},
	}}
	kept := []schema.ScopeCandidate{{Path: "app/store.py"}}
	got, err := Refine(g, kept, schema.RefinementRequest{Reason: "AttributeError in evict",
		MissingFiles: []string{"app/api.py", "app/store.py"}, MissingSymbols: []string{"evict"}, MissingTests: []string{"test_api"},
		ErrorSignatures: []string{"KeyNormalizer raised on an empty key"}})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path+" | "+c.Reason)
	}
	want := []string{
		"app/api.py | refinement: names app/api.py",
		"app/cache.py | refinement: defines evict",
		"tests/test_api.py | refinement: test test_api",
		"app/keys.py | refinement: matches the error: key, normalizer",
	}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("Refine:\n got %q\nwant %q", paths, want)
	}
	if _, err := Refine(g, kept, schema.RefinementRequest{Reason: "needs more context"}); err == nil {
		t.Error("a request without evidence was accepted")
	}
}
