package curate_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/eval"
	"github.com/cra-dev/cra/internal/clitest"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// A held-out repository's tasks are in no train split of any source
// (issue 26, finding 7): not in the dataset cra distill registers, not in
// curate-data's from every source — even for answers distilled before the
// repository was held out, whose stored split said train: curate-data
// splits them by the rule, and distill's next version re-splits them.
func TestHeldOutRepositoryNeverTrainsByAnySource(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers)
	held := gittest.PythonHistory(t)
	home := distillHomeOf(t, srv, "", held)
	shop := gittest.ShopWithMergedBranch(t)
	cli.MustRun(t, home, "bootstrap", shop.Dir)
	heldPath := kb.CanonicalPath(held.Dir)
	// No validation by hash: whatever is in validation is held out.
	clitest.SetConfig(t, home, "[curate]\n", "[curate]\nvalidation_fraction = 0.0\n")
	cli.MustRun(t, home, "distill", "--name", "early", "--stage", "scope")
	if n := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM distill_outcomes WHERE repo_path = ? AND verified AND split = 'train'`,
		heldPath); n[0] == "0" {
		t.Fatal("nothing of the repository was distilled into train before it was held out: the test proves nothing")
	}

	clitest.SetConfig(t, home, "[curate]\n", fmt.Sprintf("[curate]\nholdout_repos = [%q]\n", held.Dir))
	cli.MustRun(t, home, "curate-data", "--name", "all", "--source", "all")
	cli.MustRun(t, home, "curate-data", "--name", "taught", "--source", "distilled", "--validation-only") // early's answers stored in train; all held out now
	cli.MustRun(t, home, "distill", "--stage", "scope")                                                   // a new name, after: its dataset
	cli.MustRun(t, home, "distill", "--name", "early", "--stage", "plan")                                 // an old name's next version
	latest := `WITH v AS (SELECT name, max(version) AS version FROM dataset_versions GROUP BY name)
		SELECT e.dataset || '@' || e.version, e.source, e.split, count(*) FROM training_examples e
		JOIN v ON v.name = e.dataset AND v.version = e.version WHERE e.repo_path = ? GROUP BY ALL ORDER BY ALL`
	rows := storetest.Rows(t, home, kb.Raw, latest, heldPath)
	seen := map[string]bool{}
	for _, r := range rows {
		f := strings.Split(r, "\t")
		if f[2] == kb.SplitTrain {
			t.Errorf("held-out %s in train: %s", held.Dir, r)
		}
		seen[f[0]+" "+f[1]] = true
	}
	for _, want := range []string{"all@1 synthetic", "taught@1 distilled", "distilled@1 distilled", "early@2 distilled"} {
		if !seen[want] {
			t.Errorf("no example of the held-out repository in %s: the test proves nothing (rows %q)", want, rows)
		}
	}
	if n := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM distill_outcomes WHERE repo_path = ? AND split = 'train'`, heldPath); n[0] != "0" {
		t.Errorf("%s answers of the held-out repository stored in train", n[0])
	}
	if n := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM training_examples WHERE dataset = 'all' AND repo_path <> ? AND split = 'train'`,
		heldPath); n[0] == "0" {
		t.Error("the other repository has no train example either")
	}
}

// A merged branch's task and its parts (each a task of its own) land in
// one split — the merge commit's — in curate-data, in cra distill and in
// eval's selection, at a validation fraction where a part's own hash
// would put it in the other split.
func TestMergedBranchAndItsPartsShareOneSplit(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers) // wrong for the shop: every answer rejected, each with its split stored
	m := gittest.ShopWithMergedBranch(t)
	home := distillHomeOf(t, srv, "", m.Repo)
	repo := kb.CanonicalPath(m.Dir)
	h := func(commit string) float64 { return kb.UnitHash(repo, commit) }
	far := slices.MaxFunc(m.Parts, func(a, b string) int {
		return cmp.Compare(math.Abs(h(a)-h(m.Merge)), math.Abs(h(b)-h(m.Merge)))
	})
	v := (h(far) + h(m.Merge)) / 2
	want := kb.SplitTrain
	if h(m.Merge) < v {
		want = kb.SplitValidation
	}
	clitest.SetConfig(t, home, "[curate]\n", fmt.Sprintf("[curate]\nvalidation_fraction = %v\n", v))
	group := append([]string{m.Merge}, m.Parts...)
	if n := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM synthetic_tasks WHERE commit IN (SELECT unnest(?::VARCHAR[]))`, group); n[0] != "4" {
		t.Fatalf("%s of the merge task and its 3 parts mined", n[0])
	}

	curateArgs := []string{"curate-data", "--name", "ds"}
	if want == kb.SplitValidation { // v can be large enough to leave nothing of the shop in train
		curateArgs = append(curateArgs, "--validation-only")
	}
	cli.MustRun(t, home, curateArgs...)
	cli.MustRun(t, home, "distill", "--stage", "plan")
	for _, q := range []string{
		`SELECT commit, split FROM training_examples WHERE dataset = 'ds' AND commit IN (SELECT unnest(?::VARCHAR[]))`,
		`SELECT commit, split FROM distill_outcomes WHERE commit IN (SELECT unnest(?::VARCHAR[]))`,
	} {
		rows := storetest.Rows(t, home, kb.Raw, q+` GROUP BY ALL ORDER BY ALL`, group)
		commits := map[string]bool{}
		for _, r := range rows {
			f := strings.Split(r, "\t")
			commits[f[0]] = true
			if f[1] != want {
				t.Errorf("%.60s: %.8s is in %s, want %s (the merge commit's)", q, f[0], f[1], want)
			}
		}
		if !commits[far] {
			t.Errorf("%.60s: nothing of part %.8s (rows %q)", q, far, rows)
		}
	}

	s, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tasks, err := eval.Select(context.Background(), s.DB, eval.Selection{Split: eval.SplitValidation,
		Rule: kb.NewSplitRule(config.Curate{ValidationFraction: v}, nil), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	picked := 0
	for _, task := range tasks {
		if slices.Contains(group, task.Commit) {
			picked++
		}
	}
	if wantPicked := map[string]int{kb.SplitTrain: 0, kb.SplitValidation: 4}[want]; picked != wantPicked {
		t.Errorf("eval picks %d of the merge task and its parts, want %d", picked, wantPicked)
	}
}

// cra distill re-splits the stored answers of its name when it registers
// a version (an UPDATE of distill_outcomes.split, in the registration's
// transaction). With a repository held out after its answers were stored
// in train, that re-split runs while another process distils under
// another name, a curate-data reads the distilled answers and a `cra sql`
// reads the raw store: each exits 0, no answer or latest version of the
// held-out repository is in train, and each version counts exactly the
// rows it holds, with no example twice.
func TestResplitAlongsideOtherProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs four cra processes")
	}
	srv := fakellm.New(t)
	srv.SetDefault(teacherAnswers)
	held := gittest.PythonHistory(t)
	home := distillHomeOf(t, srv, "", held)
	heldPath := kb.CanonicalPath(held.Dir)
	clitest.TrainAll(t, home)
	cli.MustRun(t, home, "distill", "--name", "early", "--stage", "scope")
	if n := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM distill_outcomes WHERE name = 'early' AND verified AND split = 'train'`); n[0] == "0" {
		t.Fatal("no answer of early stored in train: the re-split has nothing to do")
	}
	clitest.SetConfig(t, home, "validation_fraction = 0.0\n", fmt.Sprintf("validation_fraction = 0.0\nholdout_repos = [%q]\n", held.Dir))

	runs := clitest.Processes(t,
		[]string{"--home", home, "distill", "--name", "early", "--stage", "plan"},
		[]string{"--home", home, "distill", "--name", "other", "--stage", "scope,plan"},
		[]string{"--home", home, "curate-data", "--name", "taught", "--source", "distilled", "--validation-only", "--wait", "1m"},
		[]string{"--home", home, "sql", "--format", "csv", "SELECT name, split, count(*) FROM raw.distill_outcomes GROUP BY ALL"})
	for i, r := range runs {
		if r.Code != clitest.ExitOK {
			t.Errorf("process %d: exit %d\n%s", i, r.Code, r.Stderr)
		}
	}
	if n := storetest.Rows(t, home, kb.Raw, `SELECT count(*) FROM distill_outcomes WHERE repo_path = ? AND split = 'train'`, heldPath); n[0] != "0" {
		t.Errorf("%s answers of the held-out repository still stored in train", n[0])
	}
	latest := `WITH v AS (SELECT name, max(version) AS version FROM dataset_versions GROUP BY name)
		SELECT e.dataset || '@' || e.version || ' ' || e.split FROM training_examples e
		JOIN v ON v.name = e.dataset AND v.version = e.version WHERE e.repo_path = ? GROUP BY ALL ORDER BY ALL`
	rows := storetest.Rows(t, home, kb.Raw, latest, heldPath)
	for _, want := range []string{"early@2 validation", "other@1 validation", "taught@1 validation"} {
		if !slices.Contains(rows, want) {
			t.Errorf("latest versions hold %q: want %s", rows, want)
		}
	}
	for _, r := range rows {
		if strings.HasSuffix(r, " train") {
			t.Errorf("held-out repository in train: %s", r)
		}
	}
	if bad := storetest.Rows(t, home, kb.Raw, `SELECT d.name || '@' || d.version || ': ' || d.examples || ' counted, ' ||
			(SELECT count(*) FROM training_examples e WHERE e.dataset = d.name AND e.version = d.version) || ' held'
		FROM dataset_versions d
		WHERE d.examples <> (SELECT count(*) FROM training_examples e WHERE e.dataset = d.name AND e.version = d.version)
		UNION ALL SELECT dataset || '@' || version || ': example ' || id || ' twice' FROM training_examples GROUP BY ALL HAVING count(*) > 1`); len(bad) > 0 {
		t.Errorf("versions and their rows disagree: %q", bad)
	}
}
