package kb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Session is one task's working state (keys such as task_query,
// stage_output_<stage>, stage_progress, final_context, plan_artifact):
// a JSON object of keys in the home's sessions/ folder, rewritten whole and
// atomically on every Put, so a killed run leaves the last state it
// reached. When the run ends, Archive moves it into raw.session_archives.
type Session struct {
	mu     sync.Mutex
	path   string
	taskID string
	keys   map[string]json.RawMessage
}

// SessionsDir is the folder of live sessions in home dir.
func SessionsDir(dir string) string { return filepath.Join(dir, "sessions") }

// OpenSession opens (or starts) the session of taskID in home dir.
func OpenSession(dir, taskID string) (*Session, error) {
	s := &Session{path: filepath.Join(SessionsDir(dir), taskID+".json"), taskID: taskID, keys: map[string]json.RawMessage{}}
	b, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return s, os.MkdirAll(SessionsDir(dir), 0o755)
	case err != nil:
		return nil, err
	}
	if err := json.Unmarshal(b, &s.keys); err != nil {
		return nil, fmt.Errorf("session %s: %w", taskID, err)
	}
	return s, nil
}

// Put sets key to v and writes the session.
func (s *Session) Put(key string, v any) error { return s.PutAll(map[string]any{key: v}) }

// PutAll sets each key of values and writes the session once: a kill
// leaves all of them or none, so keys that must agree (a step's result
// and the cumulative diff that includes it, a pass's output and the
// progress that counts it) are put together. A value that cannot be
// encoded changes nothing.
func (s *Session) PutAll(values map[string]any) error {
	enc := make(map[string]json.RawMessage, len(values))
	for key, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("session %s: %s: %w", s.taskID, key, err)
		}
		enc[key] = b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := maps.Clone(s.keys)
	maps.Copy(keys, enc)
	all, err := json.MarshalIndent(keys, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, all, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return err
	}
	s.keys = keys
	return nil
}

// Get reads key into v; false when the session has no such key.
func (s *Session) Get(key string, v any) (bool, error) {
	s.mu.Lock()
	b, ok := s.keys[key]
	s.mu.Unlock()
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}

// Keys lists the session's keys, sorted.
func (s *Session) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.keys))
	for k := range s.keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Archive stores the session's file in raw.session_archives through w (in
// its own transaction) and removes it: the run is over.
func (s *Session) Archive(ctx context.Context, w Writer) error {
	if err := w.Tx(ctx, func() error { return s.ArchiveRow(ctx, w.Conn, nil) }); err != nil {
		return err
	}
	return s.Remove()
}

// ArchiveRow inserts the session's archive row through q, inside the
// caller's transaction (a pass's rows and its session's archive commit
// together); Remove deletes the file once that transaction committed.
// mask (nil: none) is applied to the archived text, so a secret a model
// answer repeated is stored as the logged calls have it; the masked text
// is then bounded to MaxArchiveBytes (boundArchive).
func (s *Session) ArchiveRow(ctx context.Context, q Execer, mask func(string) string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		b, err = json.Marshal(s.keys) // nothing was ever put
	}
	if err == nil && mask != nil {
		b = []byte(mask(string(b)))
	}
	if err == nil {
		_, err = q.ExecContext(ctx, `INSERT INTO session_archives (task_id, session_blob, archived_at) VALUES (?, ?, ?)`,
			s.taskID, boundArchive(b), time.Now().UTC())
	}
	if err != nil {
		return fmt.Errorf("archive session %s: %w", s.taskID, err)
	}
	return nil
}

// Remove deletes the session's file.
func (s *Session) Remove() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
