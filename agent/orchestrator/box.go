package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cra-dev/cra/internal/config"
)

// Box is where a test, lint or type-check command runs: the environment
// it gets ([testing] env_passthrough, no API key) and, with bubblewrap,
// a confinement in which only the worktree and a private /tmp are
// writable, the network is cut, the command is the first process of its
// own PID namespace (every process it starts dies with it) and the whole
// tree dies with cra (--die-with-parent), even after a kill -9.
//
// Whatever the mode, each run's processes carry LeftoverVar in their
// environment, naming the worktree: after the command, and before the
// next one in the same worktree (a --resume after a kill -9), cra kills
// whatever still carries it, so a test's setsid or daemonized children
// do not outlive the run unconfined either.
type Box struct {
	Env   []string // the command's environment (config.Testing.Environ)
	bwrap string   // bubblewrap's path; "" runs the command unconfined
	cache string   // the confined runs' own toolchain caches (BoxCache)
	// Warning says, once per run, why tests run unconfined ("" in
	// bubblewrap).
	Warning string
}

// LeftoverVar marks every process of a test run with its worktree.
const LeftoverVar = "CRA_TEST_WORKTREE"

// NewBox is the box [testing] sandbox asks for, with the environment
// t allows out of environ. "bwrap" where bubblewrap cannot run is an
// error (nothing runs unconfined that the user asked to confine); "auto"
// falls back to running unconfined, with a Warning saying why. In
// bubblewrap the toolchains' caches are home's BoxCache (none when home
// is "").
func NewBox(t config.Testing, environ []string, home string) (Box, error) {
	b := Box{Env: t.Environ(environ)}
	if t.Sandbox == config.SandboxNone {
		b.Warning = `tests run unconfined ([testing] sandbox = "none"): a test can write anywhere this user can and reach the network`
		return b, nil
	}
	path, err := bwrapUsable()
	switch {
	case err == nil:
		b.bwrap = path
		if home != "" && makeCache(BoxCache(home)) == nil {
			b.cache = BoxCache(home) // else none: the user's caches, read-only
		}
	case t.Sandbox == config.SandboxBwrap:
		return Box{}, &config.Error{File: "config.toml", Key: "testing.sandbox",
			Problem: fmt.Sprintf(`sandbox = "bwrap" but bubblewrap cannot run here: %v`, err),
			Fix:     `install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or set [testing] sandbox = "auto" or "none"`}
	default:
		b.Warning = fmt.Sprintf("tests run unconfined: bubblewrap cannot run here (%v); install bubblewrap, or set [testing] sandbox = \"none\" to say unconfined is meant", err)
	}
	return b, nil
}

// BoxCache is where confined test runs keep their toolchains' caches
// (GOCACHE, XDG_CACHE_HOME: pip's, ruff's, ...): writable in the box and
// shared by confined runs alone. The user's own caches are read-only
// there, so a test cannot plant a build in them, and a read-only build
// cache is not enough for go test (it fails "[setup failed]" when it must
// write one). The first confined run fills it: a one-time warm-up.
func BoxCache(home string) string { return filepath.Join(home, "sandbox-cache") }

// bwrapArgs confine command to dir: everything read-only but dir, a
// private /tmp (TMPDIR points there) and cache when given; a minimal /dev
// and the namespace's own /proc, no network, no IPC or hostname shared, a
// new session (no typing into cra's terminal), and death with cra.
func bwrapArgs(dir, cache, command string) []string {
	args := []string{"--die-with-parent", "--new-session", "--unshare-all",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--bind", dir, dir, "--chdir", dir, "--setenv", "TMPDIR", "/tmp"}
	if cache != "" {
		args = append(args, "--bind", cache, cache,
			"--setenv", "GOCACHE", filepath.Join(cache, "go-build"), "--setenv", "XDG_CACHE_HOME", filepath.Join(cache, "xdg"))
	}
	return append(args, "--", "sh", "-c", command)
}

// bwrapUsable is bubblewrap's path when it is installed and can build its
// namespaces here (user namespaces can be off, or a container can forbid
// them); each bwrap found on PATH is tried once per process.
func bwrapUsable() (string, error) {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("bwrap is not installed")
	}
	probe, _ := bwrapProbes.LoadOrStore(path, sync.OnceValue(func() error { return probeBwrap(path) }))
	return path, probe.(func() error)()
}

var bwrapProbes sync.Map // bwrap's path → func() error, its probe's result

// probeBwrap runs a command in the box bubblewrap at path builds.
func probeBwrap(path string) error {
	dir, err := os.MkdirTemp("", "cra-bwrap-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, path, bwrapArgs(dir, "", "touch ok")...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", path, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// makeCache makes BoxCache's directories.
func makeCache(cache string) error {
	for _, sub := range []string{"go-build", "xdg"} {
		if err := os.MkdirAll(filepath.Join(cache, sub), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// command is the process that runs line in dir inside the box, marked
// with dir for KillLeftovers.
func (b Box) command(ctx context.Context, dir, line string) *exec.Cmd {
	dir = resolved(dir)
	var cmd *exec.Cmd
	if b.bwrap != "" {
		cmd = exec.CommandContext(ctx, b.bwrap, bwrapArgs(dir, b.cache, line)...)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", line)
	}
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(b.Env), LeftoverVar+"="+dir)
	if !slices.ContainsFunc(b.Env, func(kv string) bool { return strings.HasPrefix(kv, "CI=") }) {
		cmd.Env = append(cmd.Env, "CI=true")
	}
	// Its own process group, killed whole on timeout; the direct child
	// dies with cra (bubblewrap takes its namespace with it).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// resolved is dir with its symbolic links resolved (bubblewrap binds the
// real path), or dir as it is once it is gone: the one spelling a run's
// processes are marked with.
func resolved(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// KillLeftovers kills every process of this user whose environment marks
// it as started by a test run in the worktree dir, and says how many it
// killed: children that left the run's process group (setsid, daemons)
// or outlived a killed cra. On a system without /proc it does nothing.
func KillLeftovers(dir string) int {
	killed := map[int]bool{}
	// A leftover forking as it is killed can leave a child: a few passes.
	for range 3 {
		pids := Leftovers(dir)
		for _, pid := range pids {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed[pid] = true
			}
		}
		if len(pids) == 0 {
			break
		}
	}
	return len(killed)
}

// Leftovers are the processes whose environment marks them as started by
// a test run in the worktree dir (a zombie has no environment left).
func Leftovers(dir string) []int {
	marker := []byte(LeftoverVar + "=" + resolved(dir) + "\x00")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or another user's
		}
		if bytes.HasPrefix(env, marker) || bytes.Contains(env, append([]byte{0}, marker...)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
