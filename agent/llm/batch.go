package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	openai "github.com/sashabaranov/go-openai"
)

// Batches is the OpenAI Batch API of one remote model: a JSONL file of
// chat requests is uploaded, a batch created from it, asked about until it
// ends, and its output file downloaded. Every operation goes through the
// client's retry policy and key redaction; a batch is found again by its
// input file after a restart (FindByInput), so a run killed between
// creating a batch and recording it does not create (and pay for) another.
type Batches struct {
	c *client
	p *openAI
}

// Batch statuses that end a batch (OpenAI's names).
const (
	BatchCompleted = "completed"
	BatchFailed    = "failed"
	BatchExpired   = "expired"
	BatchCancelled = "cancelled"
)

// Batch is a batch as the API describes it.
type Batch struct {
	ID, Status                string
	InputFileID               string
	OutputFileID, ErrorFileID string // "" until there is one
	Total, Completed, Failed  int    // request counts
}

// Done reports whether the batch has ended, one way or another.
func (b Batch) Done() bool {
	switch b.Status {
	case BatchCompleted, BatchFailed, BatchExpired, BatchCancelled:
		return true
	}
	return false
}

// NewBatches builds the Batch API client of cfg (an OpenAI-compatible
// provider), reading the API key as New does.
func NewBatches(cfg ModelConfig, opts ...Option) (*Batches, error) {
	cl, err := New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	c := cl.(*client)
	p, ok := c.provider.(*openAI)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no Batch API: use remote_api or openai_compat", ErrInvalidConfig, c.cfg.Provider)
	}
	return &Batches{c: c, p: p}, nil
}

// Close releases idle connections.
func (b *Batches) Close() error { return b.c.Close() }

// BatchLine is one line of a batch input file: a chat request shaped as a
// live call would be (NewChatBody).
type BatchLine struct {
	CustomID string   `json:"custom_id"`
	Method   string   `json:"method"`
	URL      string   `json:"url"`
	Body     ChatBody `json:"body"`
}

// BatchInput renders lines as a JSONL input file.
func BatchInput(lines []BatchLine) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if l.Method == "" {
			l.Method, l.URL = http.MethodPost, string(openai.BatchEndpointChatCompletions)
		}
		if err := enc.Encode(l); err != nil {
			panic(err) // plain strings and numbers only
		}
	}
	return buf.Bytes()
}

// Upload sends a JSONL input file (purpose "batch") and returns its id.
func (b *Batches) Upload(ctx context.Context, name string, jsonl []byte) (string, error) {
	f, err := do(ctx, b, func(ctx context.Context) (openai.File, error) {
		return b.p.api.CreateFileBytes(ctx, openai.FileBytesRequest{Name: name, Bytes: jsonl, Purpose: openai.PurposeBatch})
	})
	return f.ID, err
}

// Create starts a batch of the chat requests in an uploaded file, with a
// 24 h completion window.
func (b *Batches) Create(ctx context.Context, inputFileID string, metadata map[string]string) (Batch, error) {
	meta := map[string]any{}
	for k, v := range metadata {
		meta[k] = v
	}
	out, err := do(ctx, b, func(ctx context.Context) (openai.BatchResponse, error) {
		return b.p.api.CreateBatch(ctx, openai.CreateBatchRequest{InputFileID: inputFileID,
			Endpoint: openai.BatchEndpointChatCompletions, CompletionWindow: "24h", Metadata: meta})
	})
	return batchOf(out.Batch), err
}

// Get asks about a batch.
func (b *Batches) Get(ctx context.Context, id string) (Batch, error) {
	out, err := do(ctx, b, func(ctx context.Context) (openai.BatchResponse, error) {
		return b.p.api.RetrieveBatch(ctx, id)
	})
	return batchOf(out.Batch), err
}

// FindByInput looks through the account's batches, newest first, for one
// made from inputFileID.
func (b *Batches) FindByInput(ctx context.Context, inputFileID string) (Batch, bool, error) {
	var after *string
	limit := 100
	for {
		page, err := do(ctx, b, func(ctx context.Context) (openai.ListBatchResponse, error) {
			return b.p.api.ListBatch(ctx, after, &limit)
		})
		if err != nil {
			return Batch{}, false, err
		}
		for _, x := range page.Data {
			if x.InputFileID == inputFileID {
				return batchOf(x), true, nil
			}
		}
		if !page.HasMore || len(page.Data) == 0 {
			return Batch{}, false, nil
		}
		last := page.Data[len(page.Data)-1].ID
		after = &last
	}
}

// Content downloads a file (a batch's output or error file).
func (b *Batches) Content(ctx context.Context, fileID string) ([]byte, error) {
	return do(ctx, b, func(ctx context.Context) ([]byte, error) {
		raw, err := b.p.api.GetFileContent(ctx, fileID)
		if err != nil {
			return nil, err
		}
		defer raw.Close()
		var buf bytes.Buffer
		_, err = buf.ReadFrom(raw)
		return buf.Bytes(), err
	})
}

// do runs one Batch API operation under the client's retry policy,
// classifying go-openai's errors as chat calls do.
func do[T any](ctx context.Context, b *Batches, op func(ctx context.Context) (T, error)) (T, error) {
	v, _, err := retrying(ctx, b.c, true, func(actx context.Context) (T, error) {
		x := &exchange{}
		v, err := op(withExchange(actx, x))
		if err != nil {
			return v, b.p.classify(err, x)
		}
		return v, nil
	})
	return v, err
}

func batchOf(x openai.Batch) Batch {
	b := Batch{ID: x.ID, Status: x.Status, InputFileID: x.InputFileID,
		Total: x.RequestCounts.Total, Completed: x.RequestCounts.Completed, Failed: x.RequestCounts.Failed}
	if x.OutputFileID != nil {
		b.OutputFileID = *x.OutputFileID
	}
	if x.ErrorFileID != nil {
		b.ErrorFileID = *x.ErrorFileID
	}
	return b
}

// BatchResult is one line of a batch's output or error file: the answer
// to the request with CustomID, or why there is none.
type BatchResult struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// ParseBatchResults reads an output or error file.
func ParseBatchResults(data []byte) ([]BatchResult, error) {
	var out []BatchResult
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r BatchResult
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("batch results line %d: %w", n, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// Answer is the result's chat completion as a Response (text, thinking
// apart, usage), or why there is none.
func (r BatchResult) Answer() (Response, error) {
	switch {
	case r.Error != nil:
		return Response{}, fmt.Errorf("%w: batch request %s: %s: %s", ErrRejected, r.CustomID, r.Error.Code, r.Error.Message)
	case r.Response == nil:
		return Response{}, fmt.Errorf("%w: batch request %s: no response", ErrMalformedResponse, r.CustomID)
	case r.Response.StatusCode != http.StatusOK:
		return Response{}, fmt.Errorf("%w: batch request %s: HTTP %d: %s", ErrRejected, r.CustomID, r.Response.StatusCode, shorten(string(r.Response.Body)))
	}
	var out openai.ChatCompletionResponse
	if err := json.Unmarshal(r.Response.Body, &out); err != nil {
		return Response{}, errors.Join(ErrMalformedResponse, fmt.Errorf("batch request %s: %w", r.CustomID, err))
	}
	resp, err := responseOf(out)
	if err != nil {
		return Response{}, errors.Join(ErrMalformedResponse, fmt.Errorf("batch request %s: %w", r.CustomID, err))
	}
	return resp, nil
}
