package datasets

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cra-dev/cra/kb"
)

// card renders the dataset card: YAML front matter declaring one config per
// stage and kind with its data files per split, as Hugging Face dataset
// cards do, then what the data is, its columns and how the layout's
// trainer loads each config.
func card(m *Manifest) string {
	ext := m.Format
	var b strings.Builder
	cfgs := configs(m)
	def := defaultConfig(cfgs)
	b.WriteString("---\nconfigs:\n")
	for _, c := range cfgs {
		fmt.Fprintf(&b, "- config_name: %s\n", c.name)
		if c.name == def {
			b.WriteString("  default: true\n")
		}
		b.WriteString("  data_files:\n")
		for _, sp := range c.splits {
			fmt.Fprintf(&b, "  - split: %s\n    path: %s/%s/%s-*.%s\n", sp, c.stage, c.kind, sp, ext)
		}
	}
	datasetInfo(&b, m, cfgs)
	b.WriteString("tags:\n- code\n- cra\n---\n\n")
	fmt.Fprintf(&b, "# %s@%d\n\nVersion %d of dataset %s, exported by cra %s (schema %d) on %s in the **%s** layout: %s.\n\n",
		m.Dataset, m.Version, m.Version, m.Dataset, m.CraVersion, m.SchemaVersion, m.CreatedAt.Format("2006-01-02"), m.Layout, layoutBlurb[m.Layout])
	b.WriteString("One config per pipeline stage and kind of example (`sft`: whole conversations; `preference`: a prompt with\n" +
		"a chosen and a rejected answer; `kto`: a prompt with one answer labelled desirable or not).\n\n")
	b.WriteString("| config | kind | split | rows |\n| --- | --- | --- | --- |\n")
	for _, c := range cfgs {
		for _, sp := range c.splits {
			fmt.Fprintf(&b, "| %s | %s | %s | %d |\n", c.name, c.kind, sp, m.Counts[c.stage][c.kind][sp])
		}
	}
	if def != "" {
		fmt.Fprintf(&b, "\n`%s`, the one config with train rows, is the default: `load_dataset(\"path/to/this/directory\")` loads it.\n", def)
	}
	if names := evalOnlyNames(cfgs); names != "" {
		fmt.Fprintf(&b, "\n%s %s validation rows only, so %s nothing to train on: rows from eval tasks\n"+
			"all go to validation, so that no evaluated task is ever trained on. Such a config measures a model\n"+
			"trained on another config; to train this stage, curate more data outside what is held out\n"+
			"(`cra curate-data`), or hold out less.\n",
			names, plural(len(evalOnly(cfgs)), "has", "have"), plural(len(evalOnly(cfgs)), "it has", "they have"))
	}
	if len(m.LeftOut) > 0 {
		var left []string
		for _, k := range sortedKeys(m.LeftOut) {
			left = append(left, fmt.Sprintf("%d %s", m.LeftOut[k], k))
		}
		fmt.Fprintf(&b, "\nLeft out of this export (`--kinds`): %s rows.\n", strings.Join(left, ", "))
	}
	cardWarnings(&b, m)

	fmt.Fprintf(&b, "\n## Files\n\n`<stage>/<kind>/<split>-NNNNN-of-NNNNN.%s`: one schema per file, the same for every file of a\n"+
		"kind, so a config's files read as one table. `manifest.json` lists every file with its kind, row count\n"+
		"and sha256; `cra datasets inspect DIR` checks them. `report.md` and `report.html` are the curate-data\n"+
		"report of this version: examples per stage, kind, source, split and repository, drops, pair signals,\n"+
		"token lengths against the context window, what changed since the previous version.\n", ext)

	b.WriteString("\n## Columns\n\n")
	for _, k := range kindsOf(cfgs) {
		fmt.Fprintf(&b, "- `%s`: %s\n", k, fieldDocs[m.Layout+"/"+k])
	}
	if m.Layout == LayoutTRL {
		fmt.Fprintf(&b, "\nTRL rows also carry `chat_template_kwargs`, `{\"enable_thinking\": %v}` in every row: what inference sends\n"+
			"the models (`models.think` in config.toml), which TRL's trainers pass to the tokenizer's chat template for\n"+
			"each row, so a prompt is trained on as the model sees it.\n", m.EnableThinking)
	}
	b.WriteString("\nEvery row also says where it came from, in columns named `cra_*` that no trainer reads: `cra_id`,\n" +
		"`cra_dataset`, `cra_stage`, `cra_source`, `cra_split`, `cra_repo`, `cra_commit` (null when none), `cra_label`\n" +
		"(`positive` in sft rows, `pair` in preference rows, `positive` or `negative` in kto rows), `cra_signal` and\n" +
		"`cra_evidence` (why a logged row has its label; `cra_evidence` is JSON text; null when none),\n" +
		"`cra_prompt_tokens`, `cra_completion_tokens`, `cra_created_at`. Trainers ignore the columns they do not read.\n")
	if m.Format == FormatJSONL {
		b.WriteString("The front matter declares each config's features (`dataset_info`), so Hugging Face `datasets` reads\n" +
			"every file of a config with one schema rather than guessing it from the first file; `cra_created_at` is\n" +
			"text there (an ISO 8601 UTC time), as in the files.\n")
	}

	b.WriteString("\n## Loading\n\n")
	if m.Layout != LayoutTRL && len(ofKind(cfgs, kb.KindSFT)) > 0 {
		b.WriteString("TRL's `SFTTrainer` reads the sft configs as they are too (loss on the whole conversation; the trl\n" +
			"layout's prompt/completion rows train on the answer only).\n\n")
	}
	switch m.Layout {
	case LayoutOpenAI:
		openAILoading(&b, m, cfgs)
	case LayoutAxolotl:
		axolotlLoading(&b, cfgs)
	default:
		trlLoading(&b, cfgs)
	}
	return b.String()
}

// layoutBlurb says in a phrase whom a layout is for.
var layoutBlurb = map[string]string{
	LayoutTRL:     "the conversational formats TRL's `SFTTrainer`, `DPOTrainer` and `KTOTrainer` read, messages as `{role, content}`",
	LayoutOpenAI:  "OpenAI's fine-tuning formats (supervised and DPO), messages as `{role, content}`",
	LayoutAxolotl: "the formats axolotl's `chat_template` (SFT), `chat_template.default` (DPO) and `chatml.ultra` (KTO) dataset types read",
}

// fieldDocs describes each shape's own fields, by layout/kind.
var fieldDocs = map[string]string{
	LayoutTRL + "/" + kb.KindSFT: "`prompt` (the conversation before its last assistant turn: system, user, ...), `completion` (the\n" +
		"  last assistant turn), both `list<struct<role, content>>`, `chat_template_kwargs`. On prompt/completion rows\n" +
		"  `SFTTrainer` computes the loss on the completion only (`completion_only_loss` left unset). Not `messages` with\n" +
		"  `assistant_only_loss`: that needs a chat template with generation markers (TRL patches only the templates it\n" +
		"  knows) and would also train on a row's earlier assistant turns.",
	LayoutTRL + "/" + kb.KindPreference: "`prompt` (system, user), `chosen` and `rejected` (the assistant's answers, a list of one message each),\n" +
		"  `chat_template_kwargs`.",
	LayoutTRL + "/" + kb.KindKTO: "`prompt` (system, user), `completion` (a list of one assistant message), `label` (boolean: true when the\n" +
		"  completion is desirable), `chat_template_kwargs`.",
	LayoutOpenAI + "/" + kb.KindSFT:         "`messages`, the conversation (system, user, assistant).",
	LayoutOpenAI + "/" + kb.KindPreference:  "`input` (`{\"messages\": [system, user]}`), `preferred_output` and `non_preferred_output` (a list of one assistant message each).",
	LayoutAxolotl + "/" + kb.KindSFT:        "`messages`, the conversation (system, user, assistant); axolotl's `chat_template` trains on the assistant turns only by default.",
	LayoutAxolotl + "/" + kb.KindPreference: "`messages` (the prompt: system, user), `chosen` and `rejected` (one assistant message each, `{role, content}`).",
	LayoutAxolotl + "/" + kb.KindKTO:        "`system` (null when the prompt has none), `prompt` (the user turn) and `completion` (the assistant's answer) as text, `label` (boolean: true when the completion is desirable).",
}

// config is one Hugging Face config of an export: a stage and kind.
type config struct {
	name, stage, kind string
	splits            []string
}

func configName(stage, kind string) string { return stage + "-" + kind }

// configs are an export's configs by stage, then kind in kb.ExampleKinds
// order.
func configs(m *Manifest) []config {
	var out []config
	for _, st := range sortedKeys(m.Counts) {
		for _, k := range kb.ExampleKinds {
			if splits, ok := m.Counts[st][k]; ok {
				out = append(out, config{name: configName(st, k), stage: st, kind: k, splits: sortedKeys(splits)})
			}
		}
	}
	return out
}

// kindsOf lists the kinds of cfgs in kb.ExampleKinds order.
func kindsOf(cfgs []config) []string {
	var out []string
	for _, k := range kb.ExampleKinds {
		for _, c := range cfgs {
			if c.kind == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// ofKind are the configs of kind.
func ofKind(cfgs []config, kind string) []config {
	var out []config
	for _, c := range cfgs {
		if c.kind == kind {
			out = append(out, c)
		}
	}
	return out
}

func (c config) has(split string) bool {
	for _, s := range c.splits {
		if s == split {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
