package analysis

import (
	"slices"

	"github.com/cra-dev/cra/internal/stats"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// solveEvidence reads the logged solve runs: outcome against what their
// decisions and passes show.
func solveEvidence(runs []kb.SolveRun) *SolveEvidence {
	if len(runs) == 0 {
		return nil
	}
	s := &SolveEvidence{Runs: len(runs)}
	var dropped, retried [4]int // indicator&fail, indicator&ok, not&fail, not&ok
	count := func(cells *[4]int, indicator, fail bool) {
		i := 0
		if !indicator {
			i = 2
		}
		if !fail {
			i++
		}
		cells[i]++
	}
	attempts, adjFailed := 0, 0
	passes := map[string][2]int{} // failed, all
	for _, r := range runs {
		if !r.Success {
			s.Failed++
		}
		droppedTouched := false
		for _, p := range r.Dropped {
			droppedTouched = droppedTouched || slices.Contains(r.Touched, p)
		}
		if droppedTouched {
			s.DroppedTouchedRuns++
		}
		count(&dropped, droppedTouched, !r.Success)
		anyRetry := false
		for _, p := range r.Passes {
			c := passes[p.Type]
			c[1]++
			if !p.Success {
				c[0]++
			}
			passes[p.Type] = c
			switch p.Type {
			case schema.PassStepImplement:
				s.Steps++
				attempts += p.Attempts
				anyRetry = anyRetry || p.Attempts > 1
			case schema.PassAdjustment:
				s.Adjustments++
				if !p.Success {
					adjFailed++
				}
			}
		}
		count(&retried, anyRetry, !r.Success)
	}
	if dropped[0]+dropped[1] > 0 && dropped[2]+dropped[3] > 0 {
		s.ScopeDroppedTouched = newAssociation(dropped[0], dropped[1], dropped[2], dropped[3])
	}
	if retried[0]+retried[1] > 0 && retried[2]+retried[3] > 0 {
		s.Retried = newAssociation(retried[0], retried[1], retried[2], retried[3])
	}
	if s.Steps > 0 {
		s.AttemptsPerStep = stats.Round4(float64(attempts) / float64(s.Steps))
	}
	s.AdjustmentsFailed = newRate(adjFailed, s.Adjustments)
	for _, t := range sortedKeys(passes) {
		s.PassFailures = append(s.PassFailures, PassRate{PassType: t, Failed: newRate(passes[t][0], passes[t][1])})
	}
	return s
}
