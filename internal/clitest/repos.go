package clitest

import (
	"testing"

	"github.com/cra-dev/cra/internal/gittest"
)

// CalcRepo is a small Python project whose add is wrong, with its tests.
func CalcRepo(t testing.TB) *gittest.Repo {
	r := gittest.New(t)
	r.Write("calc.py", CalcSrc)
	r.Write("util.py", "def helper():\n    return 1\n")
	r.Write("tests/__init__.py", "")
	r.Write("tests/test_calc.py", CalcTests)
	r.Commit("calc with a wrong add")
	return r
}

// HistoryRepo has one commit of each kind bootstrap's funnel separates.
func HistoryRepo(t testing.TB) *gittest.Repo {
	r := gittest.New(t)
	r.Write("app/store.py", "class Store:\n    def get(self, key):\n        return key\n")
	r.Write("app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key)\n")
	r.Commit("Create the store and the API handler")
	r.Write("app/store.py", "class Store:\n    def get(self, key, default=None):\n        return key or default\n")
	r.Commit("Let Store.get fall back to a default value")
	r.Write("app/api.py", "from app.store import Store\n\n\ndef handler(key):\n    return Store().get(key, '')\n")
	r.Commit("wip")
	r.Write("requirements.txt", "requests==2.0\n")
	r.CommitAs("dependabot[bot] <bot@example.com>", "Bump requests from 1.0 to 2.0 in the python group")
	return r
}

// SmallRepo is two commits of a Python package and an image.
func SmallRepo(t testing.TB) *gittest.Repo {
	r := gittest.New(t)
	r.Write("pkg/util.py", "def helper(x):\n    return x\n")
	r.Write("pkg/main.py", "from pkg.util import helper\n\n\ndef run():\n    return helper(1)\n")
	r.WriteBytes("logo.png", []byte("\x89PNG\x00\x00"))
	r.Commit("first")
	r.Write("pkg/util.py", "def helper(x):\n    return x + 1\n")
	r.Commit("second")
	return r
}
