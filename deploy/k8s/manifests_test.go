package k8s_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/config"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The objects the walkthrough (README.md) names.
const (
	bootstrapJob   = "cra-bootstrap"
	nightlyCronJob = "cra-nightly"
	importJob      = "cra-import"
	configMap      = "cra-config"
	container      = "cra"
	shardCountEnv  = "CRA_SHARD_COUNT"
	jobsEnv        = "CRA_JOBS"
)

// Peak RSS ("Maximum resident set size" of /usr/bin/time -v, in KiB) of
// bin/cra on this project's reference clones, each into a fresh home with
// DuckDB's memory_limit at its 1 GiB default (README.md, "Resources"):
//
//	/usr/bin/time -v bin/cra --home $H bootstrap /work/clones/requests
//	/usr/bin/time -v bin/cra --home $H bootstrap /work/clones/click
//	/usr/bin/time -v bin/cra --home $H curate-data --name synthetic   (H: requests' home)
const (
	peakBootstrapRequestsKiB = 845056
	peakBootstrapClickKiB    = 793076
	peakCurateRequestsKiB    = 728424
)

// measuredDuckDBLimit is the memory_limit those peaks were measured with.
const measuredDuckDBLimit = 1 << 30

func kib(n int64) *resource.Quantity { return resource.NewQuantity(n<<10, resource.BinarySI) }

// bootstrapSpecs are the Indexed Job specs: the Job's and the CronJob's.
func bootstrapSpecs(t *testing.T, objs []object) map[string]batchv1.JobSpec {
	t.Helper()
	return map[string]batchv1.JobSpec{
		"Job " + bootstrapJob:       find[*batchv1.Job](t, objs, "Job", bootstrapJob).Spec,
		"CronJob " + nightlyCronJob: find[*batchv1.CronJob](t, objs, "CronJob", nightlyCronJob).Spec.JobTemplate.Spec,
	}
}

// craContainer is the pod's container named cra.
func craContainer(t *testing.T, where string, pod corev1.PodSpec) corev1.Container {
	t.Helper()
	for _, c := range pod.Containers {
		if c.Name == container {
			return c
		}
	}
	t.Fatalf("%s: no container %q", where, container)
	return corev1.Container{}
}

// deref prints an optional field: its value, or "unset".
func deref[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

func envValue(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func TestIndexedJobShardsAsCraExpects(t *testing.T) {
	for where, spec := range bootstrapSpecs(t, manifests(t)) {
		if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
			t.Errorf("%s: completionMode %s; want Indexed (JOB_COMPLETION_INDEX is the shard)", where, deref(spec.CompletionMode))
		}
		if spec.Completions == nil || *spec.Completions < 1 {
			t.Fatalf("%s: completions %s; want N >= 1", where, deref(spec.Completions))
		}
		n := *spec.Completions
		if spec.Parallelism == nil || *spec.Parallelism < 1 || *spec.Parallelism > n {
			t.Errorf("%s: parallelism %s; want 1..completions (%d)", where, deref(spec.Parallelism), n)
		}
		if spec.BackoffLimitPerIndex == nil {
			t.Errorf("%s: backoffLimitPerIndex unset; a crashing shard would use up the whole Job's backoff", where)
		}
		if spec.PodReplacementPolicy == nil || *spec.PodReplacementPolicy != batchv1.Failed {
			t.Errorf("%s: podReplacementPolicy %s; want Failed, so a shard's home never has two writers", where, deref(spec.PodReplacementPolicy))
		}
		if spec.ActiveDeadlineSeconds == nil {
			t.Errorf("%s: no activeDeadlineSeconds: a hung night would block the next (concurrencyPolicy Forbid)", where)
		}
		checkFailurePolicy(t, where, spec, map[int32]batchv1.PodFailurePolicyAction{
			2: batchv1.PodFailurePolicyActionFailJob,
			1: batchv1.PodFailurePolicyActionFailIndex,
		})
		pod := spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q; want Never (podFailurePolicy needs it)", where, pod.RestartPolicy)
		}
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			got, ok := envValue(c, shardCountEnv)
			if !ok {
				t.Errorf("%s: container %s has no %s: cra would not know N", where, c.Name, shardCountEnv)
				continue
			}
			if got != strconv.Itoa(int(n)) {
				t.Errorf("%s: container %s has %s=%q; want %d, equal to completions", where, c.Name, shardCountEnv, got, n)
			}
			if _, ok := envValue(c, "JOB_COMPLETION_INDEX"); ok {
				t.Errorf("%s: container %s sets JOB_COMPLETION_INDEX: Kubernetes sets it per pod", where, c.Name)
			}
		}
	}
}

// checkFailurePolicy wants, for each cra exit code, the rule that takes
// that action on the cra container, and disruptions ignored.
func checkFailurePolicy(t *testing.T, where string, spec batchv1.JobSpec, want map[int32]batchv1.PodFailurePolicyAction) {
	t.Helper()
	if spec.PodFailurePolicy == nil {
		t.Errorf("%s: no podFailurePolicy", where)
		return
	}
	got := map[int32]batchv1.PodFailurePolicyAction{}
	disruption := false
	for _, r := range spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil {
			if r.OnExitCodes.ContainerName == nil || *r.OnExitCodes.ContainerName != container || r.OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn {
				t.Errorf("%s: exit-code rule %+v; want operator In on container %s", where, r.OnExitCodes, container)
			}
			for _, v := range r.OnExitCodes.Values {
				if _, ok := got[v]; !ok { // the first matching rule wins
					got[v] = r.Action
				}
			}
		}
		for _, c := range r.OnPodConditions {
			if c.Type == corev1.DisruptionTarget && r.Action == batchv1.PodFailurePolicyActionIgnore {
				disruption = true
			}
		}
	}
	for code, action := range want {
		if got[code] != action {
			t.Errorf("%s: exit %d → %q; want %q", where, code, got[code], action)
		}
	}
	if !disruption {
		t.Errorf("%s: an evicted or preempted pod counts as a failure; want DisruptionTarget ignored", where)
	}
}

func TestCronJobRunsTheJobNightly(t *testing.T) {
	objs := manifests(t)
	cron := find[*batchv1.CronJob](t, objs, "CronJob", nightlyCronJob).Spec
	job := find[*batchv1.Job](t, objs, "Job", bootstrapJob).Spec
	if cron.ConcurrencyPolicy != batchv1.ForbidConcurrent {
		t.Errorf("concurrencyPolicy %q; want Forbid: two nights would write one shard's home", cron.ConcurrencyPolicy)
	}
	if cron.StartingDeadlineSeconds == nil || *cron.StartingDeadlineSeconds <= 0 {
		t.Errorf("startingDeadlineSeconds %s; want a positive deadline", deref(cron.StartingDeadlineSeconds))
	}
	if cron.TimeZone == nil {
		t.Error("no timeZone: the schedule would follow the controller's zone")
	}
	// The same Job every night as by hand, bar its clean-up (the CronJob's
	// history limits keep its Jobs instead).
	nightly := cron.JobTemplate.Spec
	nightly.TTLSecondsAfterFinished = job.TTLSecondsAfterFinished
	if !equality.Semantic.DeepEqual(nightly, job) {
		t.Errorf("the CronJob's job spec differs from %s's: keep bootstrap-cronjob.yaml's jobTemplate.spec a copy of bootstrap-job.yaml's spec", bootstrapJob)
	}
}

func TestImportJobReadsWhatTheShardsExport(t *testing.T) {
	objs := manifests(t)
	job := find[*batchv1.Job](t, objs, "Job", importJob).Spec
	n := *find[*batchv1.Job](t, objs, "Job", bootstrapJob).Spec.Completions
	if job.CompletionMode != nil && *job.CompletionMode == batchv1.IndexedCompletion {
		t.Error("the import Job is indexed: one home imports, one pod")
	}
	if job.Completions == nil || *job.Completions != 1 || job.Parallelism == nil || *job.Parallelism != 1 {
		t.Errorf("completions %s, parallelism %s; want one pod: the central home has one writer", deref(job.Completions), deref(job.Parallelism))
	}
	if job.PodReplacementPolicy == nil || *job.PodReplacementPolicy != batchv1.Failed {
		t.Errorf("podReplacementPolicy %s; want Failed", deref(job.PodReplacementPolicy))
	}
	checkFailurePolicy(t, "Job "+importJob, job, map[int32]batchv1.PodFailurePolicyAction{2: batchv1.PodFailurePolicyActionFailJob})
	c := craContainer(t, importJob, job.Template.Spec)
	if got, _ := envValue(c, shardCountEnv); got != strconv.Itoa(int(n)) {
		t.Errorf("%s=%q; want %d, the bootstrap Job's completions (it names the export folder)", shardCountEnv, got, n)
	}
}

func TestVolumesAreDeclaredAndMounted(t *testing.T) {
	objs := manifests(t)
	claims := map[string]*corev1.PersistentVolumeClaim{}
	maps := map[string]*corev1.ConfigMap{}
	for _, o := range objs {
		switch v := o.obj.(type) {
		case *corev1.PersistentVolumeClaim:
			claims[o.name] = v
		case *corev1.ConfigMap:
			maps[o.name] = v
		}
	}
	pods := map[string]corev1.PodSpec{}
	for where, spec := range bootstrapSpecs(t, objs) {
		pods[where] = spec.Template.Spec
	}
	pods["Job "+importJob] = find[*batchv1.Job](t, objs, "Job", importJob).Spec.Template.Spec
	for where, pod := range pods {
		declared := map[string]corev1.Volume{}
		for _, v := range pod.Volumes {
			declared[v.Name] = v
			if pvc := v.PersistentVolumeClaim; pvc != nil && claims[pvc.ClaimName] == nil {
				t.Errorf("%s: volume %s claims %q, which no manifest declares", where, v.Name, pvc.ClaimName)
			}
			if cm := v.ConfigMap; cm != nil && maps[cm.Name] == nil {
				t.Errorf("%s: volume %s reads ConfigMap %q, which no manifest declares", where, v.Name, cm.Name)
			}
		}
		mounted := map[string]bool{}
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			for _, m := range c.VolumeMounts {
				v, ok := declared[m.Name]
				if !ok {
					t.Errorf("%s: container %s mounts %q, which the pod does not declare", where, c.Name, m.Name)
					continue
				}
				mounted[m.Name] = true
				if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "cra-clones" && (!m.ReadOnly || !v.PersistentVolumeClaim.ReadOnly) {
					t.Errorf("%s: the clones are mounted writable; cra only reads them", where)
				}
			}
			// Every absolute path the script names lies on a mount (or is the
			// shell): nothing is written to the read-only root file system.
			for _, p := range scriptPaths(c) {
				if !underAMount(p, c.VolumeMounts) {
					t.Errorf("%s: the script names %s, on no mounted volume", where, p)
				}
			}
		}
		for name := range declared {
			if !mounted[name] {
				t.Errorf("%s: volume %s is declared and never mounted", where, name)
			}
		}
	}
}

var absPath = regexp.MustCompile(`(?:^|[\s"'=])(/[A-Za-z][\w.-]*(?:/[\w.*-]*)*)`)

func scriptPaths(c corev1.Container) []string {
	var paths []string
	for _, a := range c.Args {
		for _, m := range absPath.FindAllStringSubmatch(a, -1) {
			paths = append(paths, m[1])
		}
	}
	return paths
}

func underAMount(p string, mounts []corev1.VolumeMount) bool {
	return slices.ContainsFunc(mounts, func(m corev1.VolumeMount) bool {
		return p == m.MountPath || strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/")
	})
}

func TestResourcesCoverTheMeasuredPeak(t *testing.T) {
	objs := manifests(t)
	cm := find[*corev1.ConfigMap](t, objs, "ConfigMap", configMap)
	text, ok := cm.Data["config.toml"]
	if !ok {
		t.Fatalf("ConfigMap %s has no config.toml", configMap)
	}
	cfg, err := config.Parse("cra-config:config.toml", text)
	if err != nil {
		t.Fatalf("the ConfigMap's config.toml is not one cra accepts: %v", err)
	}
	duckdb, ok := config.Bytes(cfg.Store.MemoryLimit)
	if !ok {
		t.Fatalf("[store] memory_limit %q: pin it, the peaks were measured with %d MiB", cfg.Store.MemoryLimit, measuredDuckDBLimit>>20)
	}
	if duckdb != measuredDuckDBLimit {
		t.Errorf("[store] memory_limit is %d MiB; the peaks were measured with %d MiB: measure again", duckdb>>20, measuredDuckDBLimit>>20)
	}
	pods := map[string]struct {
		pod  corev1.PodSpec
		peak int64
	}{}
	for where, spec := range bootstrapSpecs(t, objs) {
		pods[where] = struct {
			pod  corev1.PodSpec
			peak int64
		}{spec.Template.Spec, max(peakBootstrapRequestsKiB, peakBootstrapClickKiB)}
	}
	pods["Job "+importJob] = struct {
		pod  corev1.PodSpec
		peak int64
	}{find[*batchv1.Job](t, objs, "Job", importJob).Spec.Template.Spec, peakCurateRequestsKiB}
	for where, p := range pods {
		c := craContainer(t, where, p.pod)
		if err := checkResources(c, kib(p.peak), duckdb); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}
	// The Job's bootstrap gets as many workers as its CPU limit.
	for where, spec := range bootstrapSpecs(t, objs) {
		c := craContainer(t, where, spec.Template.Spec)
		var from *corev1.ResourceFieldSelector
		for _, e := range c.Env {
			if e.Name == jobsEnv && e.ValueFrom != nil {
				from = e.ValueFrom.ResourceFieldRef
			}
		}
		if from == nil || from.Resource != "limits.cpu" {
			t.Errorf("%s: %s is not the container's limits.cpu (cra's default counts the node's cores)", where, jobsEnv)
		}
	}
}

// checkResources holds a container to the measured peak: memory requested
// at least the peak, a limit at least the request and above DuckDB's own
// limit, and CPU requested and limited.
func checkResources(c corev1.Container, peak *resource.Quantity, duckdb int64) error {
	req, lim := c.Resources.Requests, c.Resources.Limits
	mreq, ok := req[corev1.ResourceMemory]
	if !ok {
		return fmt.Errorf("no memory request")
	}
	if mreq.Cmp(*peak) < 0 {
		return fmt.Errorf("memory request %s is below the measured peak %s", mreq.String(), peak.String())
	}
	mlim, ok := lim[corev1.ResourceMemory]
	if !ok || mlim.Cmp(mreq) < 0 {
		return fmt.Errorf("memory limit %s below the request %s", mlim.String(), mreq.String())
	}
	if mlim.Value() <= duckdb {
		return fmt.Errorf("memory limit %s leaves nothing beside DuckDB's %d MiB", mlim.String(), duckdb>>20)
	}
	if _, ok := req[corev1.ResourceCPU]; !ok {
		return fmt.Errorf("no cpu request")
	}
	if _, ok := lim[corev1.ResourceCPU]; !ok {
		return fmt.Errorf("no cpu limit")
	}
	return nil
}

func TestCheckResourcesRefusesShortMemory(t *testing.T) {
	peak := kib(peakBootstrapRequestsKiB)
	mk := func(req, lim string) corev1.Container {
		return corev1.Container{Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(req), corev1.ResourceCPU: resource.MustParse("1")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(lim), corev1.ResourceCPU: resource.MustParse("1")},
		}}
	}
	cases := []struct {
		req, lim string
		ok       bool
	}{
		{"825Mi", "2Gi", false}, // 845,056 KiB is 825.25 MiB
		{"826Mi", "2Gi", true},
		{"800Mi", "2Gi", false},
		{"1536Mi", "1Gi", false},   // limit below request
		{"1Gi", "1Gi", false},      // nothing beside DuckDB's 1 GiB
		{"1536Mi", "1537Mi", true}, // above both
	}
	for _, c := range cases {
		err := checkResources(mk(c.req, c.lim), peak, measuredDuckDBLimit)
		if (err == nil) != c.ok {
			t.Errorf("request %s limit %s: %v; want ok=%v", c.req, c.lim, err, c.ok)
		}
	}
}
