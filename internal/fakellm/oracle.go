package fakellm

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
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

// OracleStats counts the answers an oracle gave per stage, in all and
// per adapter asked for ("" is the base model).
type OracleStats struct {
	mu           sync.Mutex
	Right, Wrong map[string]int
	byAdapter    map[string]*[2]map[string]int // adapter → right, wrong per stage
}

// Counts returns a copy of the counts.
func (s *OracleStats) Counts() (right, wrong map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.Right), maps.Clone(s.Wrong)
}

// CountsOf returns a copy of the counts of the requests that asked for
// adapter (a served name; "" for the base model).
func (s *OracleStats) CountsOf(adapter string) (right, wrong map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	right, wrong = map[string]int{}, map[string]int{}
	if c := s.byAdapter[adapter]; c != nil {
		right, wrong = maps.Clone(c[0]), maps.Clone(c[1])
	}
	return right, wrong
}

// count adds one answer of stage, right or not, asked of adapter.
func (s *OracleStats) count(adapter, stage string, right bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.byAdapter[adapter]
	if c == nil {
		c = &[2]map[string]int{{}, {}}
		s.byAdapter[adapter] = c
	}
	if right {
		s.Right[stage]++
		c[0][stage]++
	} else {
		s.Wrong[stage]++
		c[1][stage]++
	}
}

// SetOracle makes o answer every request the script does not. Which
// requests get the wrong answer is decided by a hash of the seed, the
// stage and the request's messages, so the same prompt is answered the
// same way every time (a resumed run sees what the killed one saw). A
// request for a loaded adapter (SetAdapters) is answered at the adapter's
// rate for its stage; the hash leaves the adapter out, so on the same
// prompts a lower rate errs on a subset of what a higher one errs on.
func (s *Server) SetOracle(o Oracle) *OracleStats {
	stats := &OracleStats{Right: map[string]int{}, Wrong: map[string]int{}, byAdapter: map[string]*[2]map[string]int{}}
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
		if u < s.errorRate(o, req, stage) {
			stats.count(req.Adapter, stage, false)
			return Reply{Text: wrong}
		}
		stats.count(req.Adapter, stage, true)
		return Reply{Text: right}
	})
	return stats
}
