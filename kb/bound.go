package kb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"
)

// Per-row bounds of the texts a run stores beside its logged calls. A
// model answer is bounded when it is read (llm.MaxAnswerBytes, 4 MiB),
// but what a run builds from answers is not: a session holds several
// stages' outputs, a final diff several steps' edits. One hostile answer
// made a 373 MB session archive row and a 3.4 GB raw.duckdb (issue 25).
// An oversized value is kept as its head, a marker line naming its size
// and its tail (Bound): never dropped silently, and the end of a text,
// where an answer's last edit or a failure shows, survives.
const (
	// MaxArchiveBytes bounds one raw.session_archives row: a session of a
	// large task (every stage's output, the final context) is some
	// hundreds of KB; 4 MB is room for it ten times over.
	MaxArchiveBytes = 4 << 20
	// MaxAttemptBytes bounds an implement attempt's raw answer
	// (raw.run_attempts.raw_response): a step's edits are a few KB to a
	// few hundred; the answer's logged call row keeps it up to the answer
	// ceiling anyway.
	MaxAttemptBytes = 1 << 20
	// MaxDiffBytes bounds a run's final diff (raw.task_runs.final_diff):
	// the diff of every step of a run, where several large steps add up;
	// the run's branch keeps the whole diff.
	MaxDiffBytes = 4 << 20
)

// boundMarker is the line that stands for what Bound cut out.
const boundMarker = "\n[cra: cut to %d bytes from %d: the middle is left out]\n"

// Bound is s when it has at most limit bytes, else its head and its tail
// around a marker line naming s's size, limit bytes in all (less when a
// cut would split a UTF-8 character).
func Bound(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	marker := fmt.Sprintf(boundMarker, limit, len(s))
	keep := max(limit-len(marker), 0)
	head, tail := keep/2, len(s)-(keep-keep/2)
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + marker + s[tail:]
}

// boundArchive keeps a session's JSON object under MaxArchiveBytes and
// still a JSON object (the eval view reads archived keys): the values over
// a share, largest first, become JSON strings of their Bound text, the
// share halving until the whole fits. What is not a JSON object is bound
// as text.
func boundArchive(b []byte) []byte {
	if len(b) <= MaxArchiveBytes {
		return b
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return []byte(Bound(string(b), MaxArchiveBytes))
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(keys[names[i]]) > len(keys[names[j]]) })
	for share := MaxArchiveBytes / 2; share >= 1<<10; share /= 2 {
		out := make(map[string]json.RawMessage, len(keys))
		for _, k := range names {
			out[k] = keys[k]
			if len(keys[k]) > share {
				// Escaping raw JSON as a string at most doubles it (no HTML
				// escaping; control characters are escaped already).
				out[k] = compactJSON(Bound(string(keys[k]), share/2))
			}
		}
		if all := compactJSON(out); len(all) <= MaxArchiveBytes {
			return all
		}
	}
	return []byte(Bound(string(b), MaxArchiveBytes)) // thousands of keys: as text
}

// compactJSON is v (a string, or a map of raw JSON values that decoded
// once) as JSON, with <, > and & as they are: json.Marshal's escaping of
// them would make a bound text up to six times longer.
func compactJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v) //nolint:errcheck // strings and decoded raw values always encode
	return bytes.TrimRight(buf.Bytes(), "\n")
}
