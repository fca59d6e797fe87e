package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// go-openai hides two things this package needs, so its HTTP client's
// transport is wrapped (hookTransport) and each attempt passes an exchange
// through the request context:
//   - the answer's headers: its APIError and RequestError carry the status
//     code but not Retry-After;
//   - body fields it cannot express: ChatCompletionRequest.Temperature is a
//     float32 with omitempty, so temperature 0 — greedy decoding, the
//     project default — would be dropped and the server's default (often
//     0.7 or 1) used instead (sashabaranov/go-openai#9, #678). The exchange
//     sets such fields in the JSON body as sent.
//
// The transport also reads the whole body before go-openai sees it, so a
// connection lost mid-body is a transport error and a body go-openai then
// fails to decode is a malformed answer: the two are retried differently.

type exchangeKey struct{}

// exchange is one attempt through go-openai.
type exchange struct {
	extra map[string]any // set in the request body as sent
	limit int64          // the most bytes the answer may have (answerLimit)
	cutOK bool           // the caller reads an answer cut at limit itself

	status int // filled in by the transport
	header http.Header
	body   []byte // up to limit bytes
	over   bool   // the answer had more than limit bytes
}

func withExchange(ctx context.Context, x *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, x)
}

type hookTransport struct{ base http.RoundTripper }

// hook returns a copy of hc whose transport records exchanges; hc itself is
// left as it was.
func hook(hc *http.Client) *http.Client {
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cp := *hc
	cp.Transport = &hookTransport{base: base}
	return &cp
}

func (t *hookTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	x, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if x == nil {
		return t.base.RoundTrip(req)
	}
	if len(x.extra) > 0 && req.Body != nil {
		patched, err := patchBody(req, x.extra)
		if err != nil {
			return nil, err
		}
		req = patched
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	raw, over, err := readAnswer(resp.Body, x.limit)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	resp.ContentLength = int64(len(raw))
	x.status, x.header, x.body, x.over = resp.StatusCode, resp.Header.Clone(), raw, over
	return resp, nil
}

// patchBody returns a copy of req whose JSON object body has extra's fields
// set. req's body is consumed and closed, as a RoundTripper must.
func patchBody(req *http.Request, extra map[string]any) (*http.Request, error) {
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("patch request body: %w", err)
	}
	for k, v := range extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("patch request body: %s: %w", k, err)
		}
		fields[k] = b
	}
	body, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("patch request body: %w", err)
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	return out, nil
}
