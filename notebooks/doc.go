// Package notebooks holds the SQL notebooks users run with `cra sql -f`
// (embedded, so the binary can list and print them). A test runs each one
// against a fixture store so they stay true as the schemas move.
package notebooks
