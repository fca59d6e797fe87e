package ask

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb"
)

// lines are the lines of path at the indexed revision, read once. A file
// that cannot be read as indexed (changed since, gone, a link out of the
// repository) has none: its sources show what the index knows instead.
func (r *Retriever) lines(st *repoState, path string) ([]string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t, ok := st.texts[path]; ok {
		return t.lines, t.err
	}
	var t fileText
	if f, ok := st.files[path]; !ok {
		t.err = fmt.Errorf("%s is not indexed", path)
	} else if text, err := retrieval.ReadIndexed(r.Repo, &f); err != nil {
		t.err = err
	} else {
		t.lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	st.texts[path] = t
	return t.lines, t.err
}

// sourceOf is the source of a code index entry: its line range at the
// indexed revision, or its signature and docstring when the file cannot be
// read as indexed.
func (r *Retriever) sourceOf(st *repoState, e *kb.CodeIndexEntry, step, why string) candidate {
	c := candidate{Source: Source{Path: e.FilePath, Start: e.LineStart, End: e.LineEnd, Symbol: e.QualifiedName,
		FileID: r.fileID(e.FilePath), SymbolID: e.ID, Kind: KindSource, Step: step, Why: why}}
	all, err := r.lines(st, e.FilePath)
	if err != nil || e.LineStart < 1 || e.LineEnd > len(all) || e.LineStart > e.LineEnd {
		c.lines = signatureLines(e)
	} else {
		c.lines = all[e.LineStart-1 : e.LineEnd]
	}
	c.Text = strings.Join(c.lines, "\n")
	c.Tokens = Tokens(c.Text)
	return c
}

// signatureLines are what the index itself shows of a symbol.
func signatureLines(e *kb.CodeIndexEntry) []string {
	out := []string{e.Signature}
	if e.Signature == "" {
		out[0] = e.QualifiedName
	}
	if e.Docstring != "" {
		out = append(out, strings.Split(e.Docstring, "\n")...)
	}
	return out
}

// textCandidate is a doc or structure source: text cut by lines too when
// over its budget.
func textCandidate(s Source, text string) candidate {
	s.Text = strings.TrimRight(text, "\n")
	s.Tokens = Tokens(s.Text)
	return candidate{Source: s, lines: strings.Split(s.Text, "\n")}
}

// fit is the candidate within budget tokens and maxLines lines (0: no
// line limit): whole when it fits, else its first lines — the signature
// and docstring come first — and a marker saying how many more there
// are. ok is false when not even a useful part fits.
func (c candidate) fit(budget, maxLines int) (Source, bool) {
	s := c.Source
	if c.Kind != KindSource {
		maxLines = 0
	}
	whole := maxLines <= 0 || len(c.lines) <= maxLines
	if whole && s.Tokens <= budget {
		return s, true
	}
	if budget < minFit || len(c.lines) == 0 {
		return s, false
	}
	text, shown := truncate(c.lines, budget, maxLines)
	if shown == 0 {
		return s, false
	}
	s.Text, s.Tokens = text, Tokens(text)
	return s, true
}

// truncate keeps the first lines of lines within budget tokens and
// maxLines lines (0: no limit), then the marker "... truncated (N more
// lines)" indented like the last line kept; shown is how many lines were
// kept (0 when not even the first fits with its marker).
func truncate(lines []string, budget, maxLines int) (text string, shown int) {
	var b strings.Builder
	for i, line := range lines {
		if maxLines > 0 && i >= maxLines {
			break
		}
		marker := truncMarker(line, len(lines)-i-1)
		if (b.Len()+len(line)+1+len(marker)+3)/4 > budget {
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
		shown++
	}
	if shown == 0 {
		return "", 0
	}
	b.WriteString(truncMarker(lines[shown-1], len(lines)-shown))
	return b.String(), shown
}

// truncMarker says how many lines were left out, indented like last.
func truncMarker(last string, more int) string {
	indent := last[:len(last)-len(strings.TrimLeft(last, " \t"))]
	return fmt.Sprintf("%s... truncated (%d more lines)", indent, more)
}

// repoDocs are the repository's descriptions (cra enrich --promote) and
// docstrings, read the first time a mode shows or ranks them.
type repoDocs struct {
	file   map[string]string // path → its description and module docstring
	symbol map[int64]string  // symbol id → its whole docstring
	paths  []string          // the paths of file, in order
}

// docs reads the descriptions and docstrings once.
func (r *Retriever) docs(ctx context.Context, st *repoState) (*repoDocs, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.docs != nil {
		return st.docs, nil
	}
	meta, err := r.KB.SearchFilesByMetadata(ctx, r.Repo.ID, kb.MetadataQuery{})
	if err != nil {
		return nil, err
	}
	ds, err := r.KB.RepoDocstrings(ctx, r.Repo.ID)
	if err != nil {
		return nil, err
	}
	d := &repoDocs{file: map[string]string{}, symbol: map[int64]string{}}
	add := func(path, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		if _, ok := d.file[path]; !ok {
			d.paths = append(d.paths, path)
		}
		d.file[path] = strings.TrimLeft(d.file[path]+"\n"+strings.TrimSpace(text), "\n")
	}
	for _, m := range meta {
		add(m.File.Path, describe(m.Metadata))
	}
	for _, doc := range ds {
		if doc.SymbolID == nil {
			add(doc.Path, doc.Content)
		} else if d.symbol[*doc.SymbolID] == "" {
			d.symbol[*doc.SymbolID] = doc.Content
		}
	}
	slices.Sort(d.paths)
	st.docs = d
	return d, nil
}

// describe is a promoted description as a source shows it.
func describe(m kb.FileMetadata) string {
	var b strings.Builder
	line := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", label, v)
		}
	}
	line("Purpose", m.Purpose)
	line("Module", m.Module)
	line("Domain", m.Domain)
	line("Concepts", strings.Join(m.Concepts, ", "))
	line("Public API", strings.Join(m.PublicAPISurface, ", "))
	line("Complexity", m.ComplexityNotes)
	return b.String()
}

// fileDoc is the doc source of a file (its description and module
// docstring), false when it has neither.
func (r *Retriever) fileDoc(d *repoDocs, path, step, why string) (candidate, bool) {
	text, ok := d.file[path]
	if !ok {
		return candidate{}, false
	}
	return textCandidate(Source{Path: path, FileID: r.fileID(path), Kind: KindDoc, Step: step, Why: why}, text), true
}

// filesDocs are the doc sources of the files of found, in order of first
// appearance: what the modules involved are for.
func (r *Retriever) filesDocs(ctx context.Context, st *repoState, found []candidate) ([]candidate, error) {
	d, err := r.docs(ctx, st)
	if err != nil {
		return nil, err
	}
	var out []candidate
	seen := map[string]bool{}
	for _, c := range found {
		if seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		if doc, ok := r.fileDoc(d, c.Path, StepDoc, "what "+c.Path+" is for"); ok {
			out = append(out, doc)
		}
	}
	return out, nil
}
