package kb

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
)

// OwnTableError refuses a statement that would drop, alter, truncate or
// replace one of cra's own tables: the next cra init or bootstrap would
// fail on the store (a dropped schema_migrations makes every later
// migration fail).
type OwnTableError struct {
	Verb  string // drop, alter, truncate, replace
	Table string // as the statement names it
}

func (e *OwnTableError) Error() string {
	return fmt.Sprintf("refusing to %s %s: it is one of cra's own tables, and cra init, bootstrap and the other commands need it as cra's migrations made it; pass --allow-ddl if you really mean it",
		e.Verb, e.Table)
}

// createdByMigration finds the objects a migration creates.
var createdByMigration = regexp.MustCompile(`(?i)\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW|SEQUENCE)\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?`)

// ownObjects are the tables, views and sequences cra's migrations create in
// each store, schema_migrations included, lowercased (DuckDB matches names
// without regard to case, quoted or not).
var ownObjects = sync.OnceValue(func() map[Kind]map[string]bool {
	out := map[Kind]map[string]bool{}
	for _, k := range Kinds {
		ms, err := Migrations(k)
		if err != nil {
			panic(err) // embedded at build time; a test covers it
		}
		names := map[string]bool{"schema_migrations": true}
		for _, m := range ms {
			for _, sub := range createdByMigration.FindAllStringSubmatch(m.SQL, -1) {
				names[strings.ToLower(sub[1])] = true
			}
		}
		out[k] = names
	}
	return out
})

// ownTarget is the one of cra's own objects that stmt, of DuckDB statement
// type typ, would drop, alter, truncate or replace ("" for none), with the
// verb. DuckDB's parser says what kind of statement it is; the name is read
// from the statement's head, any quoting, case or catalog prefix.
func ownTarget(typ duckdb.StmtType, stmt string) (verb, table string) {
	toks := sqlTokens(stmt)
	kw := func(i int, words ...string) bool {
		return i < len(toks) && !toks[i].quoted && containsFold(words, toks[i].text)
	}
	objects := []string{"TABLE", "VIEW", "SEQUENCE"}
	i := 0
	switch {
	case typ == duckdb.STATEMENT_TYPE_DROP && kw(0, "DROP") && kw(1, objects...):
		verb, i = "drop", 2
	case typ == duckdb.STATEMENT_TYPE_ALTER && kw(0, "ALTER") && kw(1, objects...):
		verb, i = "alter", 2
	case typ == duckdb.STATEMENT_TYPE_DELETE && kw(0, "TRUNCATE"):
		verb, i = "truncate", 1
		if kw(i, "TABLE") {
			i++
		}
	case typ == duckdb.STATEMENT_TYPE_CREATE && kw(0, "CREATE") && kw(1, "OR") && kw(2, "REPLACE") && kw(3, objects...):
		verb, i = "replace", 4 // a TEMP object is not in a store
	default:
		return "", ""
	}
	if kw(i, "IF") && kw(i+1, "EXISTS") {
		i += 2
	}
	for i < len(toks) {
		var parts []string
		for ; i < len(toks); i++ {
			parts = append(parts, toks[i].text)
			if i+1 >= len(toks) || toks[i+1].text != "." || toks[i+1].quoted {
				break
			}
			i++
		}
		if ownName(parts) {
			return verb, strings.Join(parts, ".")
		}
		if i++; i >= len(toks) || toks[i].text != "," { // DROP TABLE a, b
			break
		}
		i++
	}
	return "", ""
}

// ownName reports whether a [catalog.][schema.]name resolves to one of
// cra's objects: unqualified names look in raw and curated (cra sql's
// search path).
func ownName(parts []string) bool {
	name := strings.ToLower(parts[len(parts)-1])
	in := func(k Kind) bool { return ownObjects()[k][name] }
	store := func(s string) (Kind, bool) {
		for _, k := range Kinds {
			if strings.EqualFold(s, string(k)) {
				return k, true
			}
		}
		return "", false
	}
	switch len(parts) {
	case 1:
		return in(Raw) || in(Curated)
	case 2:
		if k, ok := store(parts[0]); ok {
			return in(k)
		}
		return strings.EqualFold(parts[0], "main") && (in(Raw) || in(Curated))
	case 3:
		k, ok := store(parts[0])
		return ok && strings.EqualFold(parts[1], "main") && in(k)
	}
	return false
}

func containsFold(words []string, s string) bool {
	for _, w := range words {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

type sqlToken struct {
	text   string
	quoted bool // a "quoted identifier", its quotes removed
}

// sqlTokens cuts the head of a statement into words, quoted identifiers
// and single punctuation characters, skipping spaces and comments. String
// literals come out as one token each; nothing here needs their text.
func sqlTokens(s string) []sqlToken {
	var out []sqlToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case c == '"' || c == '\'':
			j := skipQuoted(s, i, c)
			text := s[i+1 : min(j, len(s))]
			out = append(out, sqlToken{text: strings.ReplaceAll(text, string(c)+string(c), string(c)), quoted: true})
			i = j + 1
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			out = append(out, sqlToken{text: s[i:j]})
			i = j
		default:
			out = append(out, sqlToken{text: s[i : i+1]})
			i++
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
