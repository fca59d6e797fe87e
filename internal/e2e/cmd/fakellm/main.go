// Command fakellm serves internal/fakellm in oracle mode as a standalone
// process, for `make e2e`: it reads the ground truth of every task mined
// into --home (read-only, once, at start: start it after cra bootstrap and
// before cra eval), listens on --addr as an Ollama and an OpenAI-compatible
// server (the teacher, charging e2e.Billing's prices), prints
// "fakellm: N tasks, listening on URL" on stdout, and serves until SIGINT
// or SIGTERM, then prints what it answered.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cra-dev/cra/internal/e2e"
	"github.com/cra-dev/cra/internal/fakellm"
)

func main() {
	home := flag.String("home", "", "the cra home whose mined tasks the oracle knows")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	if *home == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: fakellm --home DIR [--addr HOST:PORT]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	oracle, n, err := e2e.Oracle(ctx, *home)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakellm: %v\n", err)
		os.Exit(1)
	}
	srv, err := fakellm.Start(*addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakellm: %v\n", err)
		os.Exit(1)
	}
	srv.AllowUnused()
	srv.SetBilling(e2e.Billing())
	srv.SetModels(e2e.Models()...)
	srv.SetAdapters(map[string]fakellm.AdapterBehaviour{e2e.AdapterServed: {}})
	stats := srv.SetOracle(oracle)
	fmt.Printf("fakellm: %d tasks, listening on %s\n", n, srv.URL)
	<-ctx.Done()
	srv.Close()
	right, wrong := stats.Counts()
	fmt.Printf("fakellm: %d chat requests; right answers %v, wrong %v; charged $%.4f\n", srv.Calls(), right, wrong, srv.Spent())
}
