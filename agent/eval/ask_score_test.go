package eval

import (
	"fmt"
	"testing"

	"github.com/cra-dev/cra/agent/ask"
)

func TestRecallAt5(t *testing.T) {
	for _, c := range []struct {
		want, got []string
		recall    float64
	}{
		{[]string{"a"}, []string{"a"}, 1},
		{[]string{"a"}, []string{"b", "c", "d", "e", "a"}, 1},      // fifth: in
		{[]string{"a"}, []string{"b", "c", "d", "e", "f", "a"}, 0}, // sixth: out
		{[]string{"a", "b"}, []string{"a", "x"}, 0.5},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, []string{"a", "b", "c", "d", "e"}, 1}, // 5 of 7 is all 5 can hold
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, []string{"a", "b", "c", "d", "x"}, 0.8},
		{nil, []string{"a"}, 0},
		{[]string{"a"}, nil, 0},
	} {
		if got := recallAt(c.want, c.got); got != c.recall {
			t.Errorf("recallAt(%v, %v) = %v, want %v", c.want, c.got, got, c.recall)
		}
	}
}

func TestSymbolHit(t *testing.T) {
	want := []Symbol{{Name: "Context.invoke", Path: "core.py", Start: 10, End: 20}}
	for _, c := range []struct {
		cited ask.Source
		hit   bool
	}{
		{ask.Source{Path: "core.py", Symbol: "Context.invoke"}, true},
		{ask.Source{Path: "core.py", Symbol: "invoke"}, true},
		{ask.Source{Path: "other.py", Symbol: "Context.invoke"}, false}, // same name, another file
		{ask.Source{Path: "core.py", Symbol: "Context.forward"}, false},
		{ask.Source{Path: "core.py", Start: 20, End: 25}, true}, // overlaps the last line
		{ask.Source{Path: "core.py", Start: 21, End: 25}, false},
		{ask.Source{Path: "core.py", Start: 5, End: 10}, true}, // overlaps the first line
		{ask.Source{Path: "core.py", Start: 5, End: 9}, false},
		{ask.Source{Path: "core.py", Start: 15, End: 15}, true},
		{ask.Source{Path: "core.py"}, false}, // a whole-file doc names no lines
	} {
		if got := symbolHit(want, []ask.Source{c.cited}); got != c.hit {
			t.Errorf("%+v: hit %v, want %v", c.cited, got, c.hit)
		}
	}
}

func TestScoreAsk(t *testing.T) {
	q := Question{Mode: ask.Diagnostic, Files: []string{"core.py"}, Symbols: []Symbol{{Name: "require", Path: "core.py", Start: 3, End: 8}}}
	src := func(path string, start int, sym string) ask.Source {
		return ask.Source{Path: path, Start: start, End: start + 2, Symbol: sym}
	}
	for _, c := range []struct {
		name string
		q    Question
		r    ask.Result
		want string
	}{
		{"right", q, ask.Result{Classification: ask.Classification{Mode: ask.Diagnostic}, Retrieved: []ask.Source{src("core.py", 3, "require")},
			Answer: "because", Cited: []ask.Source{src("core.py", 3, "require")}},
			"ask_classify/correct=1 ask_retrieval/recall_at_5=1 ask_retrieval/correct=1 ask_answer/recall_at_5=1 ask_answer/answered=1 ask_answer/symbol_hit=1 ask_answer/correct=1"},
		{"wrong mode, file found late, answer cites the file elsewhere", q, ask.Result{Classification: ask.Classification{Mode: ask.Conceptual},
			Retrieved: []ask.Source{src("a.py", 1, ""), src("b.py", 1, ""), src("a.py", 9, ""), src("c.py", 1, ""), src("d.py", 1, ""), src("e.py", 1, ""), src("core.py", 3, "")},
			Answer:    "maybe", Cited: []ask.Source{src("core.py", 40, "other")}},
			"ask_classify/correct=0 ask_retrieval/recall_at_5=0 ask_retrieval/correct=0 ask_answer/recall_at_5=1 ask_answer/answered=1 ask_answer/symbol_hit=0 ask_answer/correct=0"},
		{"no answer", q, ask.Result{Classification: ask.Classification{Mode: ask.Diagnostic}, Retrieved: []ask.Source{src("core.py", 3, "require")}},
			"ask_classify/correct=1 ask_retrieval/recall_at_5=1 ask_retrieval/correct=1 ask_answer/recall_at_5=0 ask_answer/answered=0 ask_answer/symbol_hit=0 ask_answer/correct=0"},
		{"files only: no symbol hit scored", Question{Mode: ask.Diagnostic, Files: []string{"core.py", "util.py"}},
			ask.Result{Classification: ask.Classification{Mode: ask.Diagnostic}, Retrieved: []ask.Source{src("core.py", 1, ""), {Kind: ask.KindStructure}},
				Answer: "here", Cited: []ask.Source{src("util.py", 1, ""), src("core.py", 1, "")}},
			"ask_classify/correct=1 ask_retrieval/recall_at_5=0.5 ask_retrieval/correct=0 ask_answer/recall_at_5=1 ask_answer/answered=1 ask_answer/correct=1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got string
			for i, s := range ScoreAsk(c.q, &c.r) {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprintf("%s/%s=%v", s.Stage, s.Metric, s.Value)
			}
			if got != c.want {
				t.Errorf("scores\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
