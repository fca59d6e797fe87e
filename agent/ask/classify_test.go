package ask_test

import (
	"testing"

	"github.com/cra-dev/cra/agent/ask"
)

func TestFallback(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want ask.Mode
	}{
		{"Why do I get UsageError: Missing parameter?", ask.Diagnostic},
		{`I see "could not open the database file" on start`, ask.Diagnostic},
		{"os.Open returns ErrNotExist for an existing file", ask.Diagnostic},
		{"Why does the login fail after a restart?", ask.Diagnostic},
		{"Fix bug preventing completion on subcommands", ask.Diagnostic},
		{"Fixed missing reset on _compat.should_strip_ansi.", ask.Diagnostic},
		{"Trace the flow from the CLI entry point to the parser", ask.Exploratory},
		{"What happens when a command runs, step by step?", ask.Exploratory},
		{"What are the architectural flaws of the plugin layer?", ask.Analytical},
		{"Which modules are most coupled?", ask.Analytical},
		{"What does the Context class do?", ask.Conceptual},
		{"How do I add an option with a default?", ask.Conceptual},
	} {
		c := ask.Fallback(tt.q)
		if c.Mode != tt.want || c.By != ask.ByFallback || c.Reasoning == "" {
			t.Errorf("Fallback(%q) = %+v, want mode %s by fallback", tt.q, c, tt.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]ask.Mode{"DIAGNOSTIC": ask.Diagnostic, " exploratory ": ask.Exploratory, "Conceptual": ask.Conceptual} {
		if m, err := ask.ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, m, err)
		}
	}
	if _, err := ask.ParseMode("debugging"); err == nil {
		t.Error("ParseMode(debugging) is no error")
	}
}
