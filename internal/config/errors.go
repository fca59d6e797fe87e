package config

import "fmt"

// Error is a problem in config.toml, said the way a user can act on it: which
// file, which key, what is wrong and what to do.
type Error struct {
	File    string
	Key     string // dotted, e.g. "budget.reserved_tokens"; empty for the whole file
	Problem string
	Fix     string
}

func (e *Error) Error() string {
	msg := "config " + e.File
	if e.Key != "" {
		msg += ": " + e.Key
	}
	msg += ": " + e.Problem
	if e.Fix != "" {
		msg += fmt.Sprintf(" (fix: %s)", e.Fix)
	}
	return msg
}
