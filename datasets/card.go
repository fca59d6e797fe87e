package datasets

import (
	"fmt"
	"sort"
	"strings"
)

// card renders the dataset card: YAML front matter declaring one config per
// stage with its data files per split, as Hugging Face dataset cards do,
// then what the data is and how to load it.
func card(m *Manifest) string {
	ext := "parquet"
	if m.Format == FormatJSONL {
		ext = "jsonl"
	}
	stages := sortedKeys(m.Counts)
	var b strings.Builder
	b.WriteString("---\nconfigs:\n")
	for _, st := range stages {
		fmt.Fprintf(&b, "- config_name: %s\n  data_files:\n", st)
		for _, sp := range sortedKeys(m.Counts[st]) {
			fmt.Fprintf(&b, "  - split: %s\n    path: %s/%s-*.%s\n", sp, st, sp, ext)
		}
	}
	b.WriteString("tags:\n- code\n- cra\n---\n\n")
	fmt.Fprintf(&b, "# %s@%d\n\nVersion %d of dataset %s, exported by cra %s (schema %d) on %s: chat examples\n",
		m.Dataset, m.Version, m.Version, m.Dataset, m.CraVersion, m.SchemaVersion, m.CreatedAt.Format("2006-01-02"))
	b.WriteString("in the conversational format (`messages`: a list of `{role, content}`), one config\nper pipeline stage.\n\n")
	b.WriteString("| stage | split | rows |\n| --- | --- | --- |\n")
	for _, st := range stages {
		for _, sp := range sortedKeys(m.Counts[st]) {
			fmt.Fprintf(&b, "| %s | %s | %d |\n", st, sp, m.Counts[st][sp])
		}
	}
	fmt.Fprintf(&b, "\n## Loading\n\n```python\nfrom datasets import load_dataset\n\nds = load_dataset(%q, data_dir=\"path/to/this/directory/%s\")\n```\n",
		map[string]string{"parquet": "parquet", "jsonl": "json"}[ext], firstOr(stages, "scope"))
	b.WriteString("\n`manifest.json` lists every file with its row count and sha256; `cra datasets inspect DIR` checks them.\n")
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstOr(xs []string, def string) string {
	if len(xs) == 0 {
		return def
	}
	return xs[0]
}
