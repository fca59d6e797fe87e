package prompt

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A Prompt is the two texts a chat model gets.
type Prompt struct {
	System string
	User   string
}

// decodeJSON reads the first JSON object of a model's response into v,
// tolerating prose or a ```json fence around it.
func decodeJSON(text string, v any) error {
	start := strings.Index(text, "{")
	end := strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return fmt.Errorf("no JSON object in the response")
	}
	dec := json.NewDecoder(strings.NewReader(text[start : end+1]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("response JSON: %w", err)
	}
	return nil
}

// encodeJSON renders v as the indented JSON the parsers accept.
func encodeJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // only plain structs of strings, lists and maps are rendered
	}
	return string(b)
}
