package retrieval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/cra-dev/cra/agent/pathrule"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/kb"
)

// Notes per kept file: the strongest co-change partners and the newest
// commits.
const (
	factCoChanges = 3
	factCommits   = 3
)

// LoadFileFacts gathers what assembly shows of a kept file from the
// knowledge base: its text at the indexed state (read from the repository;
// left out when it no longer matches the indexed hash, so line numbers
// stay true), its symbols with their tiers and docstrings, its rationale
// comments, its strongest co-change partners (at least minCoChange
// commits) and its newest commits.
func LoadFileFacts(ctx context.Context, k *kb.KnowledgeBase, repo kb.Repo, path string, syms []SymbolCandidate, tiers map[string]string, minCoChange int) (prompt.FileFacts, error) {
	ff := prompt.FileFacts{Path: path}
	f, err := k.GetFileByPath(ctx, repo.ID, path)
	if err != nil {
		return ff, err
	}
	if text, err := ReadIndexed(repo, f); err == nil {
		ff.Content = text
	}
	docs, err := k.GetDocstringsForFile(ctx, f.ID)
	if err != nil {
		return ff, err
	}
	doc := map[int64]string{}
	for _, d := range docs {
		if d.SymbolID != nil && doc[*d.SymbolID] == "" {
			doc[*d.SymbolID] = d.Content
		}
	}
	for _, s := range syms {
		if s.File == path {
			ff.Symbols = append(ff.Symbols, prompt.FactSymbol{Key: s.Key(), Tier: tiers[s.Key()], Signature: s.Signature,
				Docstring: doc[s.SymbolID], StartLine: s.StartLine, EndLine: s.EndLine})
		}
	}
	comments, err := k.GetRationaleComments(ctx, f.ID)
	if err != nil {
		return ff, err
	}
	for _, c := range comments {
		ff.Rationale = append(ff.Rationale, prompt.LineNote{Line: c.Line, Text: c.Content})
	}
	co, err := k.GetCoChangeNeighbors(ctx, f.ID, minCoChange)
	if err != nil {
		return ff, err
	}
	for _, n := range co[:min(len(co), factCoChanges)] {
		ff.CoChanges = append(ff.CoChanges, fmt.Sprintf("changed with %s in %d commits", n.File.Path, n.Count))
	}
	commits, err := k.GetRecentCommitsForFile(ctx, f.ID, factCommits)
	if err != nil {
		return ff, err
	}
	for _, c := range commits {
		subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
		ff.Commits = append(ff.Commits, fmt.Sprintf("commit %.7s (%s): %s", c.Hash, c.Timestamp.UTC().Format("2006-01-02"), subject))
	}
	return ff, nil
}

// ReadIndexed reads a file as it was indexed: from the working tree (by
// the worktree rule, pathrule.Root.Path) or the indexed commit, checked
// against the indexed content hash. Every read of a file for a prompt
// goes through it (assembly here, cra ask's sources), so line numbers are
// those of the index and no link leads out of the repository.
func ReadIndexed(repo kb.Repo, f *kb.File) (string, error) {
	var b []byte
	var err error
	if repo.TreeRev == "" || repo.TreeRev == "worktree" {
		b, err = readInside(repo.Path, f.Path)
	} else {
		b, err = exec.Command("git", "-C", repo.Path, "show", repo.TreeRev+":"+f.Path).Output()
	}
	if err != nil {
		return "", err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.ContentHash {
		return "", fmt.Errorf("%s changed since it was indexed", f.Path)
	}
	return string(b), nil
}

// readInside reads path of the repository at dir by the rule of every read
// for a prompt: a path swapped for a link since it was indexed is not
// followed out of the repository.
func readInside(dir, path string) ([]byte, error) {
	root, err := pathrule.ResolveRoot(dir)
	if err != nil {
		return nil, err
	}
	_, abs, err := root.Path(path)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(abs)
}
