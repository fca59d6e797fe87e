package config

import (
	"fmt"
	"testing"
)

// A stage's champion answers it unless an override names another model:
// the router and train-plan's current routes agree on that rule.
func TestChampionYieldsToAnOverride(t *testing.T) {
	sc := Adapter{Name: "sc", Version: 1}
	impl := Adapter{Name: "impl", Version: 2}
	m := Models{
		Champions: map[string]Adapter{"scope": sc, "implement": impl},
		Overrides: map[string]string{"implement": "other:1b", "plan": "p:1b", "scope": ""},
	}
	for _, tc := range []struct {
		stage string
		want  Adapter
		ok    bool
	}{
		{"scope", sc, true},             // an empty override is none
		{"implement", Adapter{}, false}, // the override wins
		{"plan", Adapter{}, false},      // no champion
		{"", Adapter{}, false},
	} {
		if got, ok := m.Champion(tc.stage); got != tc.want || ok != tc.ok {
			t.Errorf("Champion(%q) = %v, %v; want %v, %v", tc.stage, got, ok, tc.want, tc.ok)
		}
	}
	if got := fmt.Sprint(m.Routed()); got != fmt.Sprint(map[string]Adapter{"scope": sc}) {
		t.Errorf("Routed() = %s, want scope alone", got)
	}
}
