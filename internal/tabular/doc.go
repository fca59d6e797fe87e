// Package tabular writes SQL results for people and programs: an aligned
// table, CSV, JSON, JSON Lines and Markdown. It turns DuckDB's Go values
// (lists, structs, maps, decimals, UUIDs, times) into stable text and JSON.
// Parquet is not here: DuckDB's COPY writes it.
package tabular
