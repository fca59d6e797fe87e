package lang

import (
	"testing"

	"github.com/cra-dev/cra/kb/schema"
)

func TestDetectFormat(t *testing.T) {
	cases := []struct {
		name, content string
		jsdoc         bool
		want          string
	}{
		{"plain", "Return the sum.\n\nIt is fast.", false, FormatPlain},
		{"google", "Sum.\n\nArgs:\n    a: first.", false, FormatGoogle},
		{"google header without indented body is prose", "Sum.\nReturns:\nnothing useful", false, FormatPlain},
		{"numpy", "Sum.\n\nParameters\n----------\na : int", false, FormatNumpy},
		{"sphinx", "Sum.\n\n:param a: first.\n:returns: total.", false, FormatSphinx},
		{"sphinx rtype only", "Sum.\n:rtype: int", false, FormatSphinx},
		{"jsdoc comment", "Sum.", true, FormatJSDoc},
		{"jsdoc tags in a non-jsdoc comment", "Sum.\n@param a first", false, FormatJSDoc},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eq(t, "format", detectFormat(c.content, c.jsdoc), c.want)
		})
	}
}

func TestParseDoc(t *testing.T) {
	cases := []struct {
		name, content, format string
		want                  schema.DocFields
	}{
		{"google prose return and kwargs", "Do it.\nSecond line of summary.\n\nArgs:\n    *args: Extra.\n    **kwargs (dict): Options.\n\nReturns:\n    The sum of a and b,\n    always positive.\n\nRaises:\n    errors.Timeout: Slow.\n\nExample:\n    do(1)\n", FormatGoogle,
			schema.DocFields{
				Summary: "Do it. Second line of summary.",
				Params:  []schema.DocParam{{Name: "*args", Description: "Extra."}, {Name: "**kwargs", Type: "dict", Description: "Options."}},
				Returns: &schema.DocType{Description: "The sum of a and b, always positive."},
				Raises:  []schema.DocType{{Type: "errors.Timeout", Description: "Slow."}},
			}},
		{"google return type with brackets", "F.\n\nReturns:\n    dict[str, int]: Counts.", FormatGoogle,
			schema.DocFields{Summary: "F.", Returns: &schema.DocType{Type: "dict[str, int]", Description: "Counts."}}},
		{"numpy named return", "F.\n\nReturns\n-------\ncount : int\n    How many.\n    Never negative.", FormatNumpy,
			schema.DocFields{Summary: "F.", Returns: &schema.DocType{Type: "int", Description: "How many. Never negative."}}},
		{"sphinx typed param and continuation", "F.\n\n:param str name: Who\n    to greet.\n:raises ValueError: Empty.", FormatSphinx,
			schema.DocFields{Summary: "F.", Params: []schema.DocParam{{Name: "name", Type: "str", Description: "Who to greet."}}, Raises: []schema.DocType{{Type: "ValueError", Description: "Empty."}}}},
		{"jsdoc without types", "Greets.\n@param name - who\n@throws when empty\n@return greeting", FormatJSDoc,
			schema.DocFields{Summary: "Greets.", Params: []schema.DocParam{{Name: "name", Description: "who"}}, Raises: []schema.DocType{{Description: "when empty"}}, Returns: &schema.DocType{Description: "greeting"}}},
		{"jsdoc nested braces", "@param {{a: number}} opts Options.", FormatJSDoc,
			schema.DocFields{Params: []schema.DocParam{{Name: "opts", Type: "{a: number}", Description: "Options."}}}},
		{"plain", "Just words.\nMore words.\n\nNext paragraph.", FormatPlain, schema.DocFields{Summary: "Just words. More words."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eq(t, "fields", parseDoc(c.content, c.format), c.want)
		})
	}
}

func TestDocContentCleaning(t *testing.T) {
	eq(t, "python", pyDocContent("r'''  First.\n\n\t    Indented.\n\t\tMore.\n    '''"), "First.\n\nIndented.\n    More.")
	eq(t, "python single quotes", pyDocContent(`"one line"`), "one line")
	eq(t, "jsdoc", blockCommentText("/**\n   * Line one.\n   *   indented\n   */"), "Line one.\n  indented")
	eq(t, "block without stars", blockCommentText("/* a\n     b\n   c */"), "a\n  b\nc")
}
