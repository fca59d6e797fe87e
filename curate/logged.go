package curate

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/internal/secrets"
	"github.com/cra-dev/cra/kb"
)

// Sources of examples.
const (
	SourceSynthetic = "synthetic" // bootstrap's ground truth, rendered
	SourceLogged    = "logged"    // the agent's own logged runs (cra solve, cra eval), labelled by tests and scores
	SourceDistilled = "distilled" // a teacher's verified answers (cra distill)
)

// Sources lists every source, in the order a run reads them.
var Sources = []string{SourceSynthetic, SourceLogged, SourceDistilled}

// DropSameAnswer: a pair whose chosen and rejected answers are the same.
const DropSameAnswer = "same_answer"

// DropBalance: a KTO row left out to meet the positive fraction asked for.
const DropBalance = "kto_balance"

// loggedSource reads the logged and distilled examples of a run of
// curate-data: pass 1 and pass 2 see the same examples in the same order.
type loggedSource struct {
	conn    *sql.Conn
	opts    Options
	windows [][]*loggedRun
	kinds   map[string]bool
	stages  map[string]bool
}

func newLoggedSource(ctx context.Context, conn *sql.Conn, opts Options) (*loggedSource, error) {
	s := &loggedSource{conn: conn, opts: opts, kinds: toSet(opts.Kinds), stages: toSet(opts.Stages)}
	if slices.Contains(opts.Sources, SourceLogged) {
		var err error
		if s.windows, err = loggedWindows(ctx, conn, opts); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// each hands every selected example to fn: the logged runs' a window at a
// time, then the distilled ones.
func (s *loggedSource) each(ctx context.Context, fn func(example) error) error {
	for _, win := range s.windows {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := readWindow(ctx, s.conn, win); err != nil {
			return err
		}
		for _, r := range win {
			s.opts.Progress.Add(1)
			if s.opts.LoggedOutcome == "success" && !r.success {
				continue
			}
			for _, e := range r.items(s.kinds) {
				if s.stages[e.stage] {
					if err := fn(e); err != nil {
						return err
					}
				}
			}
		}
		release(win)
	}
	if slices.Contains(s.opts.Sources, SourceDistilled) {
		return eachDistilled(ctx, s.conn, s.opts, s.kinds, func(e example) error {
			if !s.stages[e.stage] {
				return nil
			}
			return fn(e)
		})
	}
	return nil
}

// scan is pass 1 over logged and distilled data: a record per example.
func (s *loggedSource) scan(ctx context.Context, mh *minHasher) ([]record, int, error) {
	var recs []record
	runs := 0
	for _, w := range s.windows {
		runs += len(w)
	}
	// An answer's SFT and KTO rows come one after the other with the same
	// text: they share one signature.
	var lastText string
	var lastSig []uint16
	err := s.each(ctx, func(e example) error {
		text := sigText(e)
		if text != lastText || lastSig == nil {
			lastText, lastSig = text, mh.signature(text)
		}
		r := s.record(e)
		r.sig = lastSig
		recs = append(recs, r)
		return nil
	})
	sortByID(recs)
	return recs, runs, err
}

// record is what pass 1 keeps of e.
func (s *loggedSource) record(e example) record {
	r := record{task: e.taskID, stage: e.stage, repo: e.repo, commit: e.commit,
		kind: e.kind, label: e.label, source: e.source, signal: e.signal,
		id: exampleKey(s.opts.Name, e.target), split: SplitOf(s.opts.split, e.repo, e.commit, e.run, e.validation)}
	b := s.opts.Budget
	r.promptTokens = b.Estimate(e.system) + b.Estimate(e.user)
	answer := e.completion
	if e.kind == kb.KindPreference {
		answer = e.chosen
		if len(e.rejected) > len(e.chosen) {
			answer = e.rejected
		}
	}
	r.completionTokens = b.Estimate(answer)
	switch {
	case r.promptTokens+r.completionTokens > b.ContextWindow:
		r.drop = DropOverBudget
	case e.kind == kb.KindPreference && (e.chosen == "" || e.rejected == ""), e.kind != kb.KindPreference && e.completion == "":
		r.drop = DropEmpty
	case e.kind == kb.KindPreference && normalise(e.chosen) == normalise(e.rejected):
		r.drop = DropSameAnswer
	case s.opts.Curate.Secrets == secrets.ModeDrop && secrets.Has(e.system, e.user, e.completion, e.chosen, e.rejected):
		r.drop = DropSecret
	}
	r.hash = normalHash(e.kind, e.system, e.user, e.completion, e.chosen, e.rejected)
	return r
}

// sigText is what near duplicates are judged on: the task and the answer
// (both answers of a pair), not the prompt's shared context.
func sigText(e example) string {
	if e.kind == kb.KindPreference {
		return prompt.TaskOf(e.user) + "\n" + e.chosen + "\n" + e.rejected
	}
	return prompt.TaskOf(e.user) + "\n" + e.completion
}

// write is pass 2: the kept examples, in the same order, stored.
func (s *loggedSource) write(ctx context.Context, w *datasetWriter, kept map[[32]byte]*record) (int, error) {
	now := time.Now().UTC()
	redacted := 0
	batch := &exampleBatch{w: w, progress: s.opts.Progress}
	err := s.each(ctx, func(e example) error {
		r := kept[exampleKey(w.name, e.target)]
		if r == nil {
			return nil
		}
		ex, red, err := e.row(r, w, now)
		if err != nil {
			return err
		}
		if red {
			redacted++
		}
		return batch.add(ctx, ex)
	})
	if err != nil {
		return redacted, err
	}
	return redacted, batch.flush(ctx)
}

// row is the stored example, credentials redacted in every field (pass 1
// left out what drop mode drops).
func (e example) row(r *record, w *datasetWriter, now time.Time) (kb.TrainingExample, bool, error) {
	red, _ := secrets.Apply(secrets.ModeRedact, &e.system, &e.user, &e.completion, &e.chosen, &e.rejected)
	msg := func(role, content string) kb.Message { return kb.Message{Role: role, Content: content} }
	var msgs []kb.Message
	if e.system != "" {
		msgs = append(msgs, msg("system", e.system))
	}
	msgs = append(msgs, msg("user", e.user))
	ex := kb.TrainingExample{ID: hex.EncodeToString(r.id[:]), Dataset: w.name, Version: w.version, Stage: e.stage, Source: e.source, Split: r.split,
		Kind: e.kind, Label: e.label, RepoPath: e.repo, Commit: e.commit, TargetID: e.target, Signal: e.signal, TaskID: e.taskID,
		PromptTokens: r.promptTokens, CompletionTokens: r.completionTokens, CreatedAt: now}
	if e.kind == kb.KindPreference {
		ex.Messages = msgs
		ex.Chosen = []kb.Message{msg("assistant", e.chosen)}
		ex.Rejected = []kb.Message{msg("assistant", e.rejected)}
	} else {
		ex.Messages = append(msgs, msg("assistant", e.completion))
	}
	ev, err := json.Marshal(e.evidence)
	ex.Evidence = string(ev)
	if found, _ := secrets.Apply(secrets.ModeRedact, &ex.Evidence); found { // a test's or a file's name, however unlikely
		red = true
	}
	return ex, red, err
}

// balance leaves out KTO rows so that, per stage, positives make up
// fraction of the kept ones (0: keep all): the surplus side loses the
// rows with the highest hash of their id, a fixed choice. A stage with
// rows of one label only is left as it is.
func balance(recs []record, fraction float64) {
	if fraction <= 0 || fraction > 1 {
		return
	}
	type side struct{ pos, neg []int }
	stages := map[string]*side{}
	for i := range recs {
		r := &recs[i]
		if r.drop != "" || r.kind != kb.KindKTO {
			continue
		}
		s := stages[r.stage]
		if s == nil {
			s = &side{}
			stages[r.stage] = s
		}
		if r.label == kb.LabelPositive {
			s.pos = append(s.pos, i)
		} else {
			s.neg = append(s.neg, i)
		}
	}
	for _, s := range stages {
		p, n := float64(len(s.pos)), float64(len(s.neg))
		if p == 0 || n == 0 {
			continue // one side only: nothing to balance against, and no reason to lose it
		}
		over, keep := s.pos, int(n*fraction/(1-fraction)+0.5)
		if p/(p+n) < fraction {
			over, keep = s.neg, int(p*(1-fraction)/fraction+0.5)
		}
		if keep >= len(over) {
			continue
		}
		byHash(recs, over)
		for _, i := range over[keep:] {
			recs[i].drop = DropBalance
		}
	}
}
