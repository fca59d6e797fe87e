package main

import (
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/kb"
)

// splitList is the comma-separated items of s, trimmed, empty ones left out.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// splitAll is splitList over every value of a repeatable flag.
func splitAll(xs []string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, splitList(x)...)
	}
	return out
}

// repoPaths is the repositories a flag such as --repos or --holdout-repos
// names, each canonical as the stores hold it (kb.CanonicalPath); nil when
// the flag is not given, so the configuration's list applies.
func repoPaths(cmd *cli.Command, flag string) []string {
	var out []string
	for _, r := range splitAll(cmd.StringSlice(flag)) {
		out = append(out, kb.CanonicalPath(r))
	}
	return out
}

// readTrainingPlan reads --training-plan FILE, nil when none is given; a
// file that cannot be read is a usage error.
func readTrainingPlan(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usage.Errorf("--training-plan: %v", err)
	}
	return b, nil
}
