package kb

import (
	"crypto/sha256"
	"encoding/binary"
)

// SplitOf is the one split rule, shared by curate-data (which split an
// example goes to) and eval (which tasks are held out): a commit goes to
// validation when a hash of its repository and commit falls under the
// validation fraction, so every example of a commit lands in one split;
// a holdout repository goes to validation whole. A task held out here
// never reaches a train split.
func SplitOf(repo, commit string, validation float64, holdout map[string]bool) string {
	if holdout[repo] {
		return SplitValidation
	}
	if UnitHash(repo, commit) < validation {
		return SplitValidation
	}
	return SplitTrain
}

// UnitHash maps its parts to [0, 1) deterministically.
func UnitHash(parts ...string) float64 {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return float64(binary.BigEndian.Uint64(h.Sum(nil))>>11) / (1 << 53)
}
