package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"

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

// batchLineOverhead is what a results line holds around its answer's
// body: the ids, the status, the usage.
const batchLineOverhead = 16 << 10

// lineLimit is the most bytes a results line may have: an answer's limit
// (the model's max_tokens, within MaxAnswerBytes) and the line around it.
func (b *Batches) lineLimit() int64 { return b.c.cfg.answerLimit(Request{}) + batchLineOverhead }

// Results downloads and parses a batch's output or error file, of a batch
// of requests lines: the file is read up to requests lines of lineLimit
// (a hostile or broken server cannot take the machine's memory with it),
// and a line over lineLimit is a result refused for its size, not parsed.
// cut reports that lines were left unread, or unnamed for their size:
// their requests stay unanswered.
func (b *Batches) Results(ctx context.Context, fileID string, requests int) (rs []BatchResult, cut bool, err error) {
	limit := int64(max(requests, 1)) * b.lineLimit()
	var over bool
	data, err := do(ctx, b, func(ctx context.Context) ([]byte, error) {
		x := ctx.Value(exchangeKey{}).(*exchange)
		x.limit, x.cutOK = limit, true
		raw, err := b.p.api.GetFileContent(ctx, fileID)
		if err != nil {
			return nil, err
		}
		defer raw.Close()
		var buf bytes.Buffer
		_, err = buf.ReadFrom(raw)
		over = x.over
		return buf.Bytes(), err
	})
	if err != nil {
		return nil, false, err
	}
	if over { // the last line read is cut: leave it out
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	rs, unnamed, err := parseResults(data, b.lineLimit())
	return rs, over || unnamed, err
}

// batchReplyBytes bounds the answer of a Batch API operation other than a
// results download (a file or batch object, a page of batches): some KB
// each; more is a broken or hostile server.
const batchReplyBytes = 1 << 20

// do runs one Batch API operation under the client's retry policy,
// classifying go-openai's errors as chat calls do. Its answer may have
// batchReplyBytes unless op sets its exchange's own limit and reads a cut
// answer itself (cutOK).
func do[T any](ctx context.Context, b *Batches, op func(ctx context.Context) (T, error)) (T, error) {
	v, _, err := retrying(ctx, b.c, true, func(actx context.Context) (T, error) {
		x := &exchange{limit: batchReplyBytes}
		v, err := op(withExchange(actx, x))
		switch {
		case x.over && !x.cutOK:
			return v, &failure{status: x.status, err: &kindError{kind: ErrMalformedResponse,
				msg: fmt.Sprintf("Batch API answer from %s refused: over %d bytes", b.c.cfg.BaseURL, x.limit)}}
		case err != nil:
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
	// size is the bytes of a line refused unread for being over limit.
	size  int
	limit int64
}

// parseResults reads an output or error file. A line over lineLimit
// bytes is not parsed: its result names its request (when its start does)
// and carries its size, to be refused as unusable; unnamed reports a line
// too large whose request could not be named.
func parseResults(data []byte, lineLimit int64) (out []BatchResult, unnamed bool, err error) {
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case int64(len(line)) > lineLimit:
			id, ok := customIDOf(line[:min(len(line), 4<<10)])
			if !ok {
				unnamed = true
				continue
			}
			out = append(out, BatchResult{CustomID: id, size: len(line), limit: lineLimit})
			continue
		}
		var r BatchResult
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, false, fmt.Errorf("batch results line %d: %w", n, err)
		}
		out = append(out, r)
	}
	return out, unnamed, nil
}

// customIDPattern finds a results line's custom_id in its start.
var customIDPattern = regexp.MustCompile(`"custom_id"\s*:\s*("(?:[^"\\]|\\.)*")`)

// customIDOf is the custom_id a results line's start names.
func customIDOf(start []byte) (string, bool) {
	m := customIDPattern.FindSubmatch(start)
	if m == nil {
		return "", false
	}
	var id string
	if err := json.Unmarshal(m[1], &id); err != nil || id == "" {
		return "", false
	}
	return id, true
}

// Answer is the result's chat completion as a Response (text, thinking
// apart, usage), or why there is none.
func (r BatchResult) Answer() (Response, error) {
	switch {
	case r.size > 0:
		return Response{}, fmt.Errorf("%w: batch request %s: answer refused: its results line has %d bytes, over %d, the most an answer of the model's max_tokens may take",
			ErrMalformedResponse, r.CustomID, r.size, r.limit)
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
