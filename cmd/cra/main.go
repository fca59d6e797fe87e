// Command cra runs the training loop of a small local code model: it indexes
// repositories, mines their history into synthetic ground truth, logs every
// agent run, curates datasets and exports them for LoRA training.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
