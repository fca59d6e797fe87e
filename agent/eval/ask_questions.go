package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cra-dev/cra/agent/ask"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Kinds of generated questions (kb/schema names them): what a question was
// made from, the eval's reporting group.
const (
	KindDiagnostic  = schema.AskKindDiagnostic
	KindExploratory = schema.AskKindExploratory
	KindConceptual  = schema.AskKindConceptual
	KindBugReport   = schema.AskKindBugReport
)

// kindMode is the mode a kind's questions are written for.
func kindMode(kind string) ask.Mode { return ask.Mode(schema.AskKindModes[kind]) }

// Question is a question generated from a repository with its known
// answer: the files (and for some kinds the symbols) a right answer
// cites.
type Question struct {
	ID      string   `json:"id"` // ask/<kind>/<hash>
	Kind    string   `json:"kind"`
	Mode    ask.Mode `json:"mode"`
	Repo    string   `json:"repo"`
	Text    string   `json:"question"`
	Files   []string `json:"expected_files"`
	Symbols []Symbol `json:"expected_symbols,omitempty"`
	// Rev is the commit the question is asked at (a bug fix's parent);
	// "" for the home's knowledge base as indexed.
	Rev         string    `json:"rev,omitempty"`
	Commit      string    `json:"fix_commit,omitempty"`
	CommittedAt time.Time `json:"-"`
}

// Symbol is an expected symbol: its qualified name and where it is.
type Symbol struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Start, End int
}

// Cite is the symbol's line range as an answer cites one.
func (s Symbol) Cite() string { return fmt.Sprintf("%s:%d-%d", s.Path, s.Start, s.End) }

// newQuestion fills in the question's id and mode: the id hashes the
// repository, revision and text, so the same question has the same id in
// every eval (a resumed one skips it).
func newQuestion(kind, repo, rev, text string, files []string, syms []Symbol) Question {
	h := sha256.Sum256([]byte(repo + "\x00" + rev + "\x00" + text))
	return Question{ID: "ask/" + kind + "/" + hex.EncodeToString(h[:6]), Kind: kind, Mode: kindMode(kind), Repo: repo,
		Text: text, Files: files, Symbols: syms, Rev: rev}
}

// CodeQuestions generates the diagnostic, exploratory and conceptual
// questions of an indexed repository from the knowledge base that holds
// it.
func CodeQuestions(ctx context.Context, k *kb.KnowledgeBase, repo kb.Repo) ([]Question, error) {
	entries, err := k.SearchCodeIndex(ctx, repo.ID, kb.CodeIndexQuery{Limit: 1 << 30})
	if err != nil {
		return nil, err
	}
	docs, err := moduleDocs(ctx, k, repo.ID)
	if err != nil {
		return nil, err
	}
	out := DiagnosticQuestions(repo.Path, entries)
	out = append(out, ExploratoryQuestions(repo.Path, entries)...)
	return append(out, ConceptualQuestions(repo.Path, docs)...), nil
}

// FileDoc is what a file says of itself: its module docstring, or the
// purpose enrichment recorded.
type FileDoc struct{ Path, Doc string }

// moduleDocs reads each file's module docstring, or its enriched purpose
// when it has none.
func moduleDocs(ctx context.Context, k *kb.KnowledgeBase, repoID int64) ([]FileDoc, error) {
	files, err := k.GetFiles(ctx, repoID, "")
	if err != nil {
		return nil, err
	}
	purpose := map[string]string{}
	ms, err := k.SearchFilesByMetadata(ctx, repoID, kb.MetadataQuery{})
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		purpose[m.File.Path] = m.Metadata.Purpose
	}
	var out []FileDoc
	for _, f := range files {
		ds, err := k.GetDocstringsForFile(ctx, f.ID)
		if err != nil {
			return nil, err
		}
		doc := purpose[f.Path]
		if len(ds) > 0 && ds[0].SymbolID == nil {
			doc = ds[0].Content
		}
		if doc != "" {
			out = append(out, FileDoc{Path: f.Path, Doc: doc})
		}
	}
	return out, nil
}

// DiagnosticQuestions asks, for each function of the code index with an
// error string no other function has, why the error happens, as a user
// would quote it: the exception type when the function raises one type,
// and the message with its placeholders filled in. The answer is the
// function and its file. Test code is left out.
func DiagnosticQuestions(repo string, entries []kb.CodeIndexEntry) []Question {
	owners := map[string]int{}
	for _, e := range entries {
		for _, s := range uniq(e.ErrorStrings) {
			owners[s]++
		}
	}
	var out []Question
	for _, e := range entries {
		if IsTestPath(e.FilePath) {
			continue
		}
		for _, s := range e.ErrorStrings {
			msg := asShown(s)
			if owners[s] != 1 || len(strings.Fields(msg)) < 3 {
				continue
			}
			if len(e.Raises) == 1 {
				msg = lastDotted(e.Raises[0]) + ": " + msg
			}
			out = append(out, newQuestion(KindDiagnostic, repo, "", fmt.Sprintf("Why do I get %q?", msg),
				[]string{e.FilePath}, []Symbol{symbolOf(e)}))
			break
		}
	}
	return out
}

var (
	bracePlaceholder   = regexp.MustCompile(`\{([^{}]*)\}`)
	percentPlaceholder = regexp.MustCompile(`%(\(([A-Za-z_]\w*)\))?[-#0+]*\d*(\.\d+)?[sdrfxi]`)
	identifier         = regexp.MustCompile(`[A-Za-z_]\w*`)
)

// asShown is an error string as a user sees it: each placeholder
// ("{self.width!r}", "%(name)s", "%s") filled with the name of what it
// shows ("width", "name") or "x".
func asShown(s string) string {
	s = bracePlaceholder.ReplaceAllStringFunc(s, func(p string) string {
		expr, _, _ := strings.Cut(strings.Trim(p, "{}"), "!")
		expr, _, _ = strings.Cut(expr, ":")
		ids := identifier.FindAllString(expr, -1)
		if len(ids) == 0 {
			return "x"
		}
		return ids[len(ids)-1]
	})
	s = percentPlaceholder.ReplaceAllStringFunc(s, func(p string) string {
		if m := percentPlaceholder.FindStringSubmatch(p); m[2] != "" {
			return m[2]
		}
		return "x"
	})
	return strings.Join(strings.Fields(s), " ")
}

// ExploratoryQuestions asks to trace call chains of 2 or 3 hops (3 or 4
// functions) whose every name is one function's in the repository, from
// each function that has one: the answer is the chain's functions and
// their files. Test code is left out.
func ExploratoryQuestions(repo string, entries []kb.CodeIndexEntry) []Question {
	byName := map[string][]kb.CodeIndexEntry{}
	for _, e := range entries {
		byName[e.QualifiedName] = append(byName[e.QualifiedName], e)
	}
	callable := func(name string) (kb.CodeIndexEntry, bool) {
		es := byName[name]
		if len(es) != 1 || IsTestPath(es[0].FilePath) || es[0].SymbolType == "class" {
			return kb.CodeIndexEntry{}, false
		}
		return es[0], true
	}
	var out []Question
	for _, e := range entries {
		start, ok := callable(e.QualifiedName)
		if !ok {
			continue
		}
		chain := longestChain([]kb.CodeIndexEntry{start}, callable, 4)
		if len(chain) < 3 {
			continue
		}
		var files []string
		var syms []Symbol
		for _, c := range chain {
			if !slices.Contains(files, c.FilePath) {
				files = append(files, c.FilePath)
			}
			syms = append(syms, symbolOf(c))
		}
		out = append(out, newQuestion(KindExploratory, repo, "",
			fmt.Sprintf("Trace what happens when %s runs, step by step", start.QualifiedName), files, syms))
	}
	return out
}

// longestChain extends chain by callees (in the order the index lists
// them) up to max functions, depth first: the first chain of max, else
// the longest found.
func longestChain(chain []kb.CodeIndexEntry, callable func(string) (kb.CodeIndexEntry, bool), max int) []kb.CodeIndexEntry {
	if len(chain) == max {
		return chain
	}
	best := chain
	for _, name := range chain[len(chain)-1].Calls {
		next, ok := callable(name)
		if !ok || slices.ContainsFunc(chain, func(c kb.CodeIndexEntry) bool { return c.ID == next.ID }) {
			continue
		}
		got := longestChain(append(slices.Clone(chain), next), callable, max)
		if len(got) == max {
			return got
		}
		if len(got) > len(best) {
			best = got
		}
	}
	return best
}

// ConceptualQuestions asks, for each file that describes itself, what
// does what its description's first sentence says, with the file's own
// name taken out of it: the answer is the file. Test code is left out.
func ConceptualQuestions(repo string, docs []FileDoc) []Question {
	var out []Question
	for _, d := range docs {
		if IsTestPath(d.Path) {
			continue
		}
		subject := withoutNames(firstSentence(d.Doc), d.Path)
		if len(strings.Fields(subject)) < 4 {
			continue
		}
		out = append(out, newQuestion(KindConceptual, repo, "", "How does this work in the code: "+subject+"?",
			[]string{d.Path}, nil))
	}
	return out
}

// firstSentence is a description's first sentence, on one line, without
// its full stop.
func firstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	return strings.TrimRight(doc, ".:; ")
}

// withoutNames drops the words of text that name the file: its stem and
// its directories ("termui" of src/click/termui.py), so the question does
// not give its answer away.
func withoutNames(text, file string) string {
	names := map[string]bool{}
	for _, part := range strings.Split(strings.TrimSuffix(file, path.Ext(file)), "/") {
		names[strings.ToLower(strings.Trim(part, "_"))] = true
	}
	var kept []string
	for _, w := range strings.Fields(text) {
		bare := strings.ToLower(strings.Trim(w, "`'\"*_.,;:()"))
		bare = strings.TrimSuffix(bare, ".py")
		if names[bare] || names[strings.TrimSuffix(bare, "s")] {
			continue
		}
		kept = append(kept, w)
	}
	return strings.Join(kept, " ")
}

// BugReportQuestions asks the message of each held-out bug fix among
// tasks (eval.Select's), at the fix's parent: the answer is the source
// files the fix touched that exist there (a file it creates cannot be
// found; its tests, changelog and docs are not where the bug is). source
// says which files are source (nil: all); a fix of none is not asked.
func BugReportQuestions(tasks []Task, source func(string) bool) []Question {
	var out []Question
	for _, t := range tasks {
		var files []string
		for _, f := range t.Truth.Touched() {
			if !IsTestPath(f) && (source == nil || source(f)) {
				files = append(files, f)
			}
		}
		if !ask.IsBugFix(t.Text) || len(files) == 0 {
			continue
		}
		q := newQuestion(KindBugReport, t.Repo, t.Parent, strings.TrimSpace(t.Text), files, nil)
		q.Commit, q.CommittedAt = t.Commit, t.CommittedAt
		out = append(out, q)
	}
	return out
}

// SampleQuestions draws n questions of each kind (every one when n <= 0),
// by a hash of the seed and the question id: the same seed draws the same
// questions. They come back by kind, then by repository and question id,
// bug reports by repository and commit time (the order their knowledge
// bases move forward in). Duplicates (the same id) are kept once.
func SampleQuestions(qs []Question, n int, seed int64) []Question {
	byKind := map[string][]Question{}
	seen := map[string]bool{}
	for _, q := range qs {
		if !seen[q.ID] {
			seen[q.ID] = true
			byKind[q.Kind] = append(byKind[q.Kind], q)
		}
	}
	s := fmt.Sprint(seed)
	var out []Question
	for _, kind := range schema.AskKinds {
		ks := byKind[kind]
		if n > 0 && n < len(ks) {
			sort.SliceStable(ks, func(i, j int) bool { return kb.UnitHash(s, ks[i].ID) < kb.UnitHash(s, ks[j].ID) })
			ks = ks[:n]
		}
		sort.SliceStable(ks, func(i, j int) bool {
			a, b := ks[i], ks[j]
			switch {
			case a.Repo != b.Repo:
				return a.Repo < b.Repo
			case !a.CommittedAt.Equal(b.CommittedAt):
				return a.CommittedAt.Before(b.CommittedAt)
			}
			return a.ID < b.ID
		})
		out = append(out, ks...)
	}
	return out
}

func symbolOf(e kb.CodeIndexEntry) Symbol {
	return Symbol{Name: e.QualifiedName, Path: e.FilePath, Start: e.LineStart, End: e.LineEnd}
}

// lastDotted is the last part of a dotted name ("BadParameter" of
// "click.BadParameter"), as a traceback's last line names it.
func lastDotted(s string) string { return s[strings.LastIndex(s, ".")+1:] }

func uniq(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
