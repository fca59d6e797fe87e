package datasets

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cra-dev/cra/kb"
)

// example is the row every column is taken from and read back into: a
// stored example, and what the export adds to every row of it.
type example struct {
	kb.TrainingExample
	// thinking is the enable_thinking inference sends the stage's model
	// (models.think): TRL rows carry it as chat_template_kwargs, so training
	// renders the prompt the chat template renders at inference.
	thinking bool
}

// column is one exported column: its Arrow field, and how its value is
// taken from an example and put back into one, through Arrow (Parquet) or
// JSON (JSON Lines). A layout is a list of columns, so both formats and
// both directions follow from one definition. Columns are read back in
// order: a column may build on what the ones before it set (a KTO
// completion is appended to its prompt).
type column struct {
	field  arrow.Field
	append func(b array.Builder, e *example)
	read   func(a arrow.Array, i int, e *example)
	toJSON func(e *example) ([]byte, error)
	// fromJSON reads a value that is present (JSON null included).
	fromJSON func(raw []byte, e *example) error
}

// codec writes and reads values of one Go type V as one Arrow type; V's
// own JSON encoding is the JSON Lines value.
type codec[V any] struct {
	typ      arrow.DataType
	nullable bool
	append   func(b array.Builder, v V)
	value    func(a arrow.Array, i int) V
}

// col is the column name of type c whose value is get(e), read back with
// set.
func col[V any](name string, c codec[V], get func(*example) V, set func(*example, V)) column {
	return column{
		field:  arrow.Field{Name: name, Type: c.typ, Nullable: c.nullable},
		append: func(b array.Builder, e *example) { c.append(b, get(e)) },
		read:   func(a arrow.Array, i int, e *example) { set(e, c.value(a, i)) },
		toJSON: func(e *example) ([]byte, error) { return json.Marshal(get(e)) },
		fromJSON: func(raw []byte, e *example) error {
			if !c.nullable && string(raw) == "null" {
				return fmt.Errorf("%s is null", name)
			}
			var v V
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			set(e, v)
			return nil
		},
	}
}

// field is the column name holding the example's field at p(e) as it is.
func field[V any](name string, c codec[V], p func(*example) *V) column {
	return col(name, c, func(e *example) V { return *p(e) }, func(e *example, v V) { *p(e) = v })
}

// optional is the column name holding the string at p(e), null when empty.
func optional(name string, p func(*example) *string) column {
	return col(name, nullText,
		func(e *example) *string {
			if *p(e) == "" {
				return nil
			}
			return p(e)
		},
		func(e *example, v *string) {
			if v != nil {
				*p(e) = *v
			}
		})
}

// messageType is the conversational format Hugging Face TRL, datasets and
// axolotl read: struct<role: string, content: string>, in lists.
var messageType = arrow.StructOf(
	arrow.Field{Name: "role", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "content", Type: arrow.BinaryTypes.String},
)

var (
	text = codec[string]{
		typ:    arrow.BinaryTypes.String,
		append: func(b array.Builder, v string) { b.(*array.StringBuilder).Append(v) },
		value:  func(a arrow.Array, i int) string { return a.(*array.String).Value(i) },
	}
	nullText = codec[*string]{
		typ:      arrow.BinaryTypes.String,
		nullable: true,
		append: func(b array.Builder, v *string) {
			if v == nil {
				b.AppendNull()
			} else {
				b.(*array.StringBuilder).Append(*v)
			}
		},
		value: func(a arrow.Array, i int) *string {
			if a.IsNull(i) {
				return nil
			}
			s := a.(*array.String).Value(i)
			return &s
		},
	}
	int32s = codec[int]{
		typ:    arrow.PrimitiveTypes.Int32,
		append: func(b array.Builder, v int) { b.(*array.Int32Builder).Append(int32(v)) },
		value:  func(a arrow.Array, i int) int { return int(a.(*array.Int32).Value(i)) },
	}
	bools = codec[bool]{
		typ:    arrow.FixedWidthTypes.Boolean,
		append: func(b array.Builder, v bool) { b.(*array.BooleanBuilder).Append(v) },
		value:  func(a arrow.Array, i int) bool { return a.(*array.Boolean).Value(i) },
	}
	stamps = codec[stamp]{
		typ: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		append: func(b array.Builder, v stamp) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(time.Time(v).UnixMicro()))
		},
		value: func(a arrow.Array, i int) stamp {
			return stamp(a.(*array.Timestamp).Value(i).ToTime(arrow.Microsecond).UTC())
		},
	}
	message = codec[kb.Message]{
		typ: messageType,
		append: func(b array.Builder, v kb.Message) {
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append(v.Role)
			sb.FieldBuilder(1).(*array.StringBuilder).Append(v.Content)
		},
		value: func(a arrow.Array, i int) kb.Message {
			s := a.(*array.Struct)
			return kb.Message{Role: s.Field(0).(*array.String).Value(i), Content: s.Field(1).(*array.String).Value(i)}
		},
	}
	messages = codec[[]kb.Message]{
		typ: arrow.ListOf(messageType),
		append: func(b array.Builder, v []kb.Message) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			for _, m := range v {
				message.append(lb.ValueBuilder(), m)
			}
		},
		value: func(a arrow.Array, i int) []kb.Message {
			l := a.(*array.List)
			start, end := l.ValueOffsets(i)
			out := make([]kb.Message, 0, end-start)
			for k := start; k < end; k++ {
				out = append(out, message.value(l.ListValues(), int(k)))
			}
			return out
		},
	}
	// conversation is a struct holding a list of messages: OpenAI's
	// preference input, {"messages": [...]}.
	conversation = codec[chat]{
		typ: arrow.StructOf(arrow.Field{Name: "messages", Type: arrow.ListOf(messageType)}),
		append: func(b array.Builder, v chat) {
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			messages.append(sb.FieldBuilder(0), v.Messages)
		},
		value: func(a arrow.Array, i int) chat {
			return chat{Messages: messages.value(a.(*array.Struct).Field(0), i)}
		},
	}
)

// templateKwargs is a row's chat_template_kwargs: the keyword arguments
// TRL passes to the tokenizer's apply_chat_template for that row.
type templateKwargs struct {
	EnableThinking bool `json:"enable_thinking"`
}

// kwargs is chat_template_kwargs as a struct<enable_thinking: bool>.
var kwargs = codec[templateKwargs]{
	typ: arrow.StructOf(arrow.Field{Name: "enable_thinking", Type: arrow.FixedWidthTypes.Boolean}),
	append: func(b array.Builder, v templateKwargs) {
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.BooleanBuilder).Append(v.EnableThinking)
	},
	value: func(a arrow.Array, i int) templateKwargs {
		return templateKwargs{EnableThinking: a.(*array.Struct).Field(0).(*array.Boolean).Value(i)}
	},
}

// chat is {"messages": [...]}.
type chat struct {
	Messages []kb.Message `json:"messages"`
}

// stamp is a time written to JSON with microseconds and a Z, as DuckDB and
// pandas read a timestamp.
type stamp time.Time

const stampLayout = "2006-01-02T15:04:05.000000Z"

func (s stamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(s).UTC().Format(stampLayout) + `"`), nil
}

func (s *stamp) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	t, err := time.Parse(stampLayout, str)
	*s = stamp(t)
	return err
}
