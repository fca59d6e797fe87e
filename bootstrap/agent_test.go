package bootstrap

import (
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cra-dev/cra/kb/schema"
)

func TestAgentRef(t *testing.T) {
	for name, want := range map[string]bool{
		"refs/heads/cra/solve-1-abc":             true,
		"refs/heads/cra/scratch-x":               true,
		"refs/remotes/origin/cra/solve-1":        true,
		"refs/remotes/fork/cra/solve-1":          true,
		"refs/heads/main":                        false,
		"refs/heads/crafty":                      false,
		"refs/heads/feature/cra/x":               false,
		"refs/remotes/cra/main":                  false, // a remote named cra
		"refs/remotes/origin/craft":              false,
		"refs/tags/cra/v1":                       false, // tags are the user's
		"HEAD":                                   false,
		"refs/remotes/origin/feature/cra/x":      false,
		"refs/heads/" + schema.AgentBranchPrefix: true,
	} {
		if got := agentRef(plumbing.ReferenceName(name)); got != want {
			t.Errorf("agentRef(%s) = %v, want %v", name, got, want)
		}
	}
}

// cra never mines what it wrote itself: a commit only a cra/* branch
// reaches is not walked at all, and a commit cra authored that was merged
// into a user's branch is recorded as agent_commit, not mined.
func TestBootstrapNeverMinesCrasOwnCommits(t *testing.T) {
	t.Parallel()
	r, c := project(t)
	agent := schema.AgentName + " <" + schema.AgentEmail + ">"

	r.Git("checkout", "-q", "-b", "cra/solve-x")
	r.Write("app/util.py", "def slugify(text):\n    return text.strip().lower().replace(\" \", \"_\")\n")
	onlyBranch := r.CommitAs(agent, "Use underscores in slugify for file names")
	r.Git("checkout", "-q", "main")

	r.Git("checkout", "-q", "-b", "cra/solve-y")
	r.Write("app/util.py", "def slugify(text):\n    return text.strip().lower().replace(\" \", \"+\")\n")
	merged := r.CommitAs(agent, "Use plus signs in slugify for query strings")
	r.Git("checkout", "-q", "main")
	r.Merge("cra/solve-y", "Merge the slugify change cra made")
	r.Write("app/api.py", apiV1+"\ndef health():\n    return \"ok\"\n")
	human := r.Commit("Add a health endpoint to the API module")

	// A remote's copy of a cra branch is cra's too.
	r.Git("update-ref", "refs/remotes/origin/cra/solve-x", onlyBranch)

	home := newHome(t)
	sum := mine(t, home, testOptions(), r.Dir)
	got := outcomes(t, home)
	if o, ok := got[onlyBranch]; ok {
		t.Errorf("the commit only cra/solve-x reaches was walked (outcome %s); want it never seen", o)
	}
	if got[merged] != ReasonAgent {
		t.Errorf("cra's commit merged into main: outcome %q, want %s", got[merged], ReasonAgent)
	}
	if got[human] != OutcomeVerified || got[c["default"]] != OutcomeVerified {
		t.Errorf("the human commits: %q and %q, want both verified", got[human], got[c["default"]])
	}
	if n := sum.Repos[0].Outcomes[ReasonAgent]; n != 1 {
		t.Errorf("run outcomes %v: want one %s", sum.Repos[0].Outcomes, ReasonAgent)
	}
	i := slices.IndexFunc(sum.Steps, func(s FunnelStep) bool { return s.Step == ReasonAgent })
	if i < 0 || sum.Steps[i].Rejected != 1 || i == 0 || sum.Steps[i-1].Step != ReasonBot {
		t.Errorf("funnel %+v: want %s rejecting 1, right after %s", sum.Steps, ReasonAgent, ReasonBot)
	}
	if rows := rawRows(t, home, "SELECT commits FROM bootstrap_funnel WHERE outcome = ?", ReasonAgent); !slices.Equal(rows, []string{"1"}) {
		t.Errorf("raw.bootstrap_funnel agent_commit rows %v, want [1]", rows)
	}
	for _, id := range []string{onlyBranch, merged} {
		if rows := rawRows(t, home, "SELECT id FROM synthetic_tasks WHERE commit = ?", id); len(rows) != 0 {
			t.Errorf("cra's commit %.8s became task %v", id, rows)
		}
	}
}
