package bootstrap

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/golden"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

const storeV1 = `class Store:
    """A key-value store."""

    def __init__(self):
        self.items = {}

    def get(self, key):
        return self.items.get(key)

    def put(self, key, value):
        self.items[key] = value


def make_store():
    return Store()
`

const apiV1 = `from app.store import make_store


def handler(key):
    store = make_store()
    return store.get(key)
`

const utilV1 = `def slugify(text):
    return text.lower().replace(" ", "-")
`

// project builds a small Python project whose history has one commit of
// each kind the funnel tells apart, on two branches. It returns the repo
// and its commits by name.
func project(t testing.TB) (*gittest.Repo, map[string]string) {
	r := gittest.New(t)
	c := map[string]string{}
	r.Write("app/__init__.py", "")
	r.Write("app/store.py", storeV1)
	r.Write("app/api.py", apiV1)
	r.Write("app/util.py", utilV1)
	c["root"] = r.Commit("Create the app package with a store, an API handler and helpers")

	r.Write("app/store.py", strings.Replace(storeV1, `    def get(self, key):
        return self.items.get(key)`, `    def get(self, key, default=None):
        return self.items.get(key, default)`, 1))
	r.Write("app/api.py", strings.Replace(apiV1, "return store.get(key)", "return store.get(key, default=\"\")", 1))
	c["default"] = r.Commit("Let Store.get return a default value for missing keys\n\nCallers no longer need to check for None.\n\nSigned-off-by: Ada Tester <ada@example.com>")

	r.Git("checkout", "-q", "-b", "feature")
	r.Write("app/util.py", "def slugify(text):\n    return text.strip().lower().replace(\" \", \"-\")\n")
	c["branch"] = r.Commit("Make slugify strip surrounding whitespace first")
	r.Git("checkout", "-q", "main")

	r.Write("requirements.txt", "requests==2.0\n")
	c["bot"] = r.CommitAs("dependabot[bot] <support@github.com>", "Bump requests from 1.0 to 2.0 in the python group")
	r.Write("app/api.py", apiV1+"\n# TODO: pagination\n")
	c["wip"] = r.Commit("wip")
	c["merge"] = r.Merge("feature", "Merge branch 'feature'")

	store2 := strings.Replace(storeV1, "make_store", "new_store", 1)
	r.Write("app/store.py", strings.Replace(store2, `    def get(self, key):
        return self.items.get(key)`, `    def get(self, key, default=None):
        return self.items.get(key, default)`, 1))
	api2 := strings.ReplaceAll(apiV1, "make_store", "new_store")
	r.Write("app/api.py", strings.Replace(api2, "return store.get(key)", "return store.get(key, default=\"\")", 1))
	c["rename"] = r.Commit("Rename make_store to new_store in the store module and its callers")

	r.Write("app/cache.py", "from app.store import new_store\n\n\nclass Cache:\n    def __init__(self):\n        self.store = new_store()\n")
	c["create"] = r.Commit("Add a Cache class backed by the store module")

	r.Remove("app/util.py")
	r.Write("app/text.py", utilV1)
	c["move"] = r.Commit("Move slugify from app/util.py into the text helpers module")

	r.Remove("app/cache.py")
	c["delete"] = r.Commit("Remove the Cache class nobody uses any more")

	r.WriteBytes("docs/logo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	r.Write("app/api.py", api2+"\nLOGO = \"docs/logo.png\"\n")
	c["binary"] = r.Commit("Serve the project logo from the API handler module")
	return r, c
}

func TestBootstrapOutcomes(t *testing.T) {
	t.Parallel()
	r, c := project(t)
	home := newHome(t)
	sum := mine(t, home, testOptions(), r.Dir)
	if res := sum.Repos[0]; res.Status != kb.StatusOK || res.Seen != len(c) {
		t.Fatalf("repo: status %s (%s), seen %d; want ok and %d commits", res.Status, res.Error, res.Seen, len(c))
	}
	got := outcomes(t, home)
	want := map[string]string{
		"root": OutcomeRootCommit, "default": OutcomeVerified, "branch": OutcomeVerified,
		"bot": "bot", "wip": "message_short", "merge": "merge",
		"rename": OutcomeVerified, "create": OutcomeVerified, "move": OutcomeVerified,
		"delete": OutcomeVerified, "binary": "binary",
	}
	for name, o := range want {
		if got[c[name]] != o {
			t.Errorf("%s commit: outcome %q, want %q", name, got[c[name]], o)
		}
	}
	if sum.Verified != 6 || sum.Total[OutcomeVerified] != 6 {
		t.Errorf("verified %d (total %v), want 6", sum.Verified, sum.Total)
	}
}

func TestBootstrapGroundTruth(t *testing.T) {
	t.Parallel()
	r, c := project(t)
	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)

	t.Run("task", func(t *testing.T) {
		rows := rawRows(t, home, "SELECT task, parent FROM synthetic_tasks WHERE commit = ?", c["default"])
		if len(rows) != 1 {
			t.Fatalf("%d tasks for the commit", len(rows))
		}
		task, parent, _ := strings.Cut(rows[0], "\t")
		if strings.Contains(task, "Signed-off-by") || !strings.HasPrefix(task, "Let Store.get return a default") {
			t.Errorf("task %q: want the message without its trailers", task)
		}
		if parent != c["root"] {
			t.Errorf("parent %s, want %s", parent, c["root"])
		}
	})

	t.Run("scope", func(t *testing.T) {
		var s schema.ScopeTarget
		targetOf(t, home, c["default"], schema.StageScope, &s)
		if !s.Reached || !slices.Equal(s.Touched, []string{"app/api.py", "app/store.py"}) {
			t.Errorf("touched %v reached %v; want both files, reached", s.Touched, s.Reached)
		}
		byPath := map[string]schema.ScopeCandidate{}
		for _, cand := range s.Candidates {
			byPath[cand.Path] = cand
		}
		if st := byPath["app/store.py"]; st.Tier != schema.TierSeed || !st.Relevant || !slices.Contains(st.Symbols, "Store") {
			t.Errorf("store.py: %+v; want a relevant seed (the message names Store.get) listing Store", st)
		}
		if api := byPath["app/api.py"]; api.Tier != schema.TierDependency || !api.Relevant || api.Reason != "imports app/store.py" {
			t.Errorf("api.py: %+v; want a relevant tier-2 candidate that imports the seed", api)
		}
		if u, ok := byPath["app/util.py"]; ok {
			t.Errorf("util.py is a candidate (%+v): nothing links it to the seeds", u)
		}
	})

	t.Run("precision", func(t *testing.T) {
		var p schema.PrecisionTarget
		targetOf(t, home, c["default"], schema.StagePrecision, &p)
		tiers := map[string]string{}
		for _, s := range p.Symbols {
			tiers[s.File+":"+s.QualifiedName] = s.Tier
		}
		want := map[string]string{
			"app/store.py:Store.get":      schema.TierPrimary,
			"app/api.py:handler":          schema.TierPrimary,
			"app/store.py:Store.put":      schema.TierExcluded,
			"app/store.py:Store.__init__": schema.TierExcluded,
			"app/store.py:make_store":     schema.TierSupporting, // called by handler
			"app/store.py:Store":          schema.TierExcluded,
		}
		for k, w := range want {
			if tiers[k] != w {
				t.Errorf("%s: tier %q, want %q (all: %v)", k, tiers[k], w, tiers)
			}
		}
	})

	t.Run("plan", func(t *testing.T) {
		var p schema.PlanArtifact
		targetOf(t, home, c["rename"], schema.StagePlan, &p)
		if !slices.Equal(p.ExecutionOrder, []string{"app/store.py", "app/api.py"}) {
			t.Errorf("execution order %v: the imported module comes first", p.ExecutionOrder)
		}
		changes := map[string]schema.PlanChange{}
		for _, f := range p.AffectedFiles {
			if f.Role != "modify" {
				t.Errorf("%s: role %s, want modify", f.Path, f.Role)
			}
			for _, ch := range f.Changes {
				changes[f.Path+":"+ch.Symbol] = ch
			}
		}
		if ch := changes["app/store.py:new_store"]; ch.Action != "rename" {
			t.Errorf("new_store: %+v, want a rename (changes: %v)", ch, changes)
		}
		if ch := changes["app/api.py:<module>"]; len(changes) != 3 || ch.Action != "modify" {
			t.Errorf("changes %v: want the rename, the caller and api.py's import line only (Store.get changed in an earlier commit)", changes)
		}
		// store.get on a local of unknown type does not resolve: only the
		// call of new_store is an edge.
		if ch := changes["app/api.py:handler"]; ch.Action != "modify" || !slices.Equal(ch.DependsOn, []string{"app/store.py:new_store"}) {
			t.Errorf("handler: %+v, want modify depending on new_store", ch)
		}
		if ch := changes["app/store.py:new_store"]; !slices.Contains(ch.DependedBy, "app/api.py:handler") {
			t.Errorf("new_store depended_by %v, want handler", ch.DependedBy)
		}
		if p.TaskSummary != "Rename make_store to new_store in the store module and its callers" {
			t.Errorf("task summary %q", p.TaskSummary)
		}

		var created schema.PlanArtifact
		targetOf(t, home, c["create"], schema.StagePlan, &created)
		if len(created.AffectedFiles) != 1 || created.AffectedFiles[0].Role != "create" ||
			len(created.AffectedFiles[0].Changes) != 1 || created.AffectedFiles[0].Changes[0].Symbol != "Cache" {
			t.Errorf("create plan %+v: want app/cache.py created with Cache added", created.AffectedFiles)
		}
	})

	t.Run("file moved and deleted", func(t *testing.T) {
		var p schema.PlanArtifact
		targetOf(t, home, c["move"], schema.StagePlan, &p)
		roles := map[string]string{}
		for _, f := range p.AffectedFiles {
			roles[f.Path] = f.Role
		}
		if roles["app/util.py"] != "delete" || roles["app/text.py"] != "create" ||
			!slices.Equal(p.ExecutionOrder, []string{"app/text.py", "app/util.py"}) {
			t.Errorf("roles %v, order %v: want text.py created first, util.py deleted last", roles, p.ExecutionOrder)
		}
		var s schema.ScopeTarget
		targetOf(t, home, c["move"], schema.StageScope, &s)
		if !s.Reached || len(s.Candidates) == 0 || s.Candidates[0].Path != "app/util.py" || s.Candidates[0].Tier != schema.TierSeed ||
			!slices.Equal(s.Created, []string{"app/text.py"}) {
			t.Errorf("scope %+v: want util.py seeded by its path in the message and text.py created", s)
		}
		var im schema.ImplementTarget
		targetOf(t, home, c["delete"], schema.StageImplement, &im)
		if len(im.Files) != 1 || !im.Files[0].Deleted || len(im.Edits) != 1 || im.Edits[0].Replace != "" {
			t.Errorf("delete: %+v; want one deleted file and one edit emptying it", im)
		}
	})

	t.Run("implement", func(t *testing.T) {
		var im schema.ImplementTarget
		targetOf(t, home, c["default"], schema.StageImplement, &im)
		if len(im.Files) != 2 || im.Files[1].Path != "app/store.py" || im.Files[1].Content != storeV1 {
			t.Fatalf("files %+v: want both files at the parent state", im.Files)
		}
		for _, e := range im.Edits {
			if e.Search == im.Files[0].Content || e.Search == storeV1 {
				t.Errorf("edit of %s searches the whole file: edits should be local", e.File)
			}
		}
	})

	t.Run("side branch built against its own parent", func(t *testing.T) {
		var im schema.ImplementTarget
		targetOf(t, home, c["branch"], schema.StageImplement, &im)
		if len(im.Files) != 1 || im.Files[0].Content != utilV1 {
			t.Errorf("files %+v: want util.py as it was on the branch's parent", im.Files)
		}
	})
}

// Every stored implement target, applied to the parent's files as git has
// them, gives the child's files as git has them.
func TestBootstrapImplementRoundTrips(t *testing.T) {
	t.Parallel()
	r, _ := project(t)
	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	rows := rawRows(t, home, "SELECT t.commit, t.parent FROM synthetic_tasks t ORDER BY 1")
	if len(rows) == 0 {
		t.Fatal("no tasks")
	}
	for _, row := range rows {
		commit, parent, _ := strings.Cut(row, "\t")
		var im schema.ImplementTarget
		targetOf(t, home, commit, schema.StageImplement, &im)
		for _, f := range im.Files {
			var edits []schema.Edit
			for _, e := range im.Edits {
				if e.File == f.Path {
					edits = append(edits, e)
				}
			}
			before := ""
			if !f.Created {
				before = r.Git("show", parent+":"+f.Path) + "\n"
			}
			if before != f.Content {
				t.Errorf("%.8s %s: stored parent content differs from git's", commit, f.Path)
			}
			got, err := schema.ApplyEdits([]byte(before), edits)
			if err != nil {
				t.Errorf("%.8s %s: %v", commit, f.Path, err)
				continue
			}
			want := ""
			if !f.Deleted {
				want = r.Git("show", commit+":"+f.Path) + "\n"
			}
			if string(got) != want {
				t.Errorf("%.8s %s: edits give %q, git has %q", commit, f.Path, got, want)
			}
		}
	}
}

// The ground truth of hand-checked commits, all four stages, pinned in
// golden files (go test ./bootstrap -update rewrites them after a change
// that is meant).
func TestBootstrapGroundTruthGolden(t *testing.T) {
	t.Parallel()
	r, c := project(t)
	home := newHome(t)
	mine(t, home, testOptions(), r.Dir)
	for _, name := range []string{"default", "branch", "rename", "create", "move", "delete"} {
		t.Run(name, func(t *testing.T) {
			doc := map[string]json.RawMessage{}
			for _, stage := range schema.SyntheticStages {
				var v any
				targetOf(t, home, c[name], stage, &v)
				js, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				doc[stage] = js
			}
			out, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, filepath.Join("testdata", "groundtruth", name+".json"), append(out, '\n'))
		})
	}
}
