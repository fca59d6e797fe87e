//go:build tools

// Package deps pins the project's fixed stack in go.mod before every piece of
// it has a user: go mod tidy reads files under all build tags, so these blank
// imports keep the versions the design names. Each line goes away when the
// package that really uses the library lands (gonum: analysis).
package deps

import (
	_ "gonum.org/v1/gonum/stat"
)
