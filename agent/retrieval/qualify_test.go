package retrieval

import (
	"testing"

	"github.com/cra-dev/cra/kb"
)

// Symbols are named as bootstrap's ground truth names them: by their
// parents (a Python method by its class), a Go method by its receiver.
func TestSymbolCandidatesQualifyAsTheGroundTruth(t *testing.T) {
	class, fn := int64(1), int64(3)
	syms := []kb.Symbol{
		{ID: class, FilePath: "store.py", Name: "Store", Kind: "class"},
		{ID: 2, FilePath: "store.py", Name: "get", Kind: "method", ParentID: &class},
		{ID: fn, FilePath: "store.py", Name: "helper", Kind: "function"},
		{ID: 4, FilePath: "store.py", Name: "inner", Kind: "function", ParentID: &fn},
		{ID: 5, FilePath: "command.go", Name: "Execute", Kind: "method", Receiver: "Command"},
		{ID: 6, FilePath: "command.go", Name: "Command", Kind: "type"},
	}
	want := []string{"Store", "Store.get", "helper", "helper.inner", "Command.Execute", "Command"}
	for i, c := range SymbolCandidates(syms) {
		if c.QualifiedName != want[i] {
			t.Errorf("%s: %q, want %q", syms[i].Name, c.QualifiedName, want[i])
		}
	}
}
