package usage

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

type marked struct{}

func (marked) Error() string { return "marked" }
func (marked) Usage()        {}

func TestIs(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"nil":                 {nil, false},
		"plain":               {io.EOF, false},
		"Errorf":              {Errorf("--split %q: use validation", "x"), true},
		"wrapped Errorf":      {fmt.Errorf("eval: %w", Errorf("bad")), true},
		"Wrap":                {Wrap(io.EOF), true},
		"joined":              {errors.Join(io.EOF, Errorf("bad")), true},
		"a marked error":      {fmt.Errorf("plan: %w", marked{}), true},
		"Errorf keeps its %w": {Errorf("read: %w", io.EOF), true},
	} {
		if got := Is(tc.err); got != tc.want {
			t.Errorf("%s: Is(%v) = %v, want %v", name, tc.err, got, tc.want)
		}
	}
	if Wrap(nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	if err := Errorf("read: %w", io.EOF); !errors.Is(err, io.EOF) || err.Error() != "read: EOF" {
		t.Errorf("Errorf: %v; want the message and the chain kept", err)
	}
}
