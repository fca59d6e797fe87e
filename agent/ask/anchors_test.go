package ask_test

import (
	"reflect"
	"testing"

	"github.com/cra-dev/cra/agent/ask"
)

func TestAnchors(t *testing.T) {
	tests := []struct {
		name     string
		question string
		want     ask.ErrorAnchors
	}{
		{"nothing", "How does the cache expire entries?", ask.ErrorAnchors{}},
		{"exception types, once each, in order", "Why ValueError and then KeyError, then ValueError again?",
			ask.ErrorAnchors{Types: []string{"ValueError", "KeyError"}}},
		{"exceptions and Go sentinels, not the words Error and Errors", "Error: Errors from TimeoutException and ErrNotFound",
			ask.ErrorAnchors{Types: []string{"TimeoutException", "ErrNotFound"}}},
		{"the message after the type, to the end of the sentence", "Why do I get UsageError: Missing parameter: name? It worked before.",
			ask.ErrorAnchors{Types: []string{"UsageError"}, Messages: []string{"Missing parameter: name"}}},
		{"quoted messages: double, back and typographic quotes", "it says \"no such file\", then `bad header` and “cannot connect”",
			ask.ErrorAnchors{Messages: []string{"no such file", "bad header", "cannot connect"}}},
		{"single quotes apart from words, not apostrophes", "it doesn't work: 'connection refused' is what it's printing",
			ask.ErrorAnchors{Messages: []string{"connection refused"}}},
		{"a quoted message after the type", `KeyError: "missing key"`,
			ask.ErrorAnchors{Types: []string{"KeyError"}, Messages: []string{"missing key"}}},
		{"too short to be a message", `it printed "ok"`, ask.ErrorAnchors{}},
		{"a Python traceback: frames without their paths as messages", "Traceback (most recent call last):\n" +
			"  File \"/srv/app/cli.py\", line 12, in main\n    run()\n  File \"app/core.py\", line 40, in run\n" +
			"click.exceptions.UsageError: Missing option '--name'",
			ask.ErrorAnchors{Types: []string{"UsageError"}, Messages: []string{"--name", "Missing option"},
				Frames: []ask.Frame{{Path: "/srv/app/cli.py", Line: 12, Func: "main"}, {Path: "app/core.py", Line: 40, Func: "run"}}}},
		{"a Python frame at module level", `File "setup.py", line 3, in <module>`,
			ask.ErrorAnchors{Frames: []ask.Frame{{Path: "setup.py", Line: 3, Func: "<module>"}}}},
		{"a Go panic: the function on the line before", "panic: runtime error\n\ngoroutine 1 [running]:\n" +
			"github.com/x/y/store.(*Store).Get(0x0, {0x1, 0x2})\n\t/home/u/y/store/store.go:42 +0x1d\nmain.main()\n\t/home/u/y/main.go:9 +0x25",
			ask.ErrorAnchors{Frames: []ask.Frame{{Path: "/home/u/y/store/store.go", Line: 42, Func: "Get"}, {Path: "/home/u/y/main.go", Line: 9, Func: "main"}}}},
		{"a Go compiler position with a column", "./pkg/util.go:7:2: undefined: foo",
			ask.ErrorAnchors{Frames: []ask.Frame{{Path: "./pkg/util.go", Line: 7}}}},
		{"file:line:function and file:line in function", "at src/app.ts:88:handler and lib/db.rb:5 in connect",
			ask.ErrorAnchors{Frames: []ask.Frame{{Path: "src/app.ts", Line: 88, Func: "handler"}, {Path: "lib/db.rb", Line: 5, Func: "connect"}}}},
		{"a frame once", "x.go:3 and again x.go:3", ask.ErrorAnchors{Frames: []ask.Frame{{Path: "x.go", Line: 3}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ask.Anchors(tt.question); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Anchors(%q)\n = %+v\nwant %+v", tt.question, got, tt.want)
			}
		})
	}
}

func TestErrorAnchorsStrings(t *testing.T) {
	a := ask.ErrorAnchors{Types: []string{"UsageError"}, Messages: []string{"Missing parameter"},
		Frames: []ask.Frame{{Path: "pkg/core.py", Line: 3, Func: "run"}, {Path: "x.go", Line: 9}}}
	want := []string{"UsageError", `"Missing parameter"`, "pkg/core.py:3 in run", "x.go:9"}
	if got := a.Strings(); !reflect.DeepEqual(got, want) || a.Empty() || !(ask.ErrorAnchors{}).Empty() {
		t.Errorf("Strings() = %q, want %q", got, want)
	}
}
