package bootstrap

import (
	"maps"
	"slices"
	"testing"

	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/ingest/lang"
)

// The type kinds retrieval's tiers know by name are ingest's type kinds.
func TestTypeKindsAreIngestKinds(t *testing.T) {
	want := []string{lang.KindClass, lang.KindEnum, lang.KindInterface, lang.KindTypeAlias}
	if got := slices.Sorted(maps.Keys(retrieval.TypeKinds)); !slices.Equal(got, want) {
		t.Fatalf("retrieval.TypeKinds = %v, ingest's type kinds are %v", got, want)
	}
}
