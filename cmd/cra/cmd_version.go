package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/internal/version"
)

func (a *app) versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print cra's version: the module version and the VCS revision it was built from",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if a.json {
				return a.writeJSON(map[string]string{"version": version.String()})
			}
			_, err := fmt.Fprintf(a.stdout, "cra version %s\n", version.String())
			return err
		},
	}
}
