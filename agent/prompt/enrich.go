package prompt

import (
	"fmt"
	"strings"
)

// EnrichInput is one file as the enrichment model sees it.
type EnrichInput struct {
	Path     string
	Language string
	Symbols  []string // top-level declarations
	Content  string
}

// FileMetadata is what enrichment records about a file.
type FileMetadata struct {
	Purpose          string   `json:"purpose"`
	Module           string   `json:"module"`
	Domain           string   `json:"domain"`
	Concepts         []string `json:"concepts"`
	PublicAPISurface []string `json:"public_api_surface"`
	ComplexityNotes  string   `json:"complexity_notes"`
}

const enrichSystem = `You describe one source file of a repository for a code search index. Answer with one JSON object and nothing else:
{"purpose": "one sentence: what the file is for", "module": "the subsystem it belongs to", "domain": "the problem domain", "concepts": ["key concepts"], "public_api_surface": ["names other files use"], "complexity_notes": "what is tricky, or empty"}`

// EnrichPrompt renders the enrichment prompt of one file.
func EnrichPrompt(in EnrichInput) Prompt {
	var b strings.Builder
	fmt.Fprintf(&b, "File %s (%s)\n", in.Path, in.Language)
	if len(in.Symbols) > 0 {
		fmt.Fprintf(&b, "Declares: %s\n", strings.Join(in.Symbols, ", "))
	}
	fmt.Fprintf(&b, "```\n%s", in.Content)
	if !strings.HasSuffix(in.Content, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("```\n")
	return Prompt{System: enrichSystem, User: b.String()}
}

// RenderEnrich is the exact response text ParseEnrich accepts for m.
func RenderEnrich(m FileMetadata) string {
	if m.Concepts == nil {
		m.Concepts = []string{}
	}
	if m.PublicAPISurface == nil {
		m.PublicAPISurface = []string{}
	}
	return encodeJSON(m)
}

// ParseEnrich reads an enrichment response; a response without a purpose
// is malformed.
func ParseEnrich(text string) (FileMetadata, error) {
	var m FileMetadata
	if err := decodeJSON(text, &m); err != nil {
		return m, fmt.Errorf("enrichment: %w", err)
	}
	if strings.TrimSpace(m.Purpose) == "" {
		return m, fmt.Errorf("enrichment: no purpose")
	}
	return m, nil
}
