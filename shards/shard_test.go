package shards

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
	"github.com/cra-dev/cra/internal/usage"
)

// The hash is pinned: a change of it moves every repository to another
// shard, so it must fail here first. FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c
// (the published test vector): 12638187200555641996 mod 7 = 0.
func TestOfPinsKeysToShards(t *testing.T) {
	for _, c := range []struct {
		key  string
		n    int
		want int
	}{
		{"a", 7, int(uint64(0xaf63dc4c8601ec8c) % 7)},
		{"a", 1000, int(uint64(0xaf63dc4c8601ec8c) % 1000)},
		{"https://github.com/psf/requests", 2, 1},
		{"https://github.com/psf/requests", 3, 0},
		{"https://github.com/psf/requests", 16, 15},
		{"https://github.com/pallets/click", 3, 2},
		{"https://github.com/pallets/click", 5, 2},
		{"git@github.com:cra-dev/cra", 5, 4},
		{"requests", 5, 3},
		{"lib0", 16, 4},
		{"anything", 1, 0},
	} {
		if got := Of(c.key, c.n); got != c.want {
			t.Errorf("Of(%q, %d) = %d, want %d", c.key, c.n, got, c.want)
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://github.com/psf/requests.git", "https://github.com/psf/requests"},
		{"https://github.com/psf/requests", "https://github.com/psf/requests"},
		{"https://github.com/psf/requests/", "https://github.com/psf/requests"},
		{"https://github.com/psf/requests.git/", "https://github.com/psf/requests"},
		{"https://user:token@github.com/psf/requests.git", "https://github.com/psf/requests"},
		{"ssh://git@example.com/a/b.git", "ssh://example.com/a/b"},
		{"git@github.com:psf/requests.git", "git@github.com:psf/requests"},
		{"/srv/git/requests.git", "/srv/git/requests"},
		{"https://github.com/a/gitops", "https://github.com/a/gitops"},
	} {
		if got := NormalizeURL(c.in); got != c.want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A clone is keyed by its origin, wherever it is cloned; one without a
// remote (or no repository at all) by its folder's name.
func TestKey(t *testing.T) {
	ctx := context.Background()
	a := gittest.New(t)
	a.Git("remote", "add", "origin", "https://x:y@example.com/org/a.git")
	b := gittest.New(t)
	b.Git("remote", "add", "origin", "https://example.com/org/a/")
	if ka, kb := Key(ctx, a.Dir), Key(ctx, b.Dir); ka != "https://example.com/org/a" || ka != kb {
		t.Errorf("keys %q and %q, want both https://example.com/org/a", ka, kb)
	}
	plain := gittest.New(t)
	if k := Key(ctx, plain.Dir); k != filepath.Base(plain.Dir) {
		t.Errorf("no remote: key %q, want the folder's name %q", k, filepath.Base(plain.Dir))
	}
	if k := Key(ctx, "/no/such/place/requests/"); k != "requests" {
		t.Errorf("not a repository: key %q, want requests", k)
	}
}

// Every input lands in exactly one shard, whatever the order.
func TestSelectPartitions(t *testing.T) {
	ctx := context.Background()
	inputs := []string{"/c/alpha", "/c/beta", "/c/gamma", "/c/delta", "/c/epsilon", "/c/zeta", "/c/eta"}
	reversed := slices.Clone(inputs)
	slices.Reverse(reversed)
	var all []string
	for k := range 3 {
		sel := Select(ctx, inputs, Shard{K: k, N: 3})
		if sel.Of != len(inputs) {
			t.Errorf("shard %d: of %d, want %d", k, sel.Of, len(inputs))
		}
		back := Select(ctx, reversed, Shard{K: k, N: 3}).Kept
		slices.Sort(back)
		kept := slices.Clone(sel.Kept)
		slices.Sort(kept)
		if !slices.Equal(kept, back) {
			t.Errorf("shard %d keeps %v, or %v in the other order", k, kept, back)
		}
		all = append(all, sel.Kept...)
	}
	slices.Sort(all)
	want := slices.Clone(inputs)
	slices.Sort(want)
	if !slices.Equal(all, want) {
		t.Errorf("the shards hold %v, want each of %v once", all, want)
	}
}

func TestResolve(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name  string
		spec  Spec
		env   func(string) string
		want  Shard
		ok    bool
		usage bool
	}{
		{"nothing", Spec{}, env(), Shard{}, false, false},
		{"flag", Spec{Flag: "2/5"}, env(), Shard{2, 5}, true, false},
		{"flag first", Spec{Flag: "0/1"}, env(EnvIndex, "3", EnvCount, "4"), Shard{0, 1}, true, false},
		{"last", Spec{Flag: "4/5"}, env(), Shard{4, 5}, true, false},
		{"K = N", Spec{Flag: "5/5"}, env(), Shard{}, false, true},
		{"N = 0", Spec{Flag: "0/0"}, env(), Shard{}, false, true},
		{"negative", Spec{Flag: "-1/3"}, env(), Shard{}, false, true},
		{"no slash", Spec{Flag: "3"}, env(), Shard{}, false, true},
		{"words", Spec{Flag: "a/b"}, env(), Shard{}, false, true},
		{"env", Spec{}, env(EnvIndex, "1", EnvCount, "3"), Shard{1, 3}, true, false},
		{"env and flag count", Spec{Count: 4, CountSet: true}, env(EnvIndex, "3", EnvCount, "2"), Shard{3, 4}, true, false},
		{"index without count", Spec{}, env(EnvIndex, "1"), Shard{}, false, true},
		{"count without index", Spec{}, env(EnvCount, "3"), Shard{}, false, true},
		{"flag count without index", Spec{Count: 3, CountSet: true}, env(), Shard{}, false, true},
		{"index past count", Spec{}, env(EnvIndex, "3", EnvCount, "3"), Shard{}, false, true},
		{"bad count", Spec{}, env(EnvIndex, "0", EnvCount, "three"), Shard{}, false, true},
		{"zero count", Spec{Count: 0, CountSet: true}, env(EnvIndex, "0"), Shard{}, false, true},
		{"bad index", Spec{}, env(EnvIndex, "x", EnvCount, "2"), Shard{}, false, true},
	} {
		got, ok, err := Resolve(c.spec, c.env)
		if got != c.want || ok != c.ok || (err != nil) != c.usage || (err != nil && !usage.Is(err)) {
			t.Errorf("%s: got %v %v %v, want %v %v usage error %v", c.name, got, ok, err, c.want, c.ok, c.usage)
		}
		if err != nil && errors.Unwrap(err) == nil && err.Error() == "" {
			t.Errorf("%s: an empty message", c.name)
		}
	}
}
