package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// With --json, stdout carries exactly one JSON document, whatever happens:
// a command's summary is held (writeJSON) and printed by Run once the
// command has returned — alone when it succeeded; when it failed, with
// the error's "error" and "exit_code" fields added, so that a script
// reads one object and needs no second parser for failures. A failure
// before any summary prints {"error": ..., "exit_code": N} alone. The
// human message still goes to stderr.

// writeJSON holds v as the command's JSON document (a command prints one;
// a second replaces the first). Run prints it when the command returns.
func (a *app) writeJSON(v any) error {
	var b bytes.Buffer
	if err := jsonEncoder(&b).Encode(v); err != nil {
		return fmt.Errorf("encode the JSON output: %w", err)
	}
	a.jsonOut = b.Bytes()
	return nil
}

// finishJSON ends a command run with --json: on success, what it wrote
// on stdout (held) and then its document; on failure, the document with
// the failure's fields only — whatever else was written (cli's help after
// a usage error, the rows of the statements before a failing one) would
// break the reader's parser. A command line that only looked like it asked
// for --json (a flag's value "--json") gets what it wrote, as it wrote it.
func (a *app) finishJSON(w io.Writer, held *spool, msg string, code int) error {
	if a.flagsRead && !a.json {
		return held.flush(w)
	}
	if code != exitOK {
		_, err := w.Write(withError(a.jsonOut, msg, code))
		return err
	}
	if err := held.flush(w); err != nil {
		return err
	}
	_, err := w.Write(a.jsonOut)
	return err
}

// withError adds "error" and "exit_code" to doc, an indented JSON object
// (or nothing): the object keeps its fields, in order, and gets the two
// last. A document that is not an object (a list) goes under "result".
func withError(doc []byte, msg string, code int) []byte {
	quoted, _ := json.Marshal(msg) // a string always encodes
	fields := fmt.Sprintf(`  "error": %s,`+"\n"+`  "exit_code": %s`, quoted, strconv.Itoa(code))
	body := bytes.TrimSpace(doc)
	switch {
	case len(body) == 0:
		return []byte("{\n" + fields + "\n}\n")
	case body[0] == '{' && body[len(body)-1] == '}':
		inner := bytes.TrimSpace(body[1 : len(body)-1])
		if len(inner) == 0 {
			return []byte("{\n" + fields + "\n}\n")
		}
		return []byte(string(bytes.TrimRight(body[:len(body)-1], " \t\r\n")) + ",\n" + fields + "\n}\n")
	}
	return []byte("{\n" + fields + ",\n" + `  "result": ` + strings.ReplaceAll(string(body), "\n", "\n  ") + "\n}\n")
}

// jsonInArgs reports whether args ask for --json, for a command line cra
// could not parse (the flags were never read): the failure is then printed
// as JSON all the same. Only what comes before a "--" counts.
func jsonInArgs(args []string) bool {
	on := false
	for _, arg := range args {
		if arg == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || name != "json" {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}
