package notebooks

import (
	"embed"
	"io/fs"
	"sort"
)

//go:embed *.sql
var files embed.FS

// Notebook is one SQL file users run with `cra sql -f`.
type Notebook struct {
	Name string // file name, e.g. runs_overview.sql
	SQL  string
}

// All returns every notebook, by name.
func All() ([]Notebook, error) {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]Notebook, 0, len(names))
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, Notebook{Name: n, SQL: string(b)})
	}
	return out, nil
}
