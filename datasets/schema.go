package datasets

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// SchemaVersion is the version of the exported layout and columns; the
// manifest records it.
const SchemaVersion = 1

// messageType is the conversational format Hugging Face TRL and datasets
// read: list<struct<role: string, content: string>>.
var messageType = arrow.StructOf(
	arrow.Field{Name: "role", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "content", Type: arrow.BinaryTypes.String},
)

// Schema is the Arrow schema of every exported shard: the same for every
// stage, split and shard, so readers can concatenate them.
var Schema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String},
	{Name: "dataset", Type: arrow.BinaryTypes.String},
	{Name: "stage", Type: arrow.BinaryTypes.String},
	{Name: "source", Type: arrow.BinaryTypes.String},
	{Name: "split", Type: arrow.BinaryTypes.String},
	{Name: "label", Type: arrow.BinaryTypes.String},
	{Name: "repo", Type: arrow.BinaryTypes.String},
	{Name: "commit", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "messages", Type: arrow.ListOf(messageType)},
	{Name: "prompt_tokens", Type: arrow.PrimitiveTypes.Int32},
	{Name: "completion_tokens", Type: arrow.PrimitiveTypes.Int32},
	{Name: "created_at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
}, nil)
