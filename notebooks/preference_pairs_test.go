package notebooks

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cra-dev/cra/kb"
)

// TestPreferencePairsFigures runs preference_pairs.sql's queries on the
// fixture and checks what they count: a query that grouped or filtered
// wrongly (a version, signal or repository merged, a KTO label or a paired
// distill candidate miscounted) returns other rows.
func TestPreferencePairsFigures(t *testing.T) {
	a := fixture(t)
	for _, c := range []struct {
		intro string // the comment that introduces the query
		want  []string
	}{
		{"Preference pairs per dataset version, signal, stage and repository.", []string{
			"p 1 coder_retry implement /r 2",
			"p 1 coder_retry implement /s 1",
			"p 1 eval implement /r 1",
			"p 1 teacher_student scope /r 1",
			"p 2 coder_retry implement /r 1",
		}},
		{"The same for the latest version of each dataset", []string{
			"p 2 coder_retry implement /r 1 100",
		}},
		{"The train/validation split of the pairs", []string{
			"p 1 scope teacher_student 1 0 0",
			"p 1 implement coder_retry 2 1 33.3",
			"p 1 implement eval 1 0 0",
			"p 2 implement coder_retry 1 0 0",
		}},
		{"Chosen against rejected lengths", []string{
			"p 1 coder_retry 3 5 5 66.7",
			"p 1 eval 1 5 5 0",
			"p 1 teacher_student 1 7 7 0",
			"p 2 coder_retry 1 10 3 100",
		}},
		{"KTO balance per dataset version and stage", []string{
			"p 1 scope 0 1 0 eval_correct",
			"p 1 implement 2 1 2 implement_tests",
		}},
		{"What the evidence says of the chosen answer", []string{
			"p 1 coder_retry implement 3 1 1 1 NULL",
			"p 1 eval implement 1 0 0 1 nightly #1 correct",
			"p 1 teacher_student scope 1 0 0 1 NULL",
			"p 2 coder_retry implement 1 1 0 0 NULL",
		}},
		{"Teacher-vs-student candidates raw.distill_pairs still has", []string{
			"distilled scope 1 0 1 0",
		}},
	} {
		got := query(t, a, statement(t, "preference_pairs.sql", c.intro))
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%q returned\n%s\nwant\n%s", c.intro, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// statement returns the one statement of notebook name whose comments hold
// intro.
func statement(t *testing.T, name, intro string) string {
	t.Helper()
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, nb := range all {
		if nb.Name != name {
			continue
		}
		for _, s := range kb.SplitStatements(nb.SQL) {
			if strings.Contains(s, "-- "+intro) {
				found = append(found, s)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d statements introduced by %q, want 1", name, len(found), intro)
	}
	return found[0]
}

// query runs stmt and returns its rows, each its values joined by spaces
// (NULL for a NULL).
func query(t *testing.T, a *kb.Attached, stmt string) []string {
	t.Helper()
	rows, err := a.Conn.QueryContext(context.Background(), stmt)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fields := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				fields[i] = "NULL"
			} else {
				fields[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(fields, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
