package tabular

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"
)

// jsonValue turns a scanned DuckDB value into what encoding/json should
// write. dbType is the column's DuckDB type name (needed for UUIDs and times,
// which arrive as bytes and time.Time).
func jsonValue(v any, dbType string) any {
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return x
	case float32:
		return jsonFloat(float64(x))
	case float64:
		return jsonFloat(x)
	case []byte:
		if dbType == "UUID" && len(x) == 16 {
			return uuidString(x)
		}
		return blobString(x)
	case time.Time:
		return timeString(x, dbType)
	case duckdb.Decimal:
		return json.Number(x.String())
	case *big.Int:
		return json.Number(x.String())
	case duckdb.Interval:
		return intervalString(x)
	case duckdb.UUID:
		return uuidString(x[:])
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e, elementType(dbType))
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e, "")
		}
		return out
	case duckdb.OrderedMap:
		out := make(map[string]any, x.Len())
		vals := x.Values()
		for i, k := range x.Keys() {
			out[fmt.Sprint(k)] = jsonValue(vals[i], "")
		}
		return out
	case duckdb.Map:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonValue(e, "")
		}
		return out
	}
	return fmt.Sprint(v)
}

// textValue is the one-line-or-more text of a value for CSV, tables and
// Markdown. null says whether it was NULL (each format writes that its way).
func textValue(v any, dbType string) (text string, null bool) {
	j := jsonValue(v, dbType)
	switch x := j.(type) {
	case nil:
		return "", true
	case string:
		return x, false
	case json.Number:
		return x.String(), false
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), false
	case bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return fmt.Sprint(x), false
	}
	b, err := json.Marshal(j)
	if err != nil {
		return fmt.Sprint(v), false
	}
	return string(b), false
}

func jsonFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return f
}

func timeString(t time.Time, dbType string) string {
	switch {
	case dbType == "DATE":
		return t.Format("2006-01-02")
	case strings.HasPrefix(dbType, "TIME") && !strings.HasPrefix(dbType, "TIMESTAMP"):
		return t.Format("15:04:05.999999")
	case dbType == "TIMESTAMPTZ" || dbType == "TIMESTAMP WITH TIME ZONE":
		return t.Format(time.RFC3339Nano)
	}
	return t.Format("2006-01-02T15:04:05.999999999")
}

func uuidString(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// blobString shows printable bytes as text and the rest as \xNN, as DuckDB does.
func blobString(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, `\x%02X`, c)
		}
	}
	return sb.String()
}

func intervalString(i duckdb.Interval) string {
	return fmt.Sprintf("%d months %d days %s", i.Months, i.Days, time.Duration(i.Micros)*time.Microsecond)
}

// elementType is the element type of a list type name such as "UUID[]".
func elementType(dbType string) string {
	if strings.HasSuffix(dbType, "[]") {
		return strings.TrimSuffix(dbType, "[]")
	}
	return ""
}

// runeWidth is the width of s on a terminal, one column per rune.
func runeWidth(s string) int { return utf8.RuneCountInString(s) }
