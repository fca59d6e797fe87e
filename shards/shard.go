package shards

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
)

// Environment variables a Kubernetes Indexed Job sets (the index) and a
// manifest sets once for every pod (the count).
const (
	EnvIndex = "JOB_COMPLETION_INDEX"
	EnvCount = "CRA_SHARD_COUNT"
)

// Shard is shard K (0-based, as Kubernetes' JOB_COMPLETION_INDEX) of N.
type Shard struct {
	K, N int
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Parse reads "K/N".
func Parse(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	if !ok || kerr != nil || nerr != nil {
		return Shard{}, usage.Errorf("--shard %q: write K/N, e.g. 0/4 (K counts from 0)", s)
	}
	return check(Shard{K: k, N: n}, "--shard "+s)
}

func check(s Shard, what string) (Shard, error) {
	switch {
	case s.N < 1:
		return Shard{}, usage.Errorf("%s: the shard count must be at least 1", what)
	case s.K < 0 || s.K >= s.N:
		return Shard{}, usage.Errorf("%s: the shard index must be from 0 to %d (K counts from 0, K < N)", what, s.N-1)
	}
	return s, nil
}

// Spec is what the command line says about the shard: --shard K/N, or
// --shard-count N (0 when not given) with K from the environment.
type Spec struct {
	Flag  string
	Count int
	// CountSet: --shard-count was given (a 0 given is an error, not absent).
	CountSet bool
}

// Resolve finds the shard: --shard K/N when given; else K from
// JOB_COMPLETION_INDEX and N from --shard-count or CRA_SHARD_COUNT, so a
// manifest passes no per-pod arguments. ok is false when neither says
// anything (every input is kept). getenv is os.Getenv outside tests.
func Resolve(spec Spec, getenv func(string) string) (s Shard, ok bool, err error) {
	if spec.Flag != "" {
		s, err := Parse(spec.Flag)
		return s, err == nil, err
	}
	index := strings.TrimSpace(getenv(EnvIndex))
	count, countFrom := spec.Count, "--shard-count"
	if !spec.CountSet {
		countFrom = EnvCount
		if c := strings.TrimSpace(getenv(EnvCount)); c != "" {
			n, err := strconv.Atoi(c)
			if err != nil {
				return Shard{}, false, usage.Errorf("%s=%q: set it to the number of shards (an integer, at least 1)", EnvCount, c)
			}
			count, spec.CountSet = n, true
		}
	}
	switch {
	case index == "" && !spec.CountSet:
		return Shard{}, false, nil
	case index == "":
		return Shard{}, false, usage.Errorf("%s gives the shard count but %s is not set: give --shard K/N, or run as a Kubernetes Indexed Job", countFrom, EnvIndex)
	case !spec.CountSet:
		return Shard{}, false, usage.Errorf("%s=%s but no shard count: set %s (or --shard-count) to the Job's completions, or give --shard K/N", EnvIndex, index, EnvCount)
	}
	k, err := strconv.Atoi(index)
	if err != nil {
		return Shard{}, false, usage.Errorf("%s=%q: not a shard index (an integer from 0)", EnvIndex, index)
	}
	s, err = check(Shard{K: k, N: count}, fmt.Sprintf("%s=%s with %s %d", EnvIndex, index, countFrom, count))
	return s, err == nil, err
}

// Key is the stable key of a repository: its remote.origin.url when it has
// one, normalised (credentials stripped, a trailing "/" and ".git" removed,
// so https://x/a.git and https://x/a agree), else the base name of its
// path. The same clone gets the same key on every machine, wherever it is
// cloned to.
func Key(ctx context.Context, repo string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "config", "--get", "remote.origin.url").Output()
	if u := strings.TrimSpace(string(out)); err == nil && u != "" {
		return NormalizeURL(u)
	}
	return filepath.Base(filepath.Clean(repo))
}

// NormalizeURL is a remote URL as Key uses it.
func NormalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if p, err := url.Parse(u); err == nil && p.Scheme != "" && p.Host != "" {
		p.User = nil
		u = p.String()
	}
	for {
		t := strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
		if t == u {
			return u
		}
		u = t
	}
}

// Of is the shard of N a key falls in: FNV-1a 64 of the key, mod N. A
// test pins keys to their shards: changing the hash moves every
// repository, so it must not change silently.
func Of(key string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64() % uint64(n))
}

// Selection is what Select kept.
type Selection struct {
	Shard Shard
	Kept  []string
	Of    int // inputs given
}

// Select keeps the inputs whose key falls in shard s, in their order.
func Select(ctx context.Context, inputs []string, s Shard) Selection {
	sel := Selection{Shard: s, Of: len(inputs)}
	for _, in := range inputs {
		if Of(Key(ctx, in), s.N) == s.K {
			sel.Kept = append(sel.Kept, in)
		}
	}
	return sel
}
