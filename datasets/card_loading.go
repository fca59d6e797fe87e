package datasets

import (
	"fmt"
	"strings"

	"github.com/cra-dev/cra/kb"
)

// The card's loading snippets run as they are for the splits each config
// has: a trainer gets a config's train split and, when it has one, its
// validation split; a config with validation rows only (rows from eval
// tasks all go to validation) gets no trainer, because every trainer needs
// train rows (TRL f2cd577: SFTTrainer, DPOTrainer and KTOTrainer raise
// "`train_dataset` is required"; axolotl 067b021,
// src/axolotl/utils/schemas/validation.py: "either datasets or
// pretraining_dataset is required"; an OpenAI job needs a training file),
// only a line loading it for evaluation. datasets' card_snippets_test.go
// runs every snippet against stand-in modules that check the arguments.

// trainable reports whether c has train rows.
func (c config) trainable() bool { return c.has(kb.SplitTrain) }

// evalOnly are the configs of cfgs without train rows.
func evalOnly(cfgs []config) []config {
	var out []config
	for _, c := range cfgs {
		if !c.trainable() {
			out = append(out, c)
		}
	}
	return out
}

// evalOnlyNames are the names of evalOnly(cfgs) as the card lists them.
func evalOnlyNames(cfgs []config) string {
	var names []string
	for _, c := range evalOnly(cfgs) {
		names = append(names, "`"+c.name+"`")
	}
	return strings.Join(names, ", ")
}

// defaultConfig is the config load_dataset takes when given none: the one
// config with train rows, when there is exactly one; else none, and every
// config loads by its name.
func defaultConfig(cfgs []config) string {
	def := ""
	for _, c := range cfgs {
		if c.trainable() {
			if def != "" {
				return ""
			}
			def = c.name
		}
	}
	return def
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// trainers are TRL's trainer and config class for each kind.
var trainers = map[string][2]string{
	kb.KindSFT:        {"SFTTrainer", "SFTConfig"},
	kb.KindPreference: {"DPOTrainer", "DPOConfig"},
	kb.KindKTO:        {"KTOTrainer", "KTOConfig"},
}

// evalOnlySnippet loads each of cfgs' validation split for evaluation,
// saying why it trains nothing.
func evalOnlySnippet(b *strings.Builder, cfgs []config) {
	if len(cfgs) == 0 {
		return
	}
	b.WriteString("\nValidation rows only, nothing to train on (TRL's trainers require `train_dataset`): load them to\n" +
		"evaluate a model trained on another config, for instance as the `eval_dataset` of a trainer of the same kind.\n\n" +
		"```python\nfrom datasets import load_dataset\n\n")
	for _, c := range cfgs {
		fmt.Fprintf(b, "%s = load_dataset(\"path/to/this/directory\", %q, split=%q)\n", strings.ReplaceAll(c.name, "-", "_"), c.name, kb.SplitValidation)
	}
	b.WriteString("```\n")
}

func trlLoading(b *strings.Builder, cfgs []config) {
	b.WriteString("Each config loads with Hugging Face `datasets` by its name, and goes to the TRL trainer of its kind as it is:\n")
	for _, k := range kindsOf(cfgs) {
		var train []config
		for _, c := range ofKind(cfgs, k) {
			if c.trainable() {
				train = append(train, c)
			}
		}
		if len(train) == 0 {
			continue
		}
		tr := trainers[k]
		fmt.Fprintf(b, "\n```python\nfrom datasets import load_dataset\nfrom transformers import AutoTokenizer\nfrom trl import %s, %s\n\n", tr[1], tr[0])
		b.WriteString("model = \"Qwen/Qwen3-1.7B\"\ntokenizer = AutoTokenizer.from_pretrained(model)\n")
		for _, c := range train {
			fmt.Fprintf(b, "\nds = load_dataset(\"path/to/this/directory\", %q)\n", c.name)
			fmt.Fprintf(b, "trainer = %s(model=model, processing_class=tokenizer, train_dataset=ds[\"train\"],", tr[0])
			if c.has(kb.SplitValidation) {
				b.WriteString(" eval_dataset=ds[\"validation\"],")
			}
			fmt.Fprintf(b, "\n    args=%s(output_dir=%q))\ntrainer.train()\n", tr[1], c.name)
		}
		b.WriteString("```\n")
	}
	evalOnlySnippet(b, evalOnly(cfgs))
}

func openAILoading(b *strings.Builder, m *Manifest, cfgs []config) {
	if m.Format != FormatJSONL {
		b.WriteString("OpenAI's fine-tuning API uploads JSON Lines: export with `--format jsonl` to upload these rows.\n" +
			"Hugging Face `datasets` loads each config by its name: `load_dataset(\"path/to/this/directory\", CONFIG)`.\n")
		return
	}
	b.WriteString("A fine-tuning job takes one training file and one validation file, and reads only its format's\n" +
		"fields: for each config with train rows, the commands below join its shards keeping those fields (`jq`),\n" +
		"upload them and start the job.\n")
	methods := map[string]string{kb.KindSFT: "supervised", kb.KindPreference: "dpo"}
	fields := map[string]string{kb.KindSFT: "{messages}", kb.KindPreference: "{input, preferred_output, non_preferred_output}"}
	for _, k := range kindsOf(cfgs) {
		for _, c := range ofKind(cfgs, k) {
			if !c.trainable() {
				continue
			}
			fmt.Fprintf(b, "\n```sh\n# %s\n", c.name)
			for _, sp := range c.splits {
				fmt.Fprintf(b, "cat %s/%s/%s-*.jsonl | jq -c '%s' > %s-%s.jsonl\n", c.stage, c.kind, sp, fields[k], c.name, sp)
			}
			b.WriteString("```\n\n```python\nfrom openai import OpenAI\n\nclient = OpenAI()\n")
			for _, sp := range c.splits {
				fmt.Fprintf(b, "%s = client.files.create(file=open(\"%s-%s.jsonl\", \"rb\"), purpose=\"fine-tune\")\n", sp, c.name, sp)
			}
			fmt.Fprintf(b, "client.fine_tuning.jobs.create(model=\"gpt-4.1-mini-2025-04-14\", training_file=%s.id,", kb.SplitTrain)
			if c.has(kb.SplitValidation) {
				fmt.Fprintf(b, " validation_file=%s.id,", kb.SplitValidation)
			}
			fmt.Fprintf(b, "\n    method={\"type\": %q})\n```\n", methods[k])
		}
	}
	if names := evalOnlyNames(cfgs); names != "" {
		fmt.Fprintf(b, "\n%s: validation rows only, no training file, so no fine-tuning job.\n", names)
	}
}

func axolotlLoading(b *strings.Builder, cfgs []config) {
	b.WriteString("axolotl loads each config by its name from this directory (`path` must be its absolute path). The\n" +
		"`datasets` and `test_datasets` entries for each config with train rows, with the `rl` method its kind trains with:\n")
	for _, c := range cfgs {
		if !c.trainable() {
			continue
		}
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
	if names := evalOnlyNames(cfgs); names != "" {
		fmt.Fprintf(b, "\n%s: validation rows only; axolotl needs `datasets` to train, so %s no config of %s own.\n"+
			"To evaluate on one, add its entry (`name: CONFIG`, `split: validation` and its kind's `type` as above)\n"+
			"to the `test_datasets` of a config of the same kind.\n",
			names, plural(len(evalOnly(cfgs)), "it has", "they have"), plural(len(evalOnly(cfgs)), "its", "their"))
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
