package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Template renders cfg as a commented config.toml: every section and key is
// documented from the struct tags; keys marked active, or whose value differs
// from the default, are written as settings, the rest as commented defaults
// (so a later release's better default still reaches users who never set it).
func Template(cfg Config) string {
	var b strings.Builder
	b.WriteString("# cra configuration. Every key shows its default; uncomment to change it.\n")
	b.WriteString("# Secrets never go in this file: keys named *_env hold the NAME of an\n")
	b.WriteString("# environment variable that holds the secret.\n")
	writeTable(&b, "", reflect.ValueOf(cfg), reflect.ValueOf(Default()))
	return b.String()
}

func writeTable(b *strings.Builder, prefix string, v, def reflect.Value) {
	t := v.Type()
	var nested []int
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("toml") == "-" {
			continue // set at run time, never written
		}
		kind := f.Type.Kind()
		if kind == reflect.Struct || kind == reflect.Map || kind == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
			nested = append(nested, i)
			continue
		}
		writeDoc(b, f.Tag.Get("doc"))
		line := fmt.Sprintf("%s = %s\n", f.Tag.Get("toml"), tomlValue(v.Field(i)))
		if f.Tag.Get("active") != "true" && reflect.DeepEqual(v.Field(i).Interface(), def.Field(i).Interface()) {
			line = "# " + line
		}
		b.WriteString(line)
	}
	for _, i := range nested {
		f := t.Field(i)
		name := f.Tag.Get("toml")
		if prefix != "" {
			name = prefix + "." + name
		}
		b.WriteString("\n")
		writeDoc(b, f.Tag.Get("doc"))
		if f.Type.Kind() == reflect.Slice {
			writeTables(b, name, v.Field(i), f.Tag.Get("example"))
			continue
		}
		fmt.Fprintf(b, "[%s]\n", name)
		if f.Type.Kind() == reflect.Map {
			writeMap(b, v.Field(i), f.Tag.Get("example"))
			continue
		}
		writeTable(b, name, v.Field(i), def.Field(i))
	}
}

// writeTables writes an array of tables: each element's set keys, or a
// commented example when there is none.
func writeTables(b *strings.Builder, name string, list reflect.Value, example string) {
	if list.Len() == 0 {
		fmt.Fprintf(b, "# [[%s]]\n", name)
		for _, line := range strings.Split(example, "\n") {
			fmt.Fprintf(b, "# %s\n", line)
		}
		return
	}
	for i := range list.Len() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "[[%s]]\n", name)
		el := list.Index(i)
		for j := range el.NumField() {
			if !el.Field(j).IsZero() {
				fmt.Fprintf(b, "%s = %s\n", el.Type().Field(j).Tag.Get("toml"), tomlValue(el.Field(j)))
			}
		}
	}
}

func writeMap(b *strings.Builder, m reflect.Value, example string) {
	if m.Len() == 0 {
		if example != "" {
			fmt.Fprintf(b, "# %s\n", example)
		}
		return
	}
	keys := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "%s = %s\n", k, tomlValue(m.MapIndex(reflect.ValueOf(k))))
	}
}

func writeDoc(b *strings.Builder, doc string) {
	if doc != "" {
		fmt.Fprintf(b, "# %s\n", doc)
	}
}

func tomlValue(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		s := strconv.FormatFloat(v.Float(), 'f', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Slice:
		items := make([]string, v.Len())
		for i := range items {
			items[i] = tomlValue(v.Index(i))
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	panic(fmt.Sprintf("config: no TOML form for %s", v.Kind()))
}
