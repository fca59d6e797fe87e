package gittest

import "testing"

// AskHistory is a small Python command-line tool for cra ask --eval's
// tests, with one question of each kind to generate:
//   - diagnostic: require raises UsageError("Missing parameter: {name}");
//   - exploratory: main → parse → convert → check (names unique);
//   - conceptual: tool/formatting.py's module docstring;
//   - bug report: the second commit, "Fix crash when the name is empty",
//     changes require (tool/core.py) to call a new _is_blank and adds
//     tool/names.py: neither may be seen by a question asked at its
//     parent. The third commit is no bug fix.
type AskHistory struct {
	*Repo
	Base, Fix, Feature string // the three commits
}

// AskCoreBefore and AskCoreAfter are tool/core.py before and after the fix.
const (
	AskCoreBefore = `"""Commands and their parameters."""


class UsageError(Exception):
    pass


def require(name, value):
    if value is None:
        raise UsageError(f"Missing parameter: {name}")
    return value


def main(args):
    return parse(args)


def parse(args):
    return convert(args)


def convert(args):
    return check(args)


def check(args):
    return require("name", args.get("name"))
`
	AskCoreAfter = `"""Commands and their parameters."""
from tool.names import normalize_name


class UsageError(Exception):
    pass


def _is_blank(value):
    return value is None or normalize_name(value) == ""


def require(name, value):
    if _is_blank(value):
        raise UsageError(f"Missing parameter: {name}")
    return value


def main(args):
    return parse(args)


def parse(args):
    return convert(args)


def convert(args):
    return check(args)


def check(args):
    return require("name", args.get("name"))
`
)

// NewAskHistory builds an AskHistory.
func NewAskHistory(t testing.TB) AskHistory {
	r := New(t)
	r.Write("tool/__init__.py", "")
	r.Write("tool/core.py", AskCoreBefore)
	r.Write("tool/formatting.py", `"""Wrap long help text into columns that fit the terminal width."""


def wrap(text, width):
    return [text[i:i + width] for i in range(0, len(text), width)]
`)
	h := AskHistory{Repo: r}
	h.Base = r.Commit("Create the command-line tool with its parameters and help formatting")
	r.Write("tool/core.py", AskCoreAfter)
	r.Write("tool/names.py", "def normalize_name(value):\n    return value.strip()\n")
	h.Fix = r.Commit("Fix crash when the name is empty")
	r.Write("tool/formatting.py", `"""Wrap long help text into columns that fit the terminal width."""


def wrap(text, width=80):
    return [text[i:i + width] for i in range(0, len(text), width)]
`)
	h.Feature = r.Commit("Let wrap default to eighty columns")
	return h
}
