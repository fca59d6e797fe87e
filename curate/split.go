package curate

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/cra-dev/cra/kb"
)

// splitOf assigns a commit's examples to a split by a hash of repo and
// commit, so every example of one commit lands in the same split (no
// leakage between train and validation); holdout repositories go to
// validation whole.
func splitOf(repo, commit string, validation float64, holdout map[string]bool) string {
	if holdout[repo] {
		return kb.SplitValidation
	}
	if unitHash(repo, commit) < validation {
		return kb.SplitValidation
	}
	return kb.SplitTrain
}

// unitHash maps its parts to [0, 1) deterministically.
func unitHash(parts ...string) float64 {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return float64(binary.BigEndian.Uint64(h.Sum(nil))>>11) / (1 << 53)
}
