// Package k8s_test checks the Kubernetes manifests of deploy/k8s: each
// decodes strictly into its k8s.io/api type (a misspelled field fails), the
// Indexed Job shards as cra expects, the volumes and resources hold
// together, and the pods' shell scripts run the cra commands they should
// (executed against a stub cra that records its arguments).
package k8s_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8sjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// object is one decoded document of a manifest file.
type object struct {
	file string
	kind string
	name string
	obj  any // *batchv1.Job, *batchv1.CronJob, *corev1.ConfigMap, *corev1.PersistentVolumeClaim
}

// newObject returns the empty typed value a document of apiVersion and
// kind decodes into; kinds the manifests have no business with are refused.
func newObject(apiVersion, kind string) (any, error) {
	switch apiVersion + " " + kind {
	case "batch/v1 Job":
		return &batchv1.Job{}, nil
	case "batch/v1 CronJob":
		return &batchv1.CronJob{}, nil
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, nil
	case "v1 PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, nil
	}
	return nil, fmt.Errorf("apiVersion %q kind %q: not a kind these manifests use", apiVersion, kind)
}

// splitDocuments cuts a multi-document YAML file at its "---" lines and
// drops documents holding only comments and blank lines.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	var cur []string
	flush := func() {
		for _, l := range cur {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				docs = append(docs, []byte(strings.Join(cur, "\n")))
				break
			}
		}
		cur = nil
	}
	for l := range strings.SplitSeq(string(data), "\n") {
		if strings.TrimRight(l, " \t\r") == "---" {
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return docs
}

// decodeStrict decodes one YAML document into its k8s.io/api type: YAML to
// JSON (a key given twice refused), then a JSON decoder that refuses unknown
// fields, as the API server's strict field validation does. encoding/json
// matches names regardless of case, so "mountpath" would pass it and the
// API server would drop it; sigs.k8s.io/json, the API server's own decoder,
// then checks the same JSON case-sensitively.
func decodeStrict(doc []byte) (object, error) {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return object{}, fmt.Errorf("yaml: %w", err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return object{}, fmt.Errorf("not an object: %w", err)
	}
	into, err := newObject(head.APIVersion, head.Kind)
	if err != nil {
		return object{}, err
	}
	what := head.Kind + " " + head.Metadata.Name
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return object{}, fmt.Errorf("%s: %w", what, err)
	}
	if dec.More() {
		return object{}, fmt.Errorf("%s: data after the object", what)
	}
	again, _ := newObject(head.APIVersion, head.Kind)
	strict, err := k8sjson.UnmarshalStrict(js, again, k8sjson.DisallowUnknownFields, k8sjson.DisallowDuplicateFields)
	if err != nil {
		return object{}, fmt.Errorf("%s: %w", what, err)
	}
	if len(strict) > 0 {
		return object{}, fmt.Errorf("%s: %w", what, errors.Join(strict...))
	}
	if head.Metadata.Name == "" {
		return object{}, fmt.Errorf("%s without metadata.name", head.Kind)
	}
	return object{kind: head.Kind, name: head.Metadata.Name, obj: into}, nil
}

// manifests decodes every document of every YAML file beside this test.
func manifests(t *testing.T) []object {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*.yml")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no manifest (*.yaml) in deploy/k8s")
	}
	var objs []object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs := splitDocuments(data)
		if len(docs) == 0 {
			t.Errorf("%s: no document", f)
		}
		for i, doc := range docs {
			o, err := decodeStrict(doc)
			if err != nil {
				t.Errorf("%s, document %d: %v", f, i+1, err)
				continue
			}
			o.file = f
			objs = append(objs, o)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return objs
}

// find returns the one object of kind and name, failing the test when
// there is not exactly one.
func find[T any](t *testing.T, objs []object, kind, name string) T {
	t.Helper()
	var found []T
	for _, o := range objs {
		if o.kind == kind && o.name == name {
			found = append(found, o.obj.(T))
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s %s: %d in the manifests, want 1", kind, name, len(found))
	}
	return found[0]
}

func TestEveryManifestDecodesStrictly(t *testing.T) {
	objs := manifests(t)
	find[*batchv1.Job](t, objs, "Job", bootstrapJob)
	find[*batchv1.CronJob](t, objs, "CronJob", nightlyCronJob)
	find[*batchv1.Job](t, objs, "Job", importJob)
	find[*corev1.ConfigMap](t, objs, "ConfigMap", configMap)
	seen := map[string]string{}
	for _, o := range objs {
		key := o.kind + "/" + o.name
		if f, ok := seen[key]; ok {
			t.Errorf("%s is in %s and %s: kubectl apply would keep only one", key, f, o.file)
		}
		seen[key] = o.file
	}
}

// TestStrictDecodeRefusesTypos shows the decoding above would catch a
// misspelled or misplaced field, which kubectl apply (without server-side
// strict validation) may drop with a mere warning.
func TestStrictDecodeRefusesTypos(t *testing.T) {
	const job = `apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  completionMode: Indexed
  completions: 2
  backoffLimitPerIndex: 1
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: cra
          image: cra
          volumeMounts:
            - name: shared
              mountPath: /shared
`
	const cron = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: c
spec:
  schedule: "0 2 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: cra, image: cra}]
`
	cases := []struct {
		name    string
		doc     string
		wantErr string // "" when it must decode
	}{
		{"the job as written", job, ""},
		{"the cron job as written", cron, ""},
		{"misspelled spec field", strings.Replace(job, "completionMode:", "completionMod:", 1), `unknown field "completionMod"`},
		{"misspelled per-index backoff", strings.Replace(job, "backoffLimitPerIndex:", "backoffLimitPerindex:", 1), `unknown field "spec.backoffLimitPerindex"`},
		{"misspelled container field", strings.Replace(job, "volumeMounts:", "volumeMount:", 1), `unknown field "volumeMount"`},
		{"misspelled mount field", strings.Replace(job, "mountPath:", "mountpath:", 1), `unknown field "spec.template.spec.containers[0].volumeMounts[0].mountpath"`},
		{"field at the wrong level", strings.Replace(job, "      restartPolicy: Never", "      restartPolicy: Never\n      completions: 2", 1), `unknown field "completions"`},
		{"misspelled cron field", strings.Replace(cron, "concurrencyPolicy:", "concurencyPolicy:", 1), `unknown field "concurencyPolicy"`},
		{"job spec not under jobTemplate", strings.Replace(cron, "  jobTemplate:\n", "  template: {}\n  jobTemplate:\n", 1), `unknown field "template"`},
		{"wrong type", strings.Replace(job, "completions: 2", "completions: two", 1), "cannot unmarshal"},
		{"wrong kind", strings.Replace(job, "kind: Job", "kind: Jobs", 1), "not a kind"},
		{"duplicate key", strings.Replace(job, "completions: 2", "completions: 2\n  completions: 3", 1), `"completions" already set`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeStrict([]byte(c.doc))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("want it decoded, got %v", err)
			case c.wantErr != "" && err == nil:
				t.Fatalf("decoded; want an error with %q", c.wantErr)
			case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
				t.Fatalf("error %v; want one with %q", err, c.wantErr)
			}
		})
	}
}

func TestSplitDocuments(t *testing.T) {
	in := "# head\n---\na: 1\n---   \n# only a comment\n\n---\nb: 2\n"
	got := splitDocuments([]byte(in))
	if len(got) != 2 || !strings.Contains(string(got[0]), "a: 1") || !strings.Contains(string(got[1]), "b: 2") {
		t.Fatalf("split %q into %q; want the documents a and b", in, got)
	}
	if _, err := decodeStrict([]byte("just: text")); err == nil || !strings.Contains(err.Error(), "not a kind") {
		t.Fatalf("a document without kind: %v; want refused", err)
	}
}

// cmdSource is where cra's commands are defined: a subcommand a manifest
// runs must be one of them.
const cmdSource = "../../cmd/cra"

var commandName = regexp.MustCompile(`Name:\s*"([a-z-]+)"`)

// craCommands lists the names cmd/cra defines (commands and flags alike:
// enough to catch a subcommand that does not exist).
func craCommands(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cmdSource, "cmd_*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cmd/cra/cmd_*.go under %s (%v)", cmdSource, err)
	}
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range commandName.FindAllStringSubmatch(string(data), -1) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
