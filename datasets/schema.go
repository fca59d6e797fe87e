package datasets

import (
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cra-dev/cra/kb"
)

// SchemaVersion is the version of the exported layout and columns; the
// manifest records it. 2: layouts, kinds, files under <stage>/<kind>/.
// 3: metadata columns named cra_* (no trainer reads them: a column named
// label broke TRL's KTO unpairing), TRL sft rows as prompt and completion
// (loss on the answer only), TRL rows carry chat_template_kwargs.
const SchemaVersion = 3

// Layouts: the fields a trainer reads without glue.
const (
	LayoutTRL     = "trl"     // TRL's conversational formats (SFTTrainer, DPOTrainer, KTOTrainer)
	LayoutOpenAI  = "openai"  // OpenAI fine-tuning: supervised and DPO; no KTO
	LayoutAxolotl = "axolotl" // axolotl: chat_template (SFT), chat_template.default (DPO), chatml.ultra / llama3.ultra (KTO)
)

// Layouts lists the layouts in the order help and errors name them.
var Layouts = []string{LayoutTRL, LayoutOpenAI, LayoutAxolotl}

// shape is how one layout writes rows of one kind: its columns in order
// (the layout's fields first, then the metadata), their Arrow schema, and
// what a row must look like to fit them. Every file of one layout and kind
// has this schema.
type shape struct {
	layout, kind string
	cols         []column
	schema       *arrow.Schema
	// misfit says why a row cannot be written in this shape ("" if it can).
	misfit func(e *example) string
}

func newShape(layout, kind string, misfit func(*example) string, cols ...column) *shape {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	if misfit == nil {
		misfit = func(*example) string { return "" }
	}
	return &shape{layout: layout, kind: kind, cols: cols, schema: arrow.NewSchema(fields, nil), misfit: misfit}
}

// keys is the shape's column names, sorted and joined: how a JSON Lines
// row is recognised.
func (s *shape) keys() string {
	names := make([]string, len(s.cols))
	for i, c := range s.cols {
		names[i] = c.field.Name
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// metaPrefix starts every metadata column's name: no trainer reads a
// column so named, so none mistakes one for a field of its format (TRL's
// KTO unpairing copies every extra column over its boolean label; a string
// label column made its sum(label) fail).
const metaPrefix = "cra_"

// metadata is the columns after a layout's own, the same in every layout
// and kind: where a row came from and why it has its label. Trainers
// ignore columns they do not read.
func metadata() []column {
	return []column{
		field(metaPrefix+"id", text, func(e *example) *string { return &e.ID }),
		field(metaPrefix+"dataset", text, func(e *example) *string { return &e.Dataset }),
		field(metaPrefix+"stage", text, func(e *example) *string { return &e.Stage }),
		field(metaPrefix+"source", text, func(e *example) *string { return &e.Source }),
		field(metaPrefix+"split", text, func(e *example) *string { return &e.Split }),
		field(metaPrefix+"repo", text, func(e *example) *string { return &e.RepoPath }),
		optional(metaPrefix+"commit", func(e *example) *string { return &e.Commit }),
		field(metaPrefix+"label", text, func(e *example) *string { return &e.Label }),
		optional(metaPrefix+"signal", func(e *example) *string { return &e.Signal }),
		optional(metaPrefix+"evidence", func(e *example) *string { return &e.Evidence }),
		field(metaPrefix+"prompt_tokens", int32s, func(e *example) *int { return &e.PromptTokens }),
		field(metaPrefix+"completion_tokens", int32s, func(e *example) *int { return &e.CompletionTokens }),
		field(metaPrefix+"created_at", stamps, func(e *example) *stamp { return (*stamp)(&e.CreatedAt) }),
	}
}

// list is the column name of a list of messages: get(e), never null.
func list(name string, get func(*example) []kb.Message, set func(*example, []kb.Message)) column {
	return col(name, messages, func(e *example) []kb.Message {
		if m := get(e); m != nil {
			return m
		}
		return []kb.Message{}
	}, set)
}

// Columns shared by several shapes.
var (
	conversationCol = list("messages", func(e *example) []kb.Message { return e.Messages },
		func(e *example, v []kb.Message) { e.Messages = v })
	// A prompt/completion row (TRL's sft and kto): the completion is the
	// conversation from its last assistant turn on, the prompt everything
	// before it; read back, the completion follows the prompt, the order
	// TRL renders them in (prompt + completion).
	promptCol = list("prompt", func(e *example) []kb.Message { return e.Messages[:lastAssistant(e.Messages)] },
		func(e *example, v []kb.Message) { e.Messages = v })
	completionCol = list("completion", func(e *example) []kb.Message { return e.Messages[lastAssistant(e.Messages):] },
		func(e *example, v []kb.Message) { e.Messages = append(e.Messages, v...) })
	// ktoLabel is KTO's label: true for a desirable completion.
	ktoLabel = col("label", bools, func(e *example) bool { return e.Label == kb.LabelPositive },
		func(e *example, v bool) {
			e.Label = kb.LabelNegative
			if v {
				e.Label = kb.LabelPositive
			}
		})
	// templateCol is a TRL row's chat_template_kwargs: SFTTrainer,
	// DPOTrainer and KTOTrainer pass a row's to apply_chat_template, so the
	// prompt trained on renders as the one inference sends.
	templateCol = col("chat_template_kwargs", kwargs, func(e *example) templateKwargs { return templateKwargs{EnableThinking: e.thinking} },
		func(e *example, v templateKwargs) { e.thinking = v.EnableThinking })
)

// lastAssistant is the index of the last assistant message of msgs, or 0
// when there is none (completionMisfit refuses such a row).
func lastAssistant(msgs []kb.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return i
		}
	}
	return 0
}

// completionMisfit: a prompt/completion row needs an assistant turn after
// at least one message of prompt (TRL renders the prompt with a
// generation prompt after its last turn).
func completionMisfit(e *example) string {
	if i := lastAssistant(e.Messages); i == 0 {
		return fmt.Sprintf("a prompt/completion row needs an assistant turn after a prompt; this one has %d messages%s",
			len(e.Messages), lastRole(e.Messages))
	}
	return ""
}

// ktoMisfit: a KTO row's last message is the completion, the assistant's.
func ktoMisfit(e *example) string {
	if n := len(e.Messages); n < 2 || e.Messages[n-1].Role != "assistant" {
		return fmt.Sprintf("a KTO row ends with the assistant's completion after a prompt; this one has %d messages%s", n, lastRole(e.Messages))
	}
	return ""
}

func lastRole(msgs []kb.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	return ", the last " + msgs[len(msgs)-1].Role + "'s"
}

// single is the column name holding the one message of the list at p(e):
// axolotl's chosen and rejected.
func single(name string, p func(*example) *[]kb.Message) column {
	return col(name, message, func(e *example) kb.Message { return (*p(e))[0] },
		func(e *example, v kb.Message) { *p(e) = []kb.Message{v} })
}

// shapes are every layout's shapes. A layout without a kind cannot write
// rows of it.
var shapes = func() []*shape {
	// def is a shape: the layout's own columns, then the metadata.
	def := func(layout, kind string, misfit func(*example) string, own ...column) *shape {
		return newShape(layout, kind, misfit, append(own, metadata()...)...)
	}
	prompt := list("prompt", func(e *example) []kb.Message { return e.Messages }, func(e *example, v []kb.Message) { e.Messages = v })
	chosen := list("chosen", func(e *example) []kb.Message { return e.Chosen }, func(e *example, v []kb.Message) { e.Chosen = v })
	rejected := list("rejected", func(e *example) []kb.Message { return e.Rejected }, func(e *example, v []kb.Message) { e.Rejected = v })
	return []*shape{
		def(LayoutTRL, kb.KindSFT, completionMisfit, promptCol, completionCol, templateCol),
		def(LayoutTRL, kb.KindPreference, nil, prompt, chosen, rejected, templateCol),
		def(LayoutTRL, kb.KindKTO, ktoMisfit, promptCol, completionCol, ktoLabel, templateCol),

		def(LayoutOpenAI, kb.KindSFT, nil, conversationCol),
		def(LayoutOpenAI, kb.KindPreference, nil,
			col("input", conversation, func(e *example) chat { return chat{Messages: orEmpty(e.Messages)} },
				func(e *example, v chat) { e.Messages = v.Messages }),
			list("preferred_output", func(e *example) []kb.Message { return e.Chosen }, func(e *example, v []kb.Message) { e.Chosen = v }),
			list("non_preferred_output", func(e *example) []kb.Message { return e.Rejected }, func(e *example, v []kb.Message) { e.Rejected = v })),

		def(LayoutAxolotl, kb.KindSFT, nil, conversationCol),
		def(LayoutAxolotl, kb.KindPreference, axolotlPairMisfit, conversationCol,
			single("chosen", func(e *example) *[]kb.Message { return &e.Chosen }),
			single("rejected", func(e *example) *[]kb.Message { return &e.Rejected })),
		def(LayoutAxolotl, kb.KindKTO, axolotlKTOMisfit,
			col("system", nullText, func(e *example) *string {
				if e.Messages[0].Role == "system" {
					return &e.Messages[0].Content
				}
				return nil
			}, func(e *example, v *string) {
				e.Messages = nil
				if v != nil {
					e.Messages = []kb.Message{{Role: "system", Content: *v}}
				}
			}),
			col("prompt", text, func(e *example) string { return e.Messages[len(e.Messages)-2].Content },
				func(e *example, v string) { e.Messages = append(e.Messages, kb.Message{Role: "user", Content: v}) }),
			col("completion", text, func(e *example) string { return e.Messages[len(e.Messages)-1].Content },
				func(e *example, v string) { e.Messages = append(e.Messages, kb.Message{Role: "assistant", Content: v}) }),
			ktoLabel),
	}
}()

func orEmpty(m []kb.Message) []kb.Message {
	if m == nil {
		return []kb.Message{}
	}
	return m
}

// axolotlPairMisfit: axolotl's chat_template.default reads chosen and
// rejected as one message each.
func axolotlPairMisfit(e *example) string {
	if len(e.Chosen) != 1 || len(e.Rejected) != 1 {
		return fmt.Sprintf("axolotl's chat_template.default reads one chosen and one rejected message; this pair has %d and %d",
			len(e.Chosen), len(e.Rejected))
	}
	return ""
}

// axolotlKTOMisfit: axolotl's KTO types read a system prompt (optional), one
// user turn and the completion as strings.
func axolotlKTOMisfit(e *example) string {
	if why := ktoMisfit(e); why != "" {
		return why
	}
	roles := make([]string, len(e.Messages))
	for i, m := range e.Messages {
		roles[i] = m.Role
	}
	switch strings.Join(roles, ",") {
	case "system,user,assistant", "user,assistant":
		return ""
	}
	return fmt.Sprintf("axolotl's KTO types read a system turn, one user turn and the completion; this row's turns are %s",
		strings.Join(roles, ", "))
}

// shapeOf is layout's shape for kind; nil when the layout has none.
func shapeOf(layout, kind string) *shape {
	for _, s := range shapes {
		if s.layout == layout && s.kind == kind {
			return s
		}
	}
	return nil
}

// layoutsFor lists the layouts that write kind.
func layoutsFor(kind string) []string {
	var out []string
	for _, l := range Layouts {
		if shapeOf(l, kind) != nil {
			out = append(out, l)
		}
	}
	return out
}

// LayoutError: the layout cannot write what the export would hold, a kind
// it has no format for or a row its format cannot carry. Nothing is
// written.
type LayoutError struct {
	Layout  string
	Kind    string
	Dataset string // NAME@VERSION; "" when the kind was asked for by name
	Rows    int    // rows of Kind in the dataset, when the layout has no format for them
	ID      string // the row that does not fit
	Why     string
}

func (e *LayoutError) Error() string {
	others := strings.Join(without(layoutsFor(e.Kind), e.Layout), " or ")
	if e.ID != "" {
		return fmt.Sprintf("layout %s cannot write %s row %s of %s: %s; export it with --layout %s", e.Layout, e.Kind, e.ID, e.Dataset, e.Why, others)
	}
	if e.Dataset == "" {
		return fmt.Sprintf("layout %s has no format for %s rows: export them with --layout %s", e.Layout, e.Kind, others)
	}
	return fmt.Sprintf("layout %s has no format for %s rows, and %s holds %d: export them with --layout %s, or leave them out with --kinds %s",
		e.Layout, e.Kind, e.Dataset, e.Rows, others, strings.Join(without(kb.ExampleKinds, e.Kind), ","))
}

func without(xs []string, x string) []string {
	var out []string
	for _, v := range xs {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}
