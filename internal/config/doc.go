// Package config owns cra's home directory layout and its config.toml: the
// defaults, the commented template `cra init` writes, loading, and validation
// with errors that name the file, the key and the fix.
//
// Secrets never live here: a config key may only name the environment
// variable that holds an API key (api_key_env), and loading refuses keys that
// look like secrets.
package config
