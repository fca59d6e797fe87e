package distill

// Summary is what a run did (or, dry, would do).
type Summary struct {
	RunID   int64  `json:"run_id,omitempty"`
	Name    string `json:"name"`
	Teacher string `json:"teacher"`
	Source  string `json:"source"`
	DryRun  bool   `json:"dry_run"`
	Batch   bool   `json:"batch"`
	// Items are the selected items; Skipped those not asked, by reason
	// (empty, trivial, over_budget, render_error from the ground truth;
	// verified_before and judged_before for work done by earlier runs).
	Items   int                      `json:"items"`
	Skipped map[string]int           `json:"skipped"`
	Stages  map[string]*StageSummary `json:"stages"`
	Totals  StageSummary             `json:"totals"`
	// SpentUSD is what Name has spent in all, this run included (requests
	// in flight when a run was killed count at the most they could cost).
	SpentUSD  float64  `json:"spent_usd"`
	BudgetUSD *float64 `json:"budget_usd,omitempty"`
	LeftUSD   *float64 `json:"left_usd,omitempty"`
	// Stopped says why items were left: budget, max_calls, interrupted.
	// (The run's row says it in kb's status vocabulary: partial or
	// interrupted.)
	Stopped string `json:"stopped,omitempty"`
	// Dataset is the dataset version this run registered (NAME@V), or ""
	// when the verified answers did not change.
	Dataset string `json:"dataset,omitempty"`
	// Margin is the stated margin of the estimates: the cost is expected
	// within ±Margin of the estimate.
	Margin float64 `json:"estimate_margin"`
}

// StageSummary counts one stage's items (Totals: all stages'). Every item
// ends a run verified, rejected, failed or left, and every answer judged
// came from the cache or from the teacher:
//
//	Items = Verified + Rejected + Failed + Left
//	Verified + Rejected = FromCache + FromTeacher
//
// Calls counts requests, not items: items whose prompts are identical
// share one request, and a request cut off by an interruption was sent
// without an answer to judge.
type StageSummary struct {
	Items       int `json:"items"`        // selected and not done before
	Verified    int `json:"verified"`     // answers judged right: the dataset's examples
	Rejected    int `json:"rejected"`     // answers judged wrong
	Failed      int `json:"failed"`       // items whose request got no usable answer; asked again by the next run
	Left        int `json:"left"`         // not done: budget, --max-calls, interruption
	FromCache   int `json:"from_cache"`   // judged answers from the cache, nothing paid
	FromTeacher int `json:"from_teacher"` // judged answers the teacher gave this run (live or in a batch)
	Calls       int `json:"calls"`        // requests sent this run (live or in a batch)
	// Rate is Verified / (Verified + Rejected).
	Rate             float64 `json:"verification_rate"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CachedTokens     int64   `json:"cached_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// Estimate is filled in by a dry run: what the calls it would make
	// are expected to take and cost, and the most they could cost.
	Estimate *Estimate `json:"estimate,omitempty"`
}

// Estimate is a dry run's forecast of some calls.
type Estimate struct {
	Calls            int     `json:"calls"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	MaxCostUSD       float64 `json:"max_cost_usd"` // what --budget-usd reserves for them
}

// fillMoney sets the summary's spending (what the name spent in all, as
// stored), the budget left and the rates.
func (d *distiller) fillMoney(spent float64) {
	d.smu.Lock()
	defer d.smu.Unlock()
	d.sum.SpentUSD = spent
	if d.opts.BudgetUSD != nil {
		left := max(0, *d.opts.BudgetUSD-spent)
		d.sum.LeftUSD = &left
	}
	for _, s := range d.sum.Stages {
		if n := s.Verified + s.Rejected; n > 0 {
			s.Rate = float64(s.Verified) / float64(n)
		}
	}
	if n := d.sum.Totals.Verified + d.sum.Totals.Rejected; n > 0 {
		d.sum.Totals.Rate = float64(d.sum.Totals.Verified) / float64(n)
	}
}

// fillLeft counts as left every item that has no outcome this run (not
// asked, cut off, or asked in a batch the run did not see end), so that
// Items = Verified + Rejected + Failed + Left holds however the run ended.
func (d *distiller) fillLeft() {
	d.smu.Lock()
	defer d.smu.Unlock()
	for _, s := range d.sum.Stages {
		s.Left = s.Items - s.Verified - s.Rejected - s.Failed
	}
	t := &d.sum.Totals
	t.Left = t.Items - t.Verified - t.Rejected - t.Failed
}

// count adds to stage's counts and the totals under the summary's lock.
func (d *distiller) count(stage string, fn func(s *StageSummary)) {
	d.smu.Lock()
	defer d.smu.Unlock()
	if s := d.sum.Stages[stage]; s != nil {
		fn(s)
	}
	fn(&d.sum.Totals)
}
