package fakellm

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// Oracle answers like a model that knows the ground truth, with errors
// planted at a chosen rate per stage: what an eval test needs to make one
// stage weak and see it in the scores. Answer reads a request and gives
// the stage it belongs to, the right answer and a wrong one (ok false: a
// request the oracle cannot place, answered by Fallback, or 500).
type Oracle struct {
	Answer    func(req Request) (stage, right, wrong string, ok bool)
	ErrorRate map[string]float64 // stage → share of its requests answered wrong
	Seed      string             // changes which requests get the wrong answer
	Fallback  func(req Request) Reply
}

// OracleStats counts the answers an oracle gave per stage.
type OracleStats struct {
	mu           sync.Mutex
	Right, Wrong map[string]int
}

// Counts returns a copy of the counts.
func (s *OracleStats) Counts() (right, wrong map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	right, wrong = map[string]int{}, map[string]int{}
	for k, v := range s.Right {
		right[k] = v
	}
	for k, v := range s.Wrong {
		wrong[k] = v
	}
	return right, wrong
}

// SetOracle makes o answer every request the script does not. Which
// requests get the wrong answer is decided by a hash of the seed, the
// stage and the request's messages, so the same prompt is answered the
// same way every time (a resumed run sees what the killed one saw).
func (s *Server) SetOracle(o Oracle) *OracleStats {
	stats := &OracleStats{Right: map[string]int{}, Wrong: map[string]int{}}
	s.SetDefault(func(req Request) Reply {
		stage, right, wrong, ok := o.Answer(req)
		if !ok {
			if o.Fallback != nil {
				return o.Fallback(req)
			}
			return Reply{Status: 500, Error: "the oracle does not know this request"}
		}
		h := sha256.New()
		h.Write([]byte(o.Seed + "\x00" + stage))
		for _, m := range req.Messages {
			h.Write([]byte("\x00" + m.Content))
		}
		u := float64(binary.BigEndian.Uint64(h.Sum(nil))>>11) / (1 << 53)
		stats.mu.Lock()
		defer stats.mu.Unlock()
		if u < o.ErrorRate[stage] {
			stats.Wrong[stage]++
			return Reply{Text: wrong}
		}
		stats.Right[stage]++
		return Reply{Text: right}
	})
	return stats
}
