package walk

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignores is the stack of gitignore patterns in force in the directory being
// walked, lowest priority first: .git/info/exclude, then each .gitignore
// from the root down. Matching itself is go-git's.
type ignores struct {
	patterns []gitignore.Pattern
	origins  []string // the file each pattern came from, for Detail
}

// push parses the ignore file content read from origin, which applies in the
// directory at domain (path components from the root), and returns the
// stack height to pop to.
func (s *ignores) push(content []byte, origin string, domain []string) int {
	height := len(s.patterns)
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s.patterns = append(s.patterns, gitignore.ParsePattern(string(line), domain))
		s.origins = append(s.origins, origin)
	}
	return height
}

func (s *ignores) pop(height int) {
	s.patterns, s.origins = s.patterns[:height], s.origins[:height]
}

// match reports whether path (components from the root) is ignored, and by
// which file. The last pattern that matches decides, so a later "!keep.log"
// re-includes.
func (s *ignores) match(path []string, isDir bool) (origin string, ignored bool) {
	for i := len(s.patterns) - 1; i >= 0; i-- {
		if r := s.patterns[i].Match(path, isDir); r != gitignore.NoMatch {
			return s.origins[i], r == gitignore.Exclude
		}
	}
	return "", false
}

// gitDirs locates the repository of the work tree at root: gitDir holds its
// index, commonDir its info/exclude. Both are "" when root has no .git. A
// .git file ("gitdir: ...", used by linked worktrees and submodules) is
// followed, and so is a linked worktree's commondir.
func gitDirs(root string) (gitDir, commonDir string) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err != nil:
		return "", ""
	case fi.IsDir():
		gitDir = dotgit
	default:
		b, err := os.ReadFile(dotgit)
		if err != nil {
			return "", ""
		}
		line, _, _ := strings.Cut(string(b), "\n")
		p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return "", ""
		}
		gitDir = resolveFrom(root, strings.TrimSpace(p))
	}
	commonDir = gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		commonDir = resolveFrom(gitDir, strings.TrimSpace(string(b)))
	}
	return gitDir, commonDir
}

func resolveFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
