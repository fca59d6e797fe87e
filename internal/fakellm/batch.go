package fakellm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The Batch API, as OpenAI serves it: POST /v1/files (multipart, purpose
// "batch"), GET /v1/files/{id}/content, POST /v1/batches, GET
// /v1/batches/{id} and GET /v1/batches (newest first, limit and after). A
// batch is answered when it is first asked about (unless HoldBatches):
// each line gets the reply a live request would (script, then default),
// charged at the batch discount.

type batchState struct {
	files       map[string]*fakeFile
	list        []*fakeBatch // in creation order
	uploads     int
	created     int
	requests    int
	hold        bool
	createDelay time.Duration
	seq         int
}

type fakeFile struct {
	id, name, purpose string
	data              []byte
}

type fakeBatch struct {
	id, status, input, output, errors string
	metadata                          map[string]any
	created                           int64
	total, completed, failed          int
}

// HoldBatches keeps every batch in_progress while hold is true.
func (s *Server) HoldBatches(hold bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches.hold = hold
}

// SetBatchCreateDelay makes POST /v1/batches answer only after d; the
// batch exists from the moment the request arrives, as when a client is
// killed before it reads the answer.
func (s *Server) SetBatchCreateDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches.createDelay = d
}

// Uploads is the number of files uploaded.
func (s *Server) Uploads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches.uploads
}

// BatchesCreated is the number of batches created.
func (s *Server) BatchesCreated() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches.created
}

// BatchRequests is the number of requests answered inside batches.
func (s *Server) BatchRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches.requests
}

func (s *Server) serveBatchAPI(w http.ResponseWriter, r *http.Request, body []byte) {
	path := strings.TrimPrefix(r.URL.Path, "/v1/")
	parts := strings.Split(path, "/")
	switch {
	case r.Method == http.MethodPost && path == "files":
		s.upload(w, r, body)
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "files" && parts[2] == "content":
		s.mu.Lock()
		f := s.batches.files[parts[1]]
		s.mu.Unlock()
		if f == nil {
			apiError(w, http.StatusNotFound, "No such File object: "+parts[1])
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(f.data)
	case r.Method == http.MethodPost && path == "batches":
		s.createBatch(w, r, body)
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "batches":
		s.mu.Lock()
		b := s.findBatch(parts[1])
		if b != nil && (b.status == "validating" || b.status == "in_progress") {
			if s.batches.hold {
				b.status = "in_progress"
			} else {
				s.runBatch(b)
			}
		}
		var out map[string]any
		if b != nil {
			out = b.json()
		}
		s.mu.Unlock()
		if b == nil {
			apiError(w, http.StatusNotFound, "No such Batch object: "+parts[1])
			return
		}
		writeJSON(w, http.StatusOK, out)
	case r.Method == http.MethodGet && path == "batches":
		s.listBatches(w, r)
	default:
		apiError(w, http.StatusNotFound, "fakellm: no route "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request, body []byte) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		apiError(w, http.StatusBadRequest, "fakellm: upload: "+err.Error())
		return
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	f := &fakeFile{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			apiError(w, http.StatusBadRequest, "fakellm: upload: "+err.Error())
			return
		}
		data, _ := io.ReadAll(part)
		switch part.FormName() {
		case "purpose":
			f.purpose = string(data)
		case "file":
			f.name, f.data = part.FileName(), data
		}
	}
	if f.purpose != "batch" || f.data == nil {
		apiError(w, http.StatusBadRequest, "fakellm: upload needs purpose=batch and a file")
		return
	}
	s.mu.Lock()
	s.batches.uploads++
	f.id = s.newFile(f)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"id": f.id, "object": "file", "bytes": len(f.data),
		"created_at": 0, "filename": f.name, "purpose": f.purpose, "status": "processed"})
}

// newFile stores f under a new id; called locked.
func (s *Server) newFile(f *fakeFile) string {
	if s.batches.files == nil {
		s.batches.files = map[string]*fakeFile{}
	}
	s.batches.seq++
	f.id = fmt.Sprintf("file-%d", s.batches.seq)
	s.batches.files[f.id] = f
	return f.id
}

func (s *Server) createBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	var in struct {
		InputFileID      string         `json:"input_file_id"`
		Endpoint         string         `json:"endpoint"`
		CompletionWindow string         `json:"completion_window"`
		Metadata         map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		apiError(w, http.StatusBadRequest, "fakellm: create batch: "+err.Error())
		return
	}
	s.mu.Lock()
	if s.batches.files[in.InputFileID] == nil || in.Endpoint != "/v1/chat/completions" {
		s.mu.Unlock()
		apiError(w, http.StatusBadRequest, "fakellm: create batch: unknown input file or endpoint")
		return
	}
	s.batches.seq++
	b := &fakeBatch{id: fmt.Sprintf("batch_%d", s.batches.seq), status: "validating", input: in.InputFileID,
		metadata: in.Metadata, created: time.Now().Unix()}
	s.batches.list = append(s.batches.list, b)
	s.batches.created++
	delay := s.batches.createDelay
	out := b.json()
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		case <-s.stop:
			return
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listBatches(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 {
		limit = 20
	}
	after := r.URL.Query().Get("after")
	s.mu.Lock()
	newest := slices.Clone(s.batches.list)
	slices.Reverse(newest)
	var page []map[string]any
	skipping := after != ""
	more := false
	for _, b := range newest {
		if skipping {
			skipping = b.id != after
			continue
		}
		if len(page) == limit {
			more = true
			break
		}
		page = append(page, b.json())
	}
	s.mu.Unlock()
	if page == nil {
		page = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": page, "has_more": more})
}

// findBatch is the batch with id; called locked.
func (s *Server) findBatch(id string) *fakeBatch {
	for _, b := range s.batches.list {
		if b.id == id {
			return b
		}
	}
	return nil
}

// runBatch answers every request of b and writes its output and error
// files; called locked (the default reply is called unlocked, while b is
// finalizing).
func (s *Server) runBatch(b *fakeBatch) {
	input := s.batches.files[b.input].data
	b.status = "finalizing"
	s.mu.Unlock()
	var out, errs bytes.Buffer
	var reqs []Request
	var done, failed int
	sc := bufio.NewScanner(bytes.NewReader(input))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var line struct {
			CustomID string          `json:"custom_id"`
			Body     json.RawMessage `json:"body"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		req := Request{Method: http.MethodPost, Path: "batch:/v1/chat/completions", Format: FormatOpenAI, Body: line.Body}
		req.decode()
		reqs = append(reqs, req)
		rep := s.pick(req)
		result := map[string]any{"id": fmt.Sprintf("batch_req_%d", n), "custom_id": line.CustomID, "error": nil}
		if rep.status() >= 400 || req.DecodeError != nil {
			failed++
			msg := rep.Error
			if msg == "" {
				msg = fmt.Sprintf("fakellm: scripted %d", rep.status())
			}
			result["response"] = map[string]any{"status_code": rep.status(), "body": map[string]any{"error": map[string]any{"message": msg}}}
			writeLine(&errs, result)
			continue
		}
		done++
		prompt, cached, completion := s.usage(req, rep)
		s.charge(req, prompt, cached, completion, true)
		result["response"] = map[string]any{"status_code": 200, "request_id": fmt.Sprintf("req_%d", n),
			"body": openAIChat(req, rep, fmt.Sprintf("chatcmpl-batch-%d", n), prompt, cached, completion)}
		writeLine(&out, result)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, reqs...)
	s.batches.requests += done
	b.status, b.total, b.completed, b.failed = "completed", done+failed, done, failed
	b.output = s.newFile(&fakeFile{name: "output.jsonl", purpose: "batch_output", data: out.Bytes()})
	if failed > 0 {
		b.errors = s.newFile(&fakeFile{name: "errors.jsonl", purpose: "batch_output", data: errs.Bytes()})
	}
}

func writeLine(buf *bytes.Buffer, v any) {
	js, _ := json.Marshal(v)
	buf.Write(js)
	buf.WriteByte('\n')
}

func (b *fakeBatch) json() map[string]any {
	out := map[string]any{"id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": b.input,
		"completion_window": "24h", "status": b.status, "created_at": b.created, "metadata": b.metadata,
		"request_counts": map[string]int{"total": b.total, "completed": b.completed, "failed": b.failed},
		"output_file_id": nil, "error_file_id": nil}
	if b.output != "" {
		out["output_file_id"] = b.output
	}
	if b.errors != "" {
		out["error_file_id"] = b.errors
	}
	return out
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": http.StatusText(status), "code": status}})
}
