package main

import (
	"time"

	"github.com/urfave/cli/v3"

	"github.com/cra-dev/cra/kb"
)

// storeWaitFlag is --wait of the commands that read the stores (sql,
// status): how long to wait for a store another cra process is writing.
func storeWaitFlag() cli.Flag {
	return &cli.DurationFlag{Name: "wait", Value: kb.ReadWait,
		Usage: "wait up to `DURATION` for a store another process is writing (a batch holds one only while it writes, " +
			"so this is its next idle moment); 0 fails at once, naming the holder (exit 2)"}
}

// storeOptions opens the stores for command as --wait says, saying once on
// stderr what it waits for.
func (a *app) storeOptions(cmd *cli.Command, write bool) (kb.Options, error) {
	wait, err := waitOf(cmd)
	if err != nil {
		return kb.Options{}, err
	}
	return kb.Options{Write: write, Command: commandName(cmd), Wait: wait, Waiting: a.sayWaiting(wait)}, nil
}

// sayWaiting is kb.Options.Waiting for a wait of up to wait: one line on
// stderr naming the holder, so a command that seems stuck says why.
func (a *app) sayWaiting(wait time.Duration) func(holder error) {
	return func(holder error) {
		a.log.Warn("waiting for a store another process holds", "holder", holder.Error(), "up_to", wait.Round(time.Second))
	}
}
