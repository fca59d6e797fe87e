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
	b.WriteString("---\nconfigs:\n")
	for _, c := range cfgs {
		fmt.Fprintf(&b, "- config_name: %s\n  data_files:\n", c.name)
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

// trainers are TRL's trainer and config class for each kind.
var trainers = map[string][2]string{
	kb.KindSFT:        {"SFTTrainer", "SFTConfig"},
	kb.KindPreference: {"DPOTrainer", "DPOConfig"},
	kb.KindKTO:        {"KTOTrainer", "KTOConfig"},
}

func trlLoading(b *strings.Builder, cfgs []config) {
	b.WriteString("Each config loads with Hugging Face `datasets` by its name, and goes to the TRL trainer of its kind as it is:\n")
	for _, k := range kindsOf(cfgs) {
		tr := trainers[k]
		fmt.Fprintf(b, "\n```python\nfrom datasets import load_dataset\nfrom transformers import AutoTokenizer\nfrom trl import %s, %s\n\n", tr[1], tr[0])
		b.WriteString("model = \"Qwen/Qwen3-1.7B\"\ntokenizer = AutoTokenizer.from_pretrained(model)\n")
		for _, c := range ofKind(cfgs, k) {
			fmt.Fprintf(b, "\nds = load_dataset(\"path/to/this/directory\", %q)\n", c.name)
			fmt.Fprintf(b, "trainer = %s(model=model, processing_class=tokenizer, train_dataset=ds[\"train\"],", tr[0])
			if c.has(kb.SplitValidation) {
				b.WriteString(" eval_dataset=ds[\"validation\"],")
			}
			fmt.Fprintf(b, "\n    args=%s(output_dir=%q))\n", tr[1], c.name)
		}
		b.WriteString("```\n")
	}
}

func openAILoading(b *strings.Builder, m *Manifest, cfgs []config) {
	if m.Format != FormatJSONL {
		b.WriteString("OpenAI's fine-tuning API uploads JSON Lines: export with `--format jsonl` to upload these rows.\n" +
			"Hugging Face `datasets` loads each config by its name: `load_dataset(\"path/to/this/directory\", CONFIG)`.\n")
		return
	}
	b.WriteString("A fine-tuning job takes one training file and one validation file, and reads only its format's\n" +
		"fields: for each config, the commands below join its shards keeping those fields (`jq`), upload them\n" +
		"and start the job.\n")
	methods := map[string]string{kb.KindSFT: "supervised", kb.KindPreference: "dpo"}
	fields := map[string]string{kb.KindSFT: "{messages}", kb.KindPreference: "{input, preferred_output, non_preferred_output}"}
	for _, k := range kindsOf(cfgs) {
		for _, c := range ofKind(cfgs, k) {
			fmt.Fprintf(b, "\n```sh\n# %s\n", c.name)
			for _, sp := range c.splits {
				fmt.Fprintf(b, "cat %s/%s/%s-*.jsonl | jq -c '%s' > %s-%s.jsonl\n", c.stage, c.kind, sp, fields[k], c.name, sp)
			}
			b.WriteString("```\n\n```python\nfrom openai import OpenAI\n\nclient = OpenAI()\n")
			for _, sp := range c.splits {
				fmt.Fprintf(b, "%s = client.files.create(file=open(\"%s-%s.jsonl\", \"rb\"), purpose=\"fine-tune\")\n", sp, c.name, sp)
			}
			fmt.Fprintf(b, "client.fine_tuning.jobs.create(model=\"gpt-4.1-mini-2025-04-14\", training_file=train.id,")
			if c.has(kb.SplitValidation) {
				b.WriteString(" validation_file=validation.id,")
			}
			fmt.Fprintf(b, "\n    method={\"type\": %q})\n```\n", methods[k])
		}
	}
}

func axolotlLoading(b *strings.Builder, cfgs []config) {
	b.WriteString("axolotl loads each config by its name from this directory (`path` must be its absolute path). The\n" +
		"`datasets` and `test_datasets` entries for each config, with the `rl` method its kind trains with:\n")
	for _, c := range cfgs {
		fmt.Fprintf(b, "\n```yaml\n# %s\n", c.name)
		switch c.kind {
		case kb.KindPreference:
			b.WriteString("rl: dpo\n")
		case kb.KindKTO:
			b.WriteString("rl: kto\nremove_unused_columns: false\n")
		}
		for _, sp := range []string{kb.SplitTrain, kb.SplitValidation} {
			if !c.has(sp) {
				continue
			}
			key := map[string]string{kb.SplitTrain: "datasets", kb.SplitValidation: "test_datasets"}[sp]
			fmt.Fprintf(b, "%s:\n  - path: path/to/this/directory\n    name: %s\n    split: %s\n", key, c.name, sp)
			b.WriteString(axolotlType[c.kind])
		}
		b.WriteString("```\n")
	}
}

// axolotlType is each kind's dataset type and fields in an axolotl config.
var axolotlType = map[string]string{
	kb.KindSFT: "    type: chat_template\n    field_messages: messages\n" +
		"    message_property_mappings:\n      role: role\n      content: content\n",
	kb.KindPreference: "    type: chat_template.default\n    field_messages: messages\n    field_chosen: chosen\n    field_rejected: rejected\n" +
		"    message_property_mappings:\n      role: role\n      content: content\n",
	kb.KindKTO: "    type: chatml.ultra  # reads system, prompt, completion and label; llama3.ultra for Llama 3's template\n",
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
