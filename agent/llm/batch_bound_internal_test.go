package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// What a Batch API download reads back is bounded: a results line over
// the line limit is refused unread (named by its custom_id when its start
// names it), a file over its requests' lines is read up to them, and any
// other answer over batchReplyBytes is refused.
func TestBatchResultsAreBounded(t *testing.T) {
	answer := func(id, text string) string {
		return fmt.Sprintf(`{"custom_id": %q, "response": {"status_code": 200, "body": {"model": "m", "choices": [{"message": {"role": "assistant", "content": %q}}]}}}`, id, text)
	}
	files := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := strings.CutPrefix(r.URL.Path, "/v1/files/"); ok {
			fmt.Fprint(w, files[strings.TrimSuffix(id, "/content")])
			return
		}
		fmt.Fprintf(w, `{"id": "b1", "status": "completed", "metadata": {"pad": %q}}`, strings.Repeat("p", batchReplyBytes))
	}))
	defer srv.Close()
	b, err := NewBatches(ModelConfig{Provider: ProviderRemoteAPI, BaseURL: srv.URL + "/v1", Model: "m", MaxTokens: 100, APIKeyEnv: "K"},
		WithLookupEnv(func(string) (string, bool) { return "key", true }))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	limit := b.lineLimit()
	big := strings.Repeat("x", int(limit))
	files["ok"] = answer("a", "one") + "\n" + answer("b", "two") + "\n"
	files["big line"] = answer("a", "one") + "\n" + answer("b", big) + "\n"
	files["big unnamed line"] = answer("a", "one") + "\n" + `{"response": {"body": "` + big + `"}, "custom_id": "b"}` + "\n"
	files["more lines than requests"] = strings.Repeat(answer("a", strings.Repeat("y", int(limit)/2))+"\n", 3)
	for _, tc := range []struct {
		file     string
		requests int
		ids      string
		cut      bool
		refused  string // the custom_id whose answer is refused for its size
	}{
		{"ok", 2, "a b", false, ""},
		{"big line", 2, "a b", false, "b"},
		{"big unnamed line", 2, "a", true, ""},
		{"more lines than requests", 1, "a", true, ""},
		{"more lines than requests", 3, "a a a", false, ""},
	} {
		t.Run(fmt.Sprintf("%s of %d", tc.file, tc.requests), func(t *testing.T) {
			rs, cut, err := b.Results(t.Context(), tc.file, tc.requests)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range rs {
				ids = append(ids, r.CustomID)
				_, err := r.Answer()
				refused := errors.Is(err, ErrMalformedResponse) && strings.Contains(err.Error(), "answer refused")
				if refused != (r.CustomID == tc.refused) {
					t.Errorf("%s: Answer error %v; refused for its size: want %v", r.CustomID, err, !refused)
				}
			}
			if strings.Join(ids, " ") != tc.ids || cut != tc.cut {
				t.Errorf("results %v, cut %v; want %s, cut %v", ids, cut, tc.ids, tc.cut)
			}
		})
	}
	if _, err := b.Get(t.Context(), "b1"); !errors.Is(err, ErrMalformedResponse) || !strings.Contains(err.Error(), "refused: over") {
		t.Errorf("a batch object over %d bytes: %v, want it refused", batchReplyBytes, err)
	}
}
