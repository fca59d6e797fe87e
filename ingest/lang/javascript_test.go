package lang

import (
	"testing"

	"github.com/cra-dev/cra/kb/schema"
)

func TestTypeScriptWidgetFixture(t *testing.T) {
	f := extractFile(t, "widget.ts")
	if f.Language != TypeScript || f.ErrorNodes != 0 {
		t.Fatalf("language %q, error nodes %d", f.Language, f.ErrorNodes)
	}
	eq(t, "symbols", symbolLines(f), []string{
		"variable renders 13-13 ^-",
		"variable cache 14-14 ^-",
		"variable DEFAULT_SIZE 15-15 ^-",
		"function render 26-34 ^-",
		"class Widget 37-59 ^-", // from its decorator
		"method constructor 42-45 ^Widget",
		"method draw 48-54 ^Widget",
		"method onClick 56-58 ^Widget", // arrow-function field
		"interface Drawable 61-64 ^-",
		"method draw 62-62 ^Drawable",
		"type_alias Html 66-66 ^-",
		"enum Mode 67-67 ^-",
		"function make 69-72 ^-",
		"function inner 70-70 ^make", // nested arrow function
	})
	eq(t, "Widget signature", symbol(t, f, KindClass, "Widget").Signature, "export class Widget extends Base implements Drawable, ns.Sized {")
	eq(t, "make signature", symbol(t, f, KindFunction, "make").Signature, "export const make = async (n: number) => {")

	eq(t, "imports", f.Imports, []Import{
		{Line: 4, Kind: ImportPlain, Module: "react", Names: []ImportName{{Name: "default", Alias: "React"}, {Name: "useState", Alias: "useS"}, {Name: "Props"}}},
		{Line: 5, Kind: ImportPlain, Module: "node:path", Names: []ImportName{{Name: "*", Alias: "path"}}},
		{Line: 6, Kind: ImportPlain, Module: "./theme", Names: []ImportName{{Name: "Theme"}}, TypeOnly: true},
		{Line: 7, Kind: ImportPlain, Module: "./styles.css"},
		{Line: 8, Kind: ImportRequire, Module: "fs", Alias: "fs"},
		{Line: 9, Kind: ImportExportFrom, Module: "./helpers", Names: []ImportName{{Name: "helper"}, {Name: "other", Alias: "alias"}}},
		{Line: 10, Kind: ImportExportFrom, Module: "./all", Names: []ImportName{{Name: "*"}}},
		{Line: 11, Kind: ImportExportFrom, Module: "./shapes", Names: []ImportName{{Name: "Shape"}}, TypeOnly: true},
	})

	eq(t, "module doc", docOf(t, f, -1).Fields, schema.DocFields{Summary: "Widget rendering."})
	render := docOf(t, f, indexOf(t, f, KindFunction, "render"))
	eq(t, "render doc", render, Docstring{
		Symbol: 3, Line: 17, Format: FormatJSDoc,
		Content: "Render a widget.\n\n@param {Widget} w - The widget to render.\n@param {number} [scale=1] Scale factor\n  applied twice.\n@returns {string} The HTML.\n@throws {RangeError} When scale is negative.",
		Fields: schema.DocFields{
			Summary: "Render a widget.",
			Params: []schema.DocParam{
				{Name: "w", Type: "Widget", Description: "The widget to render."},
				{Name: "scale", Type: "number", Description: "Scale factor applied twice."},
			},
			Returns: &schema.DocType{Type: "string", Description: "The HTML."},
			Raises:  []schema.DocType{{Type: "RangeError", Description: "When scale is negative."}},
		},
	})
	// The JSDoc above a decorated class belongs to the class.
	eq(t, "Widget doc", docOf(t, f, indexOf(t, f, KindClass, "Widget")).Content, "A widget.")
	eq(t, "draw doc", docOf(t, f, 6).Content, "Draw it.")
	if len(f.Docstrings) != 4 {
		t.Errorf("want 4 docstrings, got %d", len(f.Docstrings))
	}

	eq(t, "comments", commentLines(f), []string{
		"27 render todo false: TODO: support dark mode",
		"49 draw rationale true: so that render() can skip us",
	})

	eq(t, "references", refLines(f), []string{
		"cache call Map@14",
		"DEFAULT_SIZE type_ref Size@15",
		"render type_ref Widget@26", // T is a type parameter
		"render type_ref Html@26",
		"render type_ref Theme@26",
		"render call RangeError@29",
		"render call cache.set@32",
		"render call w.draw@33",
		"Widget call Component@37",
		"Widget inherit Base@38",
		"Widget inherit Drawable@38",
		"Widget inherit ns.Sized@38",
		"Widget type_ref Size@39",
		"constructor type_ref Store@42",
		"constructor call super@43",
		"draw type_ref Drawing@48",
		"draw call console.error@52",
		"draw call helper@53",
		"draw call .finish@53",
		"onClick type_ref Event@56",
		"onClick call Error@57",
		"Drawable inherit Base@61",
		"draw type_ref Drawing@62",
		"Drawable type_ref Label@63",
		"Html type_ref Fragment@66",
		"make call inner@71",
	})

	for _, c := range []struct {
		kind, name string
		want       codeFacts
	}{
		{KindFunction, "render", codeFacts{Raises: []string{"RangeError"}, ErrorStrings: []string{"negative scale ${scale}"}, Mutates: []string{"renders", "cache"}}},
		{KindMethod, "constructor", codeFacts{Mutates: []string{"this.size"}}},
		// renders++ here is the local const, not the module variable.
		{KindMethod, "onClick", codeFacts{Raises: []string{"Error"}, ErrorStrings: []string{"not implemented"}}},
	} {
		eq(t, c.name+" facts", factsOf(symbol(t, f, c.kind, c.name)), c.want)
	}
	draw := f.Symbols[6]
	eq(t, "draw facts", factsOf(draw), codeFacts{ErrorStrings: []string{"draw failed: %s"}, Mutates: []string{"this.drawn"}})
}

func TestJavaScriptAppFixture(t *testing.T) {
	f := extractFile(t, "app.jsx")
	if f.Language != JavaScript || f.ErrorNodes != 0 {
		t.Fatalf("language %q, error nodes %d", f.Language, f.ErrorNodes)
	}
	eq(t, "symbols", symbolLines(f), []string{
		"variable express 2-2 ^-",
		"variable join 3-3 ^-",
		"variable res 3-3 ^-",
		"variable lazy 4-4 ^-",
		"variable registry 5-5 ^-",
		"variable hits 6-6 ^-",
		"variable misses 6-6 ^-",
		"function handler 9-20 ^-",
		"class Server 22-36 ^-",
		"method onError 24-24 ^Server",
		"method start 31-35 ^Server",
		"function create 38-40 ^-", // exports.create = function
		"function stop 42-44 ^-",   // module.exports.stop = () =>
	})
	eq(t, "imports", f.Imports, []Import{
		{Line: 2, Kind: ImportRequire, Module: "express", Alias: "express"},
		{Line: 3, Kind: ImportRequire, Module: "path", Names: []ImportName{{Name: "join"}, {Name: "resolve", Alias: "res"}}},
		{Line: 4, Kind: ImportDynamic, Module: "./lazy.js"},
	})
	eq(t, "references", refLines(f), []string{
		"handler call registry.push@11",
		"handler call logger.warn@13",
		"handler call HttpError@14",
		"handler call res.send@19",
		"handler call Page@19", // JSX components
		"handler call ui.Button@19",
		"Server inherit EventEmitter@22",
		"start call this.app.listen@34",
		"create call Server@39",
	})
	// A // comment is not a docstring in JS; /** */ is.
	eq(t, "comments", commentLines(f), []string{"8 - general false: Handles requests."})
	eq(t, "start doc", docOf(t, f, indexOf(t, f, KindMethod, "start")).Fields, schema.DocFields{
		Summary: "Start listening.",
		Params:  []schema.DocParam{{Name: "port", Type: "number"}},
		Returns: &schema.DocType{Type: "Promise<void>"},
	})
	for _, c := range []struct {
		kind, name string
		want       codeFacts
	}{
		// hits.count in the loop is the loop's own `hits`.
		{KindFunction, "handler", codeFacts{Raises: []string{"HttpError"}, ErrorStrings: []string{"bad request ${req.url}", "bad request"}, Mutates: []string{"hits", "registry"}}},
		{KindMethod, "onError", codeFacts{Mutates: []string{"this.failed"}}},
		{KindMethod, "start", codeFacts{Mutates: []string{"this.port", "this.pending"}}},
		{KindFunction, "stop", codeFacts{ErrorStrings: []string{"stopped"}}},
	} {
		eq(t, c.name+" facts", factsOf(symbol(t, f, c.kind, c.name)), c.want)
	}
}

func TestTSXFixture(t *testing.T) {
	f := extractFile(t, "view.tsx")
	if f.Language != TSX || f.ErrorNodes != 0 {
		t.Fatalf("language %q, error nodes %d", f.Language, f.ErrorNodes)
	}
	eq(t, "symbols", symbolLines(f), []string{"type_alias ViewProps 3-3 ^-", "function View 5-8 ^-"})
	eq(t, "references", refLines(f), []string{
		"ViewProps type_ref Item@3",
		"View type_ref ViewProps@5",
		"View type_ref JSX.Element@5",
		"View call useState@6",
		"View call List@7",
		"View call Row.Cell@7",
		"View call setOpen@7",
	})
}

func TestJavaScriptCodeFacts(t *testing.T) {
	cases := []struct {
		name, lang, src, fn string
		want                codeFacts
	}{
		{"module let reassigned", JavaScript, "let n = 0;\nfunction f() { n = 1; n++; }", "f", codeFacts{Mutates: []string{"n"}}},
		{"shadowed by let in same block", JavaScript, "let n = 0;\nfunction f() { let n = 1; n++; }", "f", codeFacts{}},
		{"shadowed only inside inner block", JavaScript, "let n = 0;\nfunction f() { { const n = 2; n.x = 1; } n = 3; }", "f", codeFacts{Mutates: []string{"n"}}},
		{"var is function scoped", JavaScript, "var n = 0;\nfunction f() { if (a) { var n; } n = 1; }", "f", codeFacts{}},
		{"parameter shadows", JavaScript, "const list = [];\nfunction f(list) { list.push(1); }", "f", codeFacts{}},
		{"callback parameter shadows only the callback", JavaScript, "const m = new Map();\nfunction f(xs) { xs.forEach(m => m.clear()); m.set(1, 2); }", "f", codeFacts{Mutates: []string{"m"}}},
		{"destructuring assignment", JavaScript, "let a = 1, b = 2;\nfunction swap() { [a, b] = [b, a]; }", "swap", codeFacts{Mutates: []string{"a", "b"}}},
		{"this via subscript", JavaScript, "class A { m(k) { this.map[k] = 1; this.n += 2; } }", "m", codeFacts{Mutates: []string{"this.map", "this.n"}}},
		{"throw forms", JavaScript, "function f(e) { throw e; throw errors.NotFound('gone'); throw new Error('a' + e); throw `t`; }", "f",
			codeFacts{Raises: []string{"errors.NotFound", "Error"}, ErrorStrings: []string{"gone", "a", "t"}}},
		{"error constructors outside throw", JavaScript, "function f(cb) { cb(new ValidationError('bad input')); return Promise.reject(new Error(\"nope\")); }", "f",
			codeFacts{ErrorStrings: []string{"bad input", "nope"}}},
		{"logger and console", TypeScript, "function f(): void { log.error('x failed'); console.warn(\"careful\"); console.log('info'); }", "f",
			codeFacts{ErrorStrings: []string{"x failed", "careful"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := extract(t, c.lang, c.src)
			var got *Symbol
			for i := range f.Symbols {
				if f.Symbols[i].Name == c.fn && f.Symbols[i].Kind != KindVariable {
					got = &f.Symbols[i]
				}
			}
			if got == nil {
				t.Fatalf("no symbol %s in %v", c.fn, symbolLines(f))
			}
			eq(t, "facts", factsOf(*got), c.want)
		})
	}
}

func TestTypeScriptImportsAndExports(t *testing.T) {
	src := `import def, * as all from "a";
import { type T, U as V } from 'b';
export * as ns from './c';
export type { W } from "./d";
export { default } from './e';
const m = await import("./f");
const bad = import(name);
const r = require(` + "`./g`" + `);
`
	eq(t, "imports", extract(t, TypeScript, src).Imports, []Import{
		{Line: 1, Kind: ImportPlain, Module: "a", Names: []ImportName{{Name: "default", Alias: "def"}, {Name: "*", Alias: "all"}}},
		{Line: 2, Kind: ImportPlain, Module: "b", Names: []ImportName{{Name: "T"}, {Name: "U", Alias: "V"}}},
		{Line: 3, Kind: ImportExportFrom, Module: "./c", Names: []ImportName{{Name: "*", Alias: "ns"}}},
		{Line: 4, Kind: ImportExportFrom, Module: "./d", Names: []ImportName{{Name: "W"}}, TypeOnly: true},
		{Line: 5, Kind: ImportExportFrom, Module: "./e", Names: []ImportName{{Name: "default"}}},
		{Line: 6, Kind: ImportDynamic, Module: "./f"},
		{Line: 8, Kind: ImportRequire, Module: "./g", Alias: "r"},
	})
}

func TestJavaScriptSyntaxErrorRecovery(t *testing.T) {
	for _, lang := range []string{JavaScript, TypeScript, TSX} {
		t.Run(lang, func(t *testing.T) {
			src := "function good() { return 1; }\nclass Fine { m() {} }\nfunction broken( { let = ; }\n"
			f := extract(t, lang, src)
			if f.ErrorNodes == 0 {
				t.Fatal("want error nodes for broken syntax")
			}
			eq(t, "recovered symbols", symbolLines(f)[:3], []string{"function good 1-1 ^-", "class Fine 2-2 ^-", "method m 2-2 ^Fine"})
		})
	}
}

func TestJavaScriptInvalidUTF8(t *testing.T) {
	src := "// caf\xe9 \xff\n/** Doc \xfe. */\nfunction f\xc3() { throw new Error('bad \xff'); }\nfunction ok() {}\n"
	for _, lang := range []string{JavaScript, TypeScript, TSX} {
		f := extract(t, lang, src)
		allValid(t, f)
		eq(t, lang+" ok found", symbol(t, f, KindFunction, "ok").StartLine, 4)
	}
}
