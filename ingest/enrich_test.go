package ingest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/fakellm"
	"github.com/cra-dev/cra/internal/gittest"
)

// When the model cannot answer at all (refused credentials, no server), the
// run stops launching work and records only the calls it really made: no
// row for a file that was never attempted, no "context canceled" row.
func TestEnrichFatalModelErrorStopsWithoutRecordingUnattemptedFiles(t *testing.T) {
	r := gittest.New(t)
	for i := range 40 {
		r.Write(fmt.Sprintf("pkg/m%02d.py", i), fmt.Sprintf("def f%d():\n    return %d\n", i, i))
	}
	r.Commit("Add forty modules")
	refusing := fakellm.New(t)
	refusing.SetDefault(func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Status: 401, Error: "invalid api key"} })
	refusing.AllowUnused()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	deadURL := "http://" + closed.Addr().String()
	closed.Close()

	for _, tc := range []struct{ name, url string }{{"401", refusing.OllamaURL()}, {"no server", deadURL}} {
		t.Run(tc.name, func(t *testing.T) {
			home := newHome(t)
			index(t, home, Options{}, r.Dir)
			const jobs = 2
			model := llm.ModelConfig{Provider: llm.ProviderOllama, BaseURL: tc.url, Model: "r:1b", MaxRetries: 1}
			sum, err := Enrich(context.Background(), home, r.Dir, EnrichOptions{Model: model, Jobs: jobs})
			if err == nil {
				t.Fatalf("summary %+v: want the run stopped by the model error", sum)
			}
			outputs := rawRows(t, home, "SELECT count(*), count(*) FILTER (error ILIKE '%context canceled%') FROM enrichment_outputs")
			calls := rawRows(t, home, "SELECT count(*), count(*) FILTER (error ILIKE '%context canceled%') FROM retrieval_llm_calls")
			var nOut, cancelledOut, nCalls, cancelledCalls int
			fmt.Sscanf(strings.ReplaceAll(outputs[0], "\t", " "), "%d %d", &nOut, &cancelledOut)
			fmt.Sscanf(strings.ReplaceAll(calls[0], "\t", " "), "%d %d", &nCalls, &cancelledCalls)
			if nOut == 0 || nOut > jobs || cancelledOut > 0 {
				t.Errorf("enrichment_outputs: %d rows (%d cancelled); want 1 to %d, the files attempted, none cancelled", nOut, cancelledOut, jobs)
			}
			// A call in flight when the run stopped was made, and is logged
			// as cut off; no call starts after the stop.
			if nCalls == 0 || nCalls > 2*jobs || cancelledCalls > jobs-1 {
				t.Errorf("retrieval_llm_calls: %d rows (%d cancelled); want only the calls made (at most %d in flight cut off)", nCalls, cancelledCalls, jobs-1)
			}
			if sum.Failed != nOut {
				t.Errorf("summary says %d failed, %d recorded", sum.Failed, nOut)
			}
		})
	}
}
