package bootstrap

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/cra-dev/cra/ingest/walk"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb/schema"
)

// Rejection reasons of the commit filter, in the order its rules apply:
// a commit is counted under the first rule it fails.
const (
	ReasonMerge         = "merge"                  // more than one parent
	ReasonBot           = "bot"                    // author or committer matches [bootstrap] bot_patterns
	ReasonAgent         = "agent_commit"           // written by cra itself (schema.AgentEmail): never its own training data
	ReasonMessageShort  = "message_short"          // subject under min_subject_chars or min_subject_words
	ReasonMessageNoise  = "message_noise"          // subject matches noise_patterns
	ReasonNotImperative = "message_not_imperative" // require_imperative and no imperative verb first
	ReasonNoFiles       = "no_files"               // an empty commit
	ReasonBinary        = "binary"                 // a binary file: edits cannot express it
	ReasonLockfile      = "lockfile"               // a dependency lockfile
	ReasonVendored      = "vendored"               // a path under vendor/, node_modules/, ...
	ReasonGenerated     = "generated"              // a file named like generated code
	ReasonNoSource      = "no_source_language"     // no file in a language cra parses
	ReasonTooManyFiles  = "too_many_files"         // more than max_files source files
	ReasonTooManyLines  = "too_many_lines"         // more than max_changed_lines lines added plus deleted
)

// FilterReasons lists the rejection reasons in funnel order.
var FilterReasons = []string{
	ReasonMerge, ReasonBot, ReasonAgent, ReasonMessageShort, ReasonMessageNoise, ReasonNotImperative,
	ReasonNoFiles, ReasonBinary, ReasonLockfile, ReasonVendored, ReasonGenerated,
	ReasonNoSource, ReasonTooManyFiles, ReasonTooManyLines,
}

// CommitInfo is what the filter sees of a commit.
type CommitInfo struct {
	Hash      string
	Parents   int
	Author    string // "Name <email>"
	Committer string // "Name <email>"
	Message   string
	Files     []FileStat // changed against the first parent
}

// FileStat is one changed file with its numstat figures.
type FileStat struct {
	Path                  string
	Insertions, Deletions int
	Binary                bool
}

// Filter decides which commits become ground truth. Its message rules are
// modelled on CommitPackFT's: a subject long enough to describe a task,
// not noise, optionally starting with an imperative verb; its file rules
// keep small changes of source code a model could make from the message.
type Filter struct {
	cfg       config.Bootstrap
	bots      []string
	noise     []*regexp.Regexp
	lockfiles map[string]bool
}

// NewFilter compiles the [bootstrap] rules; a bad pattern is an error
// naming its key.
func NewFilter(cfg config.Bootstrap) (*Filter, error) {
	f := &Filter{cfg: cfg, lockfiles: map[string]bool{}}
	for _, b := range cfg.BotPatterns {
		f.bots = append(f.bots, strings.ToLower(b))
	}
	for _, p := range cfg.NoisePatterns {
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			return nil, fmt.Errorf("bootstrap.noise_patterns: %q: %w", p, err)
		}
		f.noise = append(f.noise, re)
	}
	for _, p := range cfg.GeneratedPatterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("bootstrap.generated_patterns: %q: %w", p, err)
		}
	}
	for _, l := range cfg.Lockfiles {
		f.lockfiles[l] = true
	}
	return f, nil
}

// Check returns "" when c qualifies, else the first rule it fails and a
// few words of detail.
func (f *Filter) Check(c CommitInfo) (reason, detail string) {
	if c.Parents > 1 {
		return ReasonMerge, ""
	}
	for _, who := range []string{c.Author, c.Committer} {
		low := strings.ToLower(who)
		for _, b := range f.bots {
			if b != "" && strings.Contains(low, b) {
				return ReasonBot, who
			}
		}
	}
	for _, who := range []string{c.Author, c.Committer} {
		if isAgent(who) {
			return ReasonAgent, who
		}
	}
	subject := StripSubject(Subject(c.Message))
	words := strings.Fields(subject)
	if len([]rune(subject)) < f.cfg.MinSubjectChars || len(words) < f.cfg.MinSubjectWords {
		return ReasonMessageShort, subject
	}
	for _, re := range f.noise {
		if re.MatchString(subject) {
			return ReasonMessageNoise, subject
		}
	}
	if f.cfg.RequireImperative && !imperativeVerbs[strings.ToLower(words[0])] {
		return ReasonNotImperative, words[0]
	}
	if len(c.Files) == 0 {
		return ReasonNoFiles, ""
	}
	sources, lines := 0, 0
	for _, fs := range c.Files {
		lines += fs.Insertions + fs.Deletions
		base := path.Base(fs.Path)
		switch {
		case fs.Binary:
			return ReasonBinary, fs.Path
		case f.lockfiles[base]:
			return ReasonLockfile, fs.Path
		case walk.VendoredPath(fs.Path):
			return ReasonVendored, fs.Path
		case f.generated(base):
			return ReasonGenerated, fs.Path
		}
		if walk.SourceFile(fs.Path) {
			sources++
		}
	}
	switch {
	case sources == 0:
		return ReasonNoSource, ""
	case sources > f.cfg.MaxFiles:
		return ReasonTooManyFiles, fmt.Sprintf("%d source files", sources)
	case lines > f.cfg.MaxChangedLines:
		return ReasonTooManyLines, fmt.Sprintf("%d lines", lines)
	}
	return "", ""
}

// isAgent reports whether who ("Name <email>") is cra's own identity: a
// rule, not a bot pattern, so no configuration can let cra's output back
// into its training data.
func isAgent(who string) bool {
	_, email, ok := strings.Cut(who, "<")
	email, _, closed := strings.Cut(email, ">")
	return ok && closed && strings.EqualFold(strings.TrimSpace(email), schema.AgentEmail)
}

func (f *Filter) generated(base string) bool {
	if walk.MinifiedName(base) {
		return true
	}
	for _, p := range f.cfg.GeneratedPatterns {
		if ok, _ := path.Match(p, base); ok {
			return true
		}
	}
	return false
}

// imperativeVerbs start the subjects require_imperative accepts.
var imperativeVerbs = toSet(`add adjust allow apply avoid build bump change check clarify clean close
	configure convert copy correct create declare default define delete deprecate detect disable
	document drop emit enable enforce ensure escape expand expose extend extract factor fix flush
	forbid guard handle hide ignore implement import improve include increase inline introduce keep
	let limit load log make mark merge migrate move normalize normalise optimize optimise parse pass
	port prefer prepare preserve prevent print propagate protect provide raise read rebuild record
	reduce refactor reject release remove rename reorder replace report require reset resolve
	restore restrict retry return reuse revert rewrite run save send separate set share show simplify
	skip sort speed split start stop store strip support switch teach test throw tidy track treat
	trim tweak unify update upgrade use validate verify wait warn wrap write`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Subject is the first line of a commit message.
func Subject(msg string) string {
	s, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n")
	return strings.TrimSpace(s)
}

var (
	// bracketTag is a [tag] at either end of a subject: [skip ci], [WIP], [docs].
	bracketTag = regexp.MustCompile(`^\s*\[[^\]]{1,30}\]\s*|\s*\[[^\]]{1,30}\]\s*$`)
	// scopePrefix is a conventional-commit type(scope)!: or a path-like
	// scope: at the start of a subject (fix(parser):, kb:, ingest/lang:).
	scopePrefix = regexp.MustCompile(`^[\w./-]+(\([^)]*\))?!?:\s+`)
)

// StripSubject removes what is not the task from a subject: [tags] at
// either end and a conventional-commit or scope prefix.
func StripSubject(s string) string {
	for {
		t := bracketTag.ReplaceAllString(s, "")
		t = scopePrefix.ReplaceAllString(t, "")
		t = strings.TrimSpace(t)
		if t == s {
			return s
		}
		s = t
	}
}

var (
	// ciTag is a CI directive anywhere in a message.
	ciTag = regexp.MustCompile(`(?i)\s*\[(skip ci|ci skip|no ci|skip actions|actions skip)\]`)
	// trailer is a git trailer line ("Key: value") of the kinds that say
	// who, not what.
	trailer = regexp.MustCompile(`(?i)^(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|cc|change-id|reviewed-on|pr-url|fixes|closes|refs)\s*:`)
	// cherryPick is the line `git cherry-pick -x` adds.
	cherryPick = regexp.MustCompile(`^\(cherry picked from commit [0-9a-f]+\)$`)
)

// CleanMessage turns a commit message into a task description: CI tags
// and trailers (Signed-off-by, Co-authored-by, Change-Id, ...) and
// cherry-pick notes removed, trailing spaces trimmed, paragraphs kept and
// runs of blank lines collapsed. The subject keeps any scope prefix
// (fix(parser): ...): it says where the change is.
func CleanMessage(msg string) string {
	var lines []string
	for _, l := range strings.Split(ciTag.ReplaceAllString(msg, ""), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if trailer.MatchString(strings.TrimSpace(l)) || cherryPick.MatchString(strings.TrimSpace(l)) {
			continue
		}
		if l == "" && (len(lines) == 0 || lines[len(lines)-1] == "") {
			continue
		}
		lines = append(lines, l)
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
