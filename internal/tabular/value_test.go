package tabular

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

func TestValues(t *testing.T) {
	ts := time.Date(2026, 11, 21, 23, 20, 5, 250_000_000, time.UTC)
	cases := []struct {
		name   string
		v      any
		dbType string
		text   string // textValue
		json   string // json.Marshal(jsonValue)
	}{
		{"null", nil, "INTEGER", "", "null"},
		{"int", int64(42), "BIGINT", "42", "42"},
		{"float", 1.5, "DOUBLE", "1.5", "1.5"},
		{"nan", math.NaN(), "DOUBLE", "NaN", `"NaN"`},
		{"inf", float32(math.Inf(1)), "FLOAT", "+Inf", `"+Inf"`},
		{"bool", true, "BOOLEAN", "true", "true"},
		{"string", "a\"b", "VARCHAR", "a\"b", `"a\"b"`},
		{"uuid", []byte{0x92, 0x50, 0x61, 0x19, 0xe1, 0xa0, 0x41, 0x36, 0xb7, 0xe9, 0x96, 0xa7, 0x07, 0x9f, 0xb5, 0x58}, "UUID",
			"92506119-e1a0-4136-b7e9-96a7079fb558", `"92506119-e1a0-4136-b7e9-96a7079fb558"`},
		{"blob", []byte("ab\x00\\"), "BLOB", `ab\x00\x5C`, `"ab\\x00\\x5C"`},
		{"timestamptz", ts, "TIMESTAMPTZ", "2026-11-21T23:20:05.25Z", `"2026-11-21T23:20:05.25Z"`},
		{"timestamp", ts, "TIMESTAMP", "2026-11-21T23:20:05.25", `"2026-11-21T23:20:05.25"`},
		{"date", ts, "DATE", "2026-11-21", `"2026-11-21"`},
		{"time", ts, "TIME", "23:20:05.25", `"23:20:05.25"`},
		{"decimal", duckdb.Decimal{Width: 5, Scale: 2, Value: big.NewInt(125)}, "DECIMAL(5,2)", "1.25", "1.25"},
		{"hugeint", new(big.Int).Lsh(big.NewInt(1), 70), "HUGEINT", "1180591620717411303424", "1180591620717411303424"},
		{"interval", duckdb.Interval{Months: 1, Days: 2, Micros: 3_000_000}, "INTERVAL", "1 months 2 days 3s", `"1 months 2 days 3s"`},
		{"list", []any{int32(1), nil}, "INTEGER[]", "[1,null]", "[1,null]"},
		{"uuid list", []any{[]byte{0x92, 0x50, 0x61, 0x19, 0xe1, 0xa0, 0x41, 0x36, 0xb7, 0xe9, 0x96, 0xa7, 0x07, 0x9f, 0xb5, 0x58}}, "UUID[]",
			`["92506119-e1a0-4136-b7e9-96a7079fb558"]`, `["92506119-e1a0-4136-b7e9-96a7079fb558"]`},
		{"struct", map[string]any{"b": "x", "a": int32(1)}, `STRUCT(b VARCHAR, a INTEGER)`, `{"a":1,"b":"x"}`, `{"a":1,"b":"x"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text, null := textValue(tc.v, tc.dbType)
			if text != tc.text || null != (tc.v == nil) {
				t.Errorf("text = %q (null %v), want %q", text, null, tc.text)
			}
			b, err := json.Marshal(jsonValue(tc.v, tc.dbType))
			if err != nil || string(b) != tc.json {
				t.Errorf("json = %s (%v), want %s", b, err, tc.json)
			}
		})
	}
}

func TestTableCellsAreCutAndEscaped(t *testing.T) {
	long := ""
	for range 100 {
		long += "x"
	}
	if got := cell(long, "VARCHAR", "table"); len([]rune(got)) != maxCell || got[len(got)-3:] != "…" {
		t.Errorf("long cell = %q", got)
	}
	if got := cell("a\nb\tc", "VARCHAR", "table"); got != `a\nb\tc` {
		t.Errorf("escaped cell = %q", got)
	}
	if got := cell("a|b\nc", "VARCHAR", "markdown"); got != `a\|b<br>c` {
		t.Errorf("markdown cell = %q", got)
	}
	if got := cell(nil, "VARCHAR", "table"); got != "NULL" {
		t.Errorf("null cell = %q", got)
	}
}
