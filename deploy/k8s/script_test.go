package k8s_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// cliSpec is cra's command line as the manifests may use it: each
// subcommand with its flags (true: the flag takes a value) and how many
// arguments it takes (-1: any number, at least one).
type cliSpec struct {
	flags map[string]bool
	args  int
}

var globalFlags = map[string]bool{"--home": true, "--json": false, "--log-level": true, "--log-format": true}

var shardFlags = map[string]bool{"--shard": true, "--shard-count": true}

var cli = map[string]cliSpec{
	"init":          {flags: map[string]bool{"--provider": true, "--base-url": true, "--coding-model": true, "--reasoning-model": true, "--api-key-env": true}},
	"bootstrap":     {flags: with(shardFlags, "--jobs", "--max-commits", "--since", "--wait"), args: -1},
	"index":         {flags: with(shardFlags, "--rev", "--jobs", "--wait"), args: -1},
	"shards export": {flags: with(shardFlags, "--out")},
	"shards import": {flags: map[string]bool{}, args: 1},
	"curate-data":   {flags: map[string]bool{"--name": true, "--source": true, "--kind": true, "--stages": true, "--wait": true}},
	"sql":           {flags: map[string]bool{"--shards": true, "--format": true, "-o": true, "-f": true}},
}

func with(base map[string]bool, valued ...string) map[string]bool {
	m := map[string]bool{}
	for k, v := range base {
		m[k] = v
	}
	for _, f := range valued {
		m[f] = true
	}
	return m
}

// call is one run of cra as the stub recorded it.
type call struct {
	home string   // CRA_HOME
	argv []string // after cra
}

// parse reads argv as cra's command line: the subcommand, its flags and
// its arguments, or what is wrong with it.
func parse(argv []string) (cmd string, flags map[string]string, args []string, err error) {
	flags = map[string]string{}
	i := 0
	for ; i < len(argv) && strings.HasPrefix(argv[i], "-"); i++ { // global flags first
		name, _, _ := strings.Cut(argv[i], "=")
		valued, ok := globalFlags[name]
		if !ok {
			return "", nil, nil, errors.New("unknown global flag " + argv[i])
		}
		if valued && !strings.Contains(argv[i], "=") {
			i++
		}
	}
	if i == len(argv) {
		return "", nil, nil, errors.New("no subcommand")
	}
	cmd, i = argv[i], i+1
	if cmd == "shards" && i < len(argv) {
		cmd, i = cmd+" "+argv[i], i+1
	}
	spec, ok := cli[cmd]
	if !ok {
		return "", nil, nil, errors.New("not a cra subcommand: " + cmd)
	}
	for ; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") {
			args = append(args, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		valued, ok := spec.flags[name]
		if !ok {
			valued, ok = globalFlags[name]
		}
		if !ok {
			return "", nil, nil, errors.New(cmd + ": unknown flag " + name)
		}
		if valued && !hasValue {
			if i+1 == len(argv) {
				return "", nil, nil, errors.New(cmd + ": " + name + " needs a value")
			}
			i++
			value = argv[i]
		}
		flags[name] = value
	}
	switch {
	case spec.args == -1 && len(args) == 0:
		return "", nil, nil, errors.New(cmd + ": no argument")
	case spec.args >= 0 && len(args) != spec.args:
		return "", nil, nil, errors.New(cmd + ": wrong number of arguments")
	}
	return cmd, flags, args, nil
}

func TestParseCommandLine(t *testing.T) {
	cases := []struct {
		argv string
		cmd  string // "" when it must be refused
	}{
		{"bootstrap --jobs 2 /c/a /c/b", "bootstrap"},
		{"--json bootstrap /c/a", "bootstrap"},
		{"shards export --out /x", "shards export"},
		{"shards export --out=/x", "shards export"},
		{"shards import /x", "shards import"},
		{"curate-data --name synthetic", "curate-data"},
		{"bootstrap", ""},                               // no repository
		{"bootstrap --job 2 /c/a", ""},                  // misspelled flag
		{"shard export --out /x", ""},                   // misspelled command
		{"shards export --out", ""},                     // flag without value
		{"shards import", ""},                           // no folder
		{"shards import /x /y", ""},                     // two folders
		{"curate_data --name synthetic", ""},            // not a command
		{"--homes /h bootstrap /c/a", ""},               // unknown global flag
		{"shards exports --out /x", ""},                 // not a shards command
		{"bootstrap --shard-count 8 /c/a", "bootstrap"}, // a real flag (the manifests must not pass it)
	}
	for _, c := range cases {
		cmd, _, _, err := parse(strings.Fields(c.argv))
		if c.cmd == "" && err == nil {
			t.Errorf("%q parsed as %q; want refused", c.argv, cmd)
		}
		if c.cmd != "" && (err != nil || cmd != c.cmd) {
			t.Errorf("%q: %q, %v; want %q", c.argv, cmd, err, c.cmd)
		}
	}
}

// stub is a cra on PATH that records each call (CRA_HOME and argv, one
// line, fields separated by a tab) and exits with the code named by
// STUB_RC_<SUBCOMMAND> (bootstrap, export, import, curate, init).
const stub = `#!/bin/sh
{ printf '%s' "$CRA_HOME"; for a in "$@"; do printf '\t%s' "$a"; done; printf '\n'; } >> "$STUB_LOG"
case "$1 $2" in
  "shards export") exit "${STUB_RC_EXPORT:-0}" ;;
  "shards import") exit "${STUB_RC_IMPORT:-0}" ;;
esac
case "$1" in
  bootstrap) exit "${STUB_RC_BOOTSTRAP:-0}" ;;
  curate-data) exit "${STUB_RC_CURATE:-0}" ;;
  init) exit "${STUB_RC_INIT:-0}" ;;
esac
exit 0
`

// run executes the container's script with sh as the pod would, its mount
// paths moved under root, the Job's environment (JOB_COMPLETION_INDEX
// as Kubernetes sets it, CRA_JOBS as the CPU limit gives it) and a stub
// cra; it returns the exit code and the calls.
func run(t *testing.T, c corev1.Container, root string, index int, rc map[string]string) (int, []call) {
	t.Helper()
	if len(c.Command) != 2 || c.Command[1] != "-c" || len(c.Args) != 1 {
		t.Fatalf("command %q args %d: want [/bin/sh -c] and one script", c.Command, len(c.Args))
	}
	var pairs []string
	for _, m := range c.VolumeMounts {
		pairs = append(pairs, m.MountPath+"/", filepath.Join(root, m.MountPath)+"/")
	}
	script := strings.NewReplacer(pairs...).Replace(c.Args[0])

	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "cra"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(root, "calls.log")
	os.Remove(log)
	cmd := exec.Command(c.Command[0], "-c", script)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "STUB_LOG=" + log, "JOB_COMPLETION_INDEX=" + itoa(index)}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil:
			q := c.Resources.Limits[corev1.ResourceName(strings.TrimPrefix(e.ValueFrom.ResourceFieldRef.Resource, "limits."))]
			cmd.Env = append(cmd.Env, e.Name+"="+itoa(int(q.Value())))
		case e.Name == "HOME":
			cmd.Env = append(cmd.Env, "HOME="+filepath.Join(root, e.Value))
		default:
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
	}
	for k, v := range rc {
		cmd.Env = append(cmd.Env, "STUB_RC_"+strings.ToUpper(k)+"="+v)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh: %v", err)
	}
	if len(out) > 0 {
		t.Logf("script output: %s", out)
	}
	data, err := os.ReadFile(log)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var calls []call
	for l := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		f := strings.Split(l, "\t")
		calls = append(calls, call{home: f[0], argv: f[1:]})
	}
	return code, calls
}

func itoa(n int) string { return strconv.Itoa(n) }

// layClones makes the clones folder as a volume may hold it: a clone, a
// bare clone, lost+found and a stray file.
func layClones(t *testing.T, root string) []string {
	t.Helper()
	clones := filepath.Join(root, "clones")
	for _, p := range []string{"requests/.git", "click.git/refs", "lost+found"} {
		if err := os.MkdirAll(filepath.Join(clones, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(clones, "click.git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clones, "README"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"shared", "etc/cra", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "etc/cra/config.toml"), []byte("# config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{filepath.Join(clones, "click.git"), filepath.Join(clones, "requests")}
}

// commands is the subcommands of calls, in order, each checked against
// cra's command line.
func commands(t *testing.T, calls []call) []string {
	t.Helper()
	var cmds []string
	for _, c := range calls {
		cmd, flags, _, err := parse(c.argv)
		if err != nil {
			t.Errorf("cra %q: %v", c.argv, err)
			continue
		}
		for f := range shardFlags {
			if _, ok := flags[f]; ok {
				t.Errorf("cra %q passes %s: the shard comes from JOB_COMPLETION_INDEX and CRA_SHARD_COUNT", c.argv, f)
			}
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}

func TestBootstrapScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	objs := manifests(t)
	spec := find[*batchv1.Job](t, objs, "Job", bootstrapJob).Spec
	c := craContainer(t, bootstrapJob, spec.Template.Spec)
	n := itoa(int(*spec.Completions))
	const index = 3
	cases := []struct {
		name     string
		rc       map[string]string
		wantExit int
		wantCmds []string
	}{
		{"a good night", nil, 0, []string{"init", "bootstrap", "shards export"}},
		{"some repositories failed: still exported, exit 1", map[string]string{"bootstrap": "1"}, 1, []string{"init", "bootstrap", "shards export"}},
		{"a configuration error: no export", map[string]string{"bootstrap": "2"}, 2, []string{"init", "bootstrap"}},
		{"interrupted: no export", map[string]string{"bootstrap": "130"}, 130, []string{"init", "bootstrap"}},
		{"the export failed", map[string]string{"export": "2"}, 2, []string{"init", "bootstrap", "shards export"}},
		{"both had failures", map[string]string{"bootstrap": "1", "export": "1"}, 1, []string{"init", "bootstrap", "shards export"}},
		{"init failed: nothing else", map[string]string{"init": "2"}, 2, []string{"init"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			repos := layClones(t, root)
			code, calls := run(t, c, root, index, tc.rc)
			if code != tc.wantExit {
				t.Errorf("exit %d; want %d", code, tc.wantExit)
			}
			if got := commands(t, calls); !slices.Equal(got, tc.wantCmds) {
				t.Fatalf("ran %q; want %q", got, tc.wantCmds)
			}
			home := filepath.Join(root, "shared/homes/of-"+n+"/shard-"+itoa(index))
			for _, cl := range calls {
				if cl.home != home {
					t.Errorf("cra %q ran in home %q; want the shard's own %q", cl.argv, cl.home, home)
				}
			}
			if _, err := os.Stat(filepath.Join(home, "config.toml")); err != nil {
				t.Errorf("the ConfigMap's config.toml is not in the home: %v", err)
			}
			if len(calls) > 1 {
				_, flags, args, _ := parse(calls[1].argv)
				if !slices.Equal(args, repos) {
					t.Errorf("bootstrap got %q; want every clone, and nothing else: %q", args, repos)
				}
				if flags["--jobs"] != itoa(int(c.Resources.Limits.Cpu().Value())) {
					t.Errorf("bootstrap --jobs %q; want the CPU limit", flags["--jobs"])
				}
			}
			if len(calls) > 2 {
				_, flags, _, _ := parse(calls[2].argv)
				if want := filepath.Join(root, "shared/export/of-"+n); flags["--out"] != want {
					t.Errorf("export --out %q; want %q", flags["--out"], want)
				}
			}
		})
	}
}

func TestImportScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	objs := manifests(t)
	c := craContainer(t, importJob, find[*batchv1.Job](t, objs, "Job", importJob).Spec.Template.Spec)
	n := itoa(int(*find[*batchv1.Job](t, objs, "Job", bootstrapJob).Spec.Completions))
	cases := []struct {
		name     string
		rc       map[string]string
		wantExit int
		wantCmds []string
	}{
		{"import then curate", nil, 0, []string{"init", "shards import", "curate-data"}},
		{"a failed import: no curation", map[string]string{"import": "1"}, 1, []string{"init", "shards import"}},
		{"curation's own exit", map[string]string{"curate": "2"}, 2, []string{"init", "shards import", "curate-data"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			layClones(t, root)
			code, calls := run(t, c, root, 0, tc.rc)
			if code != tc.wantExit {
				t.Errorf("exit %d; want %d", code, tc.wantExit)
			}
			if got := commands(t, calls); !slices.Equal(got, tc.wantCmds) {
				t.Fatalf("ran %q; want %q", got, tc.wantCmds)
			}
			if len(calls) < 2 {
				t.Fatalf("ran %d commands; want the import", len(calls))
			}
			_, _, args, _ := parse(calls[1].argv)
			if want := filepath.Join(root, "shared/export/of-"+n); len(args) != 1 || args[0] != want {
				t.Errorf("import reads %q; want the folder the shards export to, %q", args, want)
			}
			central := calls[0].home
			for _, cl := range calls {
				if cl.home != central || !strings.HasPrefix(central, filepath.Join(root, "shared")+"/") || strings.Contains(central, "/homes/") {
					t.Errorf("cra %q ran in home %q; want one central home on the shared volume, apart from the shards'", cl.argv, cl.home)
				}
			}
		})
	}
}

// TestCommandsExistInCra ties the table above to cmd/cra: every subcommand
// the manifests run is defined there. The shards commands come with issue
// 30's other half (package shards); until that lands on main they are
// checked against the table alone.
func TestCommandsExistInCra(t *testing.T) {
	defined := craCommands(t)
	for cmd := range cli {
		first, _, _ := strings.Cut(cmd, " ")
		if !slices.Contains(defined, first) {
			t.Errorf("cra has no subcommand %q (cmd/cra/cmd_*.go)", first)
		}
	}
}
