package curate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cra-dev/cra/datasets"
	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// versionedFixture is a home with synthetic tasks of two repositories.
func versionedFixture(t *testing.T) string {
	f := newFixture(t)
	for i := range 12 {
		f.addSimple(fmt.Sprintf("/repo%d", i%2), fmt.Sprintf("c%02d", i), distinctText(i), fmt.Sprintf("pkg/m%d.py", i),
			fmt.Sprintf("def run():\n    return 1\n# %d\n", i))
	}
	f.close()
	return f.home
}

// exportSums exports version ref and returns each shard's path and sha256.
func exportSums(t *testing.T, home string, ref kb.DatasetRef) []string {
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	m, err := datasets.Export(context.Background(), raw.DB, ref, datasets.ExportOptions{Out: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Path+" "+f.SHA256)
	}
	if m.Dataset != ref.Name || (ref.Version != 0 && m.Version != ref.Version) {
		t.Errorf("manifest names %s@%d, want %s", m.Dataset, m.Version, ref)
	}
	return out
}

// Each run under a name adds a version; earlier versions keep their rows,
// so an export pinned to one gives the same bytes again.
func TestDatasetVersionsCoexistAndExportTheSameBytes(t *testing.T) {
	home := versionedFixture(t)
	opts := testOptions("rel")
	if sum := run(t, home, opts); sum.Version != 1 {
		t.Fatalf("first build is version %d", sum.Version)
	}
	v1 := exportSums(t, home, kb.DatasetRef{Name: "rel", Version: 1})

	opts.Stages = []string{schema.StagePlan}
	opts.Repos = []string{"/repo0"}
	if sum := run(t, home, opts); sum.Version != 2 {
		t.Fatalf("second build is version %d", sum.Version)
	}
	if again := exportSums(t, home, kb.DatasetRef{Name: "rel", Version: 1}); !reflect.DeepEqual(again, v1) {
		t.Errorf("rel@1 exported other bytes after rel@2 was built:\n%v\n%v", v1, again)
	}
	latest := exportSums(t, home, kb.DatasetRef{Name: "rel"})
	if reflect.DeepEqual(latest, v1) || len(latest) == 0 || !strings.HasPrefix(latest[0], "plan/") {
		t.Errorf("rel (the latest) exported %v: want version 2's plan rows", latest)
	}
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	all, err := kb.DatasetVersions(context.Background(), raw.DB, "rel")
	if err != nil || len(all) != 2 || all[0].Version != 1 || all[1].Version != 2 || len(all[1].Examples) != 1 {
		t.Errorf("versions %+v (%v): want 1 with every stage, 2 with plan only", all, err)
	}
	if _, err := kb.ResolveDataset(context.Background(), raw.DB, kb.DatasetRef{Name: "rel", Version: 3}); !errors.Is(err, kb.ErrNotFound) || !strings.Contains(err.Error(), "1, 2") {
		t.Errorf("rel@3: %v, want not found listing 1, 2", err)
	}
}

// A --repos typo, an empty selection and an empty home are usage errors that
// write nothing: the dataset of that name stays as it was.
func TestCurateRefusesWhatWouldWipeOrInventADataset(t *testing.T) {
	empty := storetest.Home(t)
	_, err := Curate(context.Background(), empty, testOptions("rel"))
	if !usage.Is(err) || !strings.Contains(err.Error(), "cra bootstrap") {
		t.Errorf("empty home: %v, want a usage error saying to run cra bootstrap", err)
	}

	home := versionedFixture(t)
	run(t, home, testOptions("rel"))
	before := examples(t, home, "rel", 1)
	for name, opts := range map[string]Options{
		"repos typo":   {Repos: []string{"/repo9"}},
		"holdout typo": {HoldoutRepos: []string{"/rpeo0"}},
		"bad stage":    {Stages: []string{"scopes"}},
	} {
		o := testOptions("rel")
		o.Repos, o.HoldoutRepos = opts.Repos, opts.HoldoutRepos
		if opts.Stages != nil {
			o.Stages = opts.Stages
		}
		_, err := Curate(context.Background(), home, o)
		if !usage.Is(err) {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
		if strings.Contains(name, "typo") && !strings.Contains(err.Error(), "/repo0") {
			t.Errorf("%s: %q does not list the known repositories", name, err)
		}
	}
	if v := storetest.Rows(t, home, kb.Raw, "SELECT max(version) FROM dataset_versions WHERE name = 'rel'"); v[0] != "1" {
		t.Errorf("a refused run added a version: %v", v)
	}
	if after := examples(t, home, "rel", 1); !reflect.DeepEqual(after, before) {
		t.Errorf("a refused run changed rel@1")
	}
}

// Examples a killed build staged but never registered are invisible to
// readers of training_examples, and the next build clears them and takes
// that version number afresh without duplicates.
func TestKilledBuildLeavesNoVisibleVersion(t *testing.T) {
	home := versionedFixture(t)
	run(t, home, testOptions("rel"))
	want := examples(t, home, "rel", 1)
	// What a build killed before registering version 2 leaves behind: some
	// of its examples staged, one of them not among a clean build's.
	storetest.Exec(t, home, kb.Raw, `INSERT INTO training_examples_staging
		SELECT * REPLACE (2 AS version) FROM training_examples WHERE dataset = 'rel' LIMIT 5`)
	storetest.Exec(t, home, kb.Raw, `INSERT INTO training_examples_staging
		SELECT * REPLACE (2 AS version, 'stale' AS id) FROM training_examples WHERE dataset = 'rel' LIMIT 1`)
	raw, err := kb.Open(context.Background(), home, kb.Raw, kb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := kb.DatasetVersions(context.Background(), raw.DB, "rel")
	raw.Close()
	if err != nil || len(all) != 1 {
		t.Fatalf("versions after the kill %+v (%v): the half-written version must not show", all, err)
	}
	if got := storetest.Rows(t, home, kb.Raw, "SELECT count(*) FROM training_examples WHERE version = 2"); got[0] != "0" {
		t.Errorf("training_examples shows %s rows of the unregistered version 2", got[0])
	}
	if sum := run(t, home, testOptions("rel")); sum.Version != 2 {
		t.Errorf("the build after the kill made version %d, want 2", sum.Version)
	}
	if got := examples(t, home, "rel", 2); !reflect.DeepEqual(got, want) {
		t.Errorf("version 2 after the kill: %d rows, want the %d of a clean build", len(got), len(want))
	}
	if got := storetest.Rows(t, home, kb.Raw, "SELECT count(*) FROM training_examples_staging"); got[0] != "0" {
		t.Errorf("%s rows left staged after the version was registered", got[0])
	}
}

func TestPruneKeepsTheNewestVersions(t *testing.T) {
	home := versionedFixture(t)
	for range 4 {
		run(t, home, testOptions("rel"))
	}
	run(t, home, testOptions("other"))
	var gone []int
	err := kb.WithWriter(context.Background(), home, kb.Raw, kb.Options{}, func(w kb.Writer) (err error) {
		gone, err = kb.PruneDataset(context.Background(), w, "rel", 2)
		return err
	})
	if err != nil || !reflect.DeepEqual(gone, []int{2, 1}) {
		t.Fatalf("pruned %v (%v), want [2 1]", gone, err)
	}
	for table, q := range map[string]string{
		"dataset_versions":  "SELECT DISTINCT name || '@' || version FROM dataset_versions ORDER BY 1",
		"training_datasets": "SELECT DISTINCT name || '@' || version FROM training_datasets ORDER BY 1",
		"training_examples": "SELECT DISTINCT dataset || '@' || version FROM training_examples ORDER BY 1",
	} {
		if got := storetest.Rows(t, home, kb.Raw, q); !reflect.DeepEqual(got, []string{"other@1", "rel@3", "rel@4"}) {
			t.Errorf("%s after prune: %v", table, got)
		}
	}
}
