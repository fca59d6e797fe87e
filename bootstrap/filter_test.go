package bootstrap

import (
	"strings"
	"testing"

	"github.com/cra-dev/cra/internal/config"
)

func TestFilter(t *testing.T) {
	py := []FileStat{{Path: "app/store.py", Insertions: 3, Deletions: 1}}
	human := "Ada Tester <ada@example.com>"
	cases := []struct {
		name   string
		c      CommitInfo
		reason string
	}{
		{"qualifies", CommitInfo{Message: "Fix the cache key for empty names", Files: py}, ""},
		{"body and trailers do not matter", CommitInfo{Message: "Handle missing keys in Store.get\n\nDetails.\n\nSigned-off-by: A <a@b>", Files: py}, ""},
		{"merge first", CommitInfo{Parents: 2, Message: "wip", Files: py}, ReasonMerge},
		{"bot author", CommitInfo{Author: "dependabot[bot] <support@github.com>", Message: "Bump lodash from 4.17.1 to 4.17.21 in web", Files: py}, ReasonBot},
		{"bot committer", CommitInfo{Committer: "GitHub Actions <github-actions@github.com>", Message: "Regenerate the API client models", Files: py}, ReasonBot},
		{"renovate", CommitInfo{Author: "Renovate Bot <bot@renovateapp.com>", Message: "Update dependency pytest to v8 everywhere", Files: py}, ReasonBot},
		{"cra's own commit", CommitInfo{Author: "cra <cra@localhost>", Committer: "cra <cra@localhost>", Message: "Handle missing keys in Store.get", Files: py}, ReasonAgent},
		{"cra as committer only", CommitInfo{Committer: "cra <cra@localhost>", Message: "Handle missing keys in Store.get", Files: py}, ReasonAgent},
		{"cra's email under another name and case", CommitInfo{Author: "Someone <CRA@localhost>", Message: "Handle missing keys in Store.get", Files: py}, ReasonAgent},
		{"agent before message rules", CommitInfo{Author: "cra <cra@localhost>", Message: "wip", Files: py}, ReasonAgent},
		{"merge before agent", CommitInfo{Parents: 2, Author: "cra <cra@localhost>", Message: "Handle missing keys in Store.get", Files: py}, ReasonMerge},
		{"a human named cra", CommitInfo{Author: "cra <cra@example.com>", Message: "Handle missing keys in Store.get", Files: py}, ""},
		{"another user at localhost", CommitInfo{Author: "Ada <ada@localhost>", Message: "Handle missing keys in Store.get", Files: py}, ""},
		{"cra's email as a prefix", CommitInfo{Author: "Ada <cra@localhost.example.com>", Message: "Handle missing keys in Store.get", Files: py}, ""},
		{"short", CommitInfo{Message: "wip", Files: py}, ReasonMessageShort},
		{"three words", CommitInfo{Message: "Fix the parser", Files: py}, ReasonMessageShort},
		{"tags do not count as words", CommitInfo{Message: "[skip ci] [docs] fix parser crash", Files: py}, ReasonMessageShort},
		{"scope prefix does not count", CommitInfo{Message: "fix(parser): handle tabs", Files: py}, ReasonMessageShort},
		{"scope prefix with enough words", CommitInfo{Message: "fix(parser): handle tabs in indented blocks", Files: py}, ""},
		{"path scope", CommitInfo{Message: "ingest/lang: count error nodes in recovered trees", Files: py}, ""},
		{"merge subject on a squash", CommitInfo{Message: "Merge branch 'main' into feature/login-form", Files: py}, ReasonMessageNoise},
		{"revert", CommitInfo{Message: "Revert \"Add a cache to the resolver\"", Files: py}, ReasonMessageNoise},
		{"version bump", CommitInfo{Message: "Bump version from 1.2.3 to 1.2.4", Files: py}, ReasonMessageNoise},
		{"release", CommitInfo{Message: "Release 2.0.0 of the client library", Files: py}, ReasonMessageNoise},
		{"prepare release", CommitInfo{Message: "Prepare 1.4.0 for the next release", Files: py}, ReasonMessageNoise},
		{"fixup", CommitInfo{Message: "fixup! Handle missing keys in Store.get", Files: py}, ReasonMessageNoise},
		{"issue numbers only", CommitInfo{Message: "#123, #456, GH-789 and more", Files: py}, ""},
		{"bare issue numbers", CommitInfo{Message: "[fix] #123 #456 #789 #1011", Files: py}, ReasonMessageNoise},
		{"bare jira keys", CommitInfo{Message: "PROJ-12 PROJ-13 PROJ-14 PROJ-15", Files: py}, ReasonMessageNoise},
		{"no files", CommitInfo{Message: "Record the empty release marker commit"}, ReasonNoFiles},
		{"binary", CommitInfo{Message: "Add the logo next to the store module", Files: append([]FileStat{{Path: "logo.png", Binary: true}}, py...)}, ReasonBinary},
		{"lockfile", CommitInfo{Message: "Add the requests dependency to the client", Files: append([]FileStat{{Path: "web/package-lock.json", Insertions: 900}}, py...)}, ReasonLockfile},
		{"go.sum", CommitInfo{Message: "Use the new errors package in the store", Files: append([]FileStat{{Path: "go.sum", Insertions: 2}}, py...)}, ReasonLockfile},
		{"vendored", CommitInfo{Message: "Patch the vendored yaml parser for tabs", Files: []FileStat{{Path: "vendor/gopkg.in/yaml/parse.go", Insertions: 2}}}, ReasonVendored},
		{"generated", CommitInfo{Message: "Regenerate the protobuf bindings for the API", Files: []FileStat{{Path: "api/v1/service.pb.go", Insertions: 2}}}, ReasonGenerated},
		{"minified", CommitInfo{Message: "Rebuild the bundled widget script for release", Files: []FileStat{{Path: "static/app.min.js", Insertions: 1}}}, ReasonGenerated},
		{"docs only", CommitInfo{Message: "Explain the cache settings in the README", Files: []FileStat{{Path: "README.md", Insertions: 10}}}, ReasonNoSource},
		{"docs beside code", CommitInfo{Message: "Explain and fix the cache settings", Files: append([]FileStat{{Path: "README.md", Insertions: 10}}, py...)}, ""},
		{"too many files", CommitInfo{Message: "Rename the logger in every module of the app", Files: []FileStat{
			{Path: "a.py"}, {Path: "b.py"}, {Path: "c.py"}, {Path: "d.py"}, {Path: "e.py"}, {Path: "f.py"}}}, ReasonTooManyFiles},
		{"too many lines", CommitInfo{Message: "Rewrite the store module around a dict", Files: []FileStat{{Path: "app/store.py", Insertions: 150, Deletions: 60}}}, ReasonTooManyLines},
		{"lines of every file count", CommitInfo{Message: "Rewrite the store module and its docs", Files: []FileStat{
			{Path: "app/store.py", Insertions: 100}, {Path: "docs/store.md", Insertions: 101}}}, ReasonTooManyLines},
	}
	f, err := NewFilter(config.Default().Bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.c.Author == "" {
				c.c.Author = human
			}
			if c.c.Committer == "" {
				c.c.Committer = human
			}
			if got, detail := f.Check(c.c); got != c.reason {
				t.Errorf("Check(%q) = %q (%s), want %q", c.c.Message, got, detail, c.reason)
			}
		})
	}
}

func TestFilterImperativeAndConfig(t *testing.T) {
	cfg := config.Default().Bootstrap
	cfg.RequireImperative = true
	f, err := NewFilter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	files := []FileStat{{Path: "x.go", Insertions: 1}}
	for msg, want := range map[string]string{
		"Add a retry to the HTTP client":         "",
		"fix: handle a nil map in the store":     "",
		"Fixed the nil map in the store":         ReasonNotImperative,
		"Adds a retry to the HTTP client":        ReasonNotImperative,
		"The store now handles a nil map safely": ReasonNotImperative,
	} {
		if got, _ := f.Check(CommitInfo{Message: msg, Files: files}); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}

	cfg = config.Default().Bootstrap
	cfg.MaxFiles, cfg.BotPatterns = 1, []string{"ci-robot"}
	f, _ = NewFilter(cfg)
	two := []FileStat{{Path: "a.go"}, {Path: "b.go"}}
	if got, _ := f.Check(CommitInfo{Message: "Share the helper between the two files", Files: two}); got != ReasonTooManyFiles {
		t.Errorf("max_files 1 with two files: %q", got)
	}
	if got, _ := f.Check(CommitInfo{Author: "CI Robot <ci-robot@example.com>", Message: "Share the helper between the files", Files: files}); got != ReasonBot {
		t.Errorf("configured bot pattern: %q", got)
	}
	cfg.BotPatterns = nil
	f, _ = NewFilter(cfg)
	if got, _ := f.Check(CommitInfo{Author: "cra <cra@localhost>", Message: "Share the helper between the files", Files: files}); got != ReasonAgent {
		t.Errorf("cra's commit with no bot patterns: %q; the rule is not configurable", got)
	}

	cfg.NoisePatterns = []string{"(unclosed"}
	if _, err := NewFilter(cfg); err == nil || !strings.Contains(err.Error(), "bootstrap.noise_patterns") {
		t.Errorf("bad pattern: %v; want an error naming bootstrap.noise_patterns", err)
	}
}

func TestCleanMessage(t *testing.T) {
	for msg, want := range map[string]string{
		"Fix the parser\n\nIt crashed on tabs.\n\nSigned-off-by: A <a@b>\nCo-authored-by: B <b@c>\n": "Fix the parser\n\nIt crashed on tabs.",
		"Fix the parser [skip ci]\n": "Fix the parser",
		"Fix the parser   \n\n\n\nMore text.  \n(cherry picked from commit 0123abcd)\n":        "Fix the parser\n\nMore text.",
		"fix(parser): handle tabs\n\nChange-Id: I0123456789abcdef\nReviewed-on: https://x/1\n": "fix(parser): handle tabs",
		"Keep: the colon in prose\n": "Keep: the colon in prose",
	} {
		if got := CleanMessage(msg); got != want {
			t.Errorf("CleanMessage(%q) = %q, want %q", msg, got, want)
		}
	}
	for subject, want := range map[string]string{
		"[WIP] [skip ci] Fix parser":        "Fix parser",
		"feat(api)!: drop the v1 endpoints": "drop the v1 endpoints",
		"ingest/lang: count error nodes":    "count error nodes",
		"Fix: a thing [docs]":               "a thing",
	} {
		if got := StripSubject(subject); got != want {
			t.Errorf("StripSubject(%q) = %q, want %q", subject, got, want)
		}
	}
}
