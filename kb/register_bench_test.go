package kb_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cra-dev/cra/internal/storetest"
	"github.com/cra-dev/cra/kb"
)

// The registration of a large version: 100,000 staged examples of about
// 3 KB (300 MB) moved into training_examples in one transaction at the
// smallest memory limit [store] accepts. peak_MB is the process's peak
// resident memory during the move alone: the move runs inside DuckDB,
// within its memory limit, whatever the size of the version.
func BenchmarkRegisterDatasetVersion(b *testing.B) {
	const examples = 100000
	ctx := context.Background()
	home := storetest.Home(b)
	storetest.Exec(b, home, kb.Raw, fmt.Sprintf(`INSERT INTO training_examples_staging (id, dataset, version, stage, source, split,
		label, repo_path, commit, target_id, messages, prompt_tokens, completion_tokens, created_at)
		SELECT md5(i::VARCHAR), 'big', 1, 'implement', 'synthetic', 'train', 'positive', '/repo' || (i %% 20), 'c' || i, 't' || i,
			[{'role': 'system', 'content': 'You edit code.'}, {'role': 'user', 'content': repeat('def handler' || i || '(x):\n    x = x + 1\n', 80)},
			 {'role': 'assistant', 'content': '<edit>' || i || '</edit>'}], 700, 10, now()
		FROM range(%d) r(i)`, examples))
	kb.SetMemoryLimit("512MiB")
	b.Cleanup(func() { kb.SetMemoryLimit("") })
	b.ResetTimer()
	var peak int64
	for range b.N {
		err := kb.WithWriter(ctx, home, kb.Raw, kb.Options{Command: "bench"}, func(w kb.Writer) error {
			storetest.ResetPeakRSS()
			err := w.Tx(ctx, func() error {
				return kb.RegisterDatasetVersion(ctx, w, kb.DatasetVersion{Name: "big", Version: 1, TrainingPlanID: 1,
					Examples: examples, Criteria: []byte(`{}`), Created: time.Now()})
			})
			peak = max(peak, storetest.PeakRSS())
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		// The same rows staged again for the next round.
		storetest.Exec(b, home, kb.Raw, `INSERT INTO training_examples_staging SELECT * FROM training_examples;
			DELETE FROM training_examples; DELETE FROM dataset_versions`)
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak_MB")
}
