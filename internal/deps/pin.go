//go:build tools

// Package deps pins the project's fixed stack in go.mod before every piece of
// it has a user: go mod tidy reads files under all build tags, so these blank
// imports keep the versions the design names. Each line goes away when the
// package that really uses the library lands (go-git: ingest and bootstrap;
// arrow-go: datasets; gonum: analysis).
package deps

import (
	_ "github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/go-git/go-git/v5"
	_ "golang.org/x/mod/modfile"
	_ "golang.org/x/sync/errgroup"
	_ "gonum.org/v1/gonum/stat"
)
