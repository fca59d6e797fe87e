package distill

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/agent/prompt"
	"github.com/cra-dev/cra/curate"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/kb/schema"
)

// verifyTask is ground truth with every stage: a.py and b.py change
// (c.py is a candidate that does not), new.py is created, d.py deleted.
func verifyTask(t *testing.T) *curate.Task {
	t.Helper()
	targets := map[string]any{
		schema.StageScope: schema.ScopeTarget{Candidates: []schema.ScopeCandidate{
			{Path: "a.py", Relevant: true}, {Path: "b.py", Relevant: true}, {Path: "c.py"}}},
		schema.StagePrecision: schema.PrecisionTarget{Symbols: []schema.PrecisionSymbol{
			{File: "a.py", QualifiedName: "f", Tier: schema.TierPrimary},
			{File: "a.py", QualifiedName: "g", Tier: schema.TierSupporting},
			{File: "a.py", QualifiedName: "h", Tier: schema.TierExcluded}}},
		schema.StagePlan: schema.PlanArtifact{TaskSummary: "t", AffectedFiles: []schema.PlanFile{
			{Path: "a.py", Role: "modify"}, {Path: "new.py", Role: "create"}}, ExecutionOrder: []string{"a.py", "new.py"}},
		schema.StageImplement: schema.ImplementTarget{
			Files: []schema.ImplementFile{{Path: "a.py", Content: "x = 1\ny = 2\n"}, {Path: "new.py", Created: true},
				{Path: "d.py", Content: "gone\n", Deleted: true}},
			Edits: []schema.Edit{{File: "a.py", Search: "x = 1\n", Replace: "x = 3\n"}, {File: "new.py", Replace: "hi\n"},
				{File: "d.py", Search: "gone\n"}}},
	}
	tk := &curate.Task{ID: "t1", Targets: map[string]json.RawMessage{}}
	for stage, v := range targets {
		js, _ := json.Marshal(v)
		tk.Targets[stage] = js
	}
	return tk
}

func TestVerify(t *testing.T) {
	tk := verifyTask(t)
	th := config.Default().Teacher.Verify
	edits := func(es ...schema.Edit) string { return prompt.RenderEdits(es) }
	plan := func(order string, files ...schema.PlanFile) string {
		return prompt.RenderPlan(schema.PlanArtifact{AffectedFiles: files, ExecutionOrder: strings.Split(order, ",")})
	}
	a, created, deleted := schema.Edit{File: "a.py", Search: "x = 1\n", Replace: "x = 3\n"}, schema.Edit{File: "new.py", Replace: "hi\n"},
		schema.Edit{File: "d.py", Search: "gone\n"}
	tests := []struct {
		name, stage, answer string
		noTruth             bool
		ok                  bool
		reason              string
	}{
		{"scope exact", "scope", `{"relevant": ["a.py", "b.py"]}`, false, true, "recall 1.00"},
		{"scope in prose", "scope", "Here you go:\n```json\n{\"relevant\": [\"b.py\", \"a.py\", \"c.py\"]}\n```", false, true, "precision 0.67"},
		{"scope misses a file", "scope", `{"relevant": ["a.py"]}`, false, false, "recall under"},
		{"scope keeps too much", "scope", `{"relevant": ["a.py", "b.py", "c.py", "x.py", "y.py"]}`, false, false, "precision under"},
		{"scope garbage", "scope", `I think a.py`, false, false, "unparsable"},
		{"scope without truth", "scope", `{"relevant": []}`, true, true, "no ground truth"},
		{"precision exact", "precision", `{"symbols": {"a.py:f": "primary", "a.py:g": "supporting"}}`, false, true, "F1 1.00"},
		{"precision tiers the primary lower", "precision", `{"symbols": {"a.py:f": "supporting", "a.py:g": "supporting"}}`, false, false, "primary recall under"},
		{"precision misses a symbol", "precision", `{"symbols": {"a.py:f": "primary"}}`, false, false, "F1 under"},
		{"precision unknown tier", "precision", `{"symbols": {"a.py:f": "main"}}`, false, false, "unparsable"},
		{"plan right", "plan", plan("a.py,new.py", schema.PlanFile{Path: "a.py", Role: "modify"}, schema.PlanFile{Path: "new.py", Role: "create"}), false, true, "F1 1.00"},
		{"plan creates what exists", "plan", plan("a.py,new.py", schema.PlanFile{Path: "a.py", Role: "create"}, schema.PlanFile{Path: "new.py", Role: "create"}), false, false, "exists already"},
		{"plan modifies what the commit creates", "plan", plan("a.py,new.py", schema.PlanFile{Path: "a.py", Role: "modify"}, schema.PlanFile{Path: "new.py", Role: "modify"}), false, false, "does not exist"},
		{"plan leaves a file out of the order", "plan", plan("a.py", schema.PlanFile{Path: "a.py", Role: "modify"}, schema.PlanFile{Path: "new.py", Role: "create"}), false, false, "leaves out new.py"},
		{"plan of other files", "plan", plan("a.py,z.py", schema.PlanFile{Path: "a.py", Role: "modify"}, schema.PlanFile{Path: "z.py", Role: "modify"}), false, false, "F1 0.50"},
		{"plan invalid role", "plan", `{"task_summary": "", "affected_files": [{"path": "a.py", "role": "rewrite", "changes": []}], "execution_order": ["a.py"], "rationale": ""}`, false, false, "invalid plan"},
		{"implement as the commit", "implement", edits(a, created, deleted), false, true, "byte for byte"},
		{"implement other edits, same child", "implement", edits(schema.Edit{File: "a.py", Search: "x = 1\ny", Replace: "x = 3\ny"}, created, deleted), false, true, "byte for byte"},
		{"implement wrong content", "implement", edits(schema.Edit{File: "a.py", Search: "x = 1\n", Replace: "x = 4\n"}, created, deleted), false, false, "a.py does not come out"},
		{"implement keeps the deleted file", "implement", edits(a, created), false, false, "d.py does not come out"},
		{"implement edits another file", "implement", edits(a, created, deleted, schema.Edit{File: "c.py", Replace: "new\n"}), false, false, "[c.py], which the commit did not change"},
		{"implement search not found", "implement", edits(schema.Edit{File: "a.py", Search: "z = 9\n", Replace: ""}, created, deleted), false, false, "search text not found"},
		{"implement no edit", "implement", "", false, false, "no edit"},
		{"implement without truth", "implement", edits(a), true, true, "no ground truth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			truth := tk
			if tt.noTruth {
				truth = nil
			}
			v := verify(tt.stage, truth, tt.answer, th)
			if v.ok != tt.ok || !strings.Contains(v.reason, tt.reason) {
				t.Errorf("verify = ok %v, %q; want ok %v, %q", v.ok, v.reason, tt.ok, tt.reason)
			}
			if v.ok && v.answer == "" {
				t.Error("a verified answer without its rendered text")
			}
		})
	}
}

// The most a request can cost is never under what any answer within
// max_tokens costs, for token counts up to its bytes.
func TestUpperBoundsTheCost(t *testing.T) {
	for _, batch := range []bool{false, true} {
		p := pricing{prices: testPrices, batch: batch}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			text := strings.Repeat("é{x}", rng.IntN(500))
			body := llm.NewChatBody(llm.ModelConfig{Model: "m", MaxTokens: 1 + rng.IntN(4000)}, llm.Request{System: "s", Prompt: text})
			worst := p.cost(int64(len(text)+1), 0, int64(body.MaxTokens))
			if up := p.upper(body); up < worst {
				t.Fatalf("upper %d < worst cost %d", up, worst)
			}
		}
	}
}

// Under any interleaving, reserved plus settled never passes the cap; a
// reservation that cannot fit with nothing in flight is refused, and so is
// every later turn; one that can waits for calls in flight to settle.
func TestLedgerNeverPassesTheCap(t *testing.T) {
	budget := 1.0
	l := newLedger(toNanos(0.25), &budget)
	var wg sync.WaitGroup
	var mu sync.Mutex
	worst := int64(0)
	refused := map[int64]bool{}
	const turns = 400
	for turn := range int64(turns) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(turn), 7))
			x := toNanos(0.01 + rng.Float64()*0.05)
			if turn%7 == 3 {
				l.pass(turn) // a call not made (--max-calls) takes its turn too
				return
			}
			if !l.reserve(turn, x) {
				mu.Lock()
				refused[turn] = true
				mu.Unlock()
				return
			}
			mu.Lock()
			worst = max(worst, l.total())
			mu.Unlock()
			time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
			l.settle(x, x/int64(1+rng.IntN(4)))
		}()
	}
	wg.Wait()
	if worst > toNanos(budget) || l.total() > toNanos(budget) {
		t.Errorf("spending reached %s of a %s cap", money(fromNanos(worst)), money(budget))
	}
	first := int64(turns)
	for turn := range refused {
		first = min(first, turn)
	}
	for turn := first; turn < turns; turn++ {
		if !refused[turn] && turn%7 != 3 {
			t.Errorf("turn %d reserved after turn %d was refused", turn, first)
		}
	}
	if first == turns || l.total() < toNanos(budget)-toNanos(0.06) {
		t.Errorf("first refusal at turn %d with %s spent of %s: a reservation that fit was refused", first, money(fromNanos(l.total())), money(budget))
	}
	if l.reserve(turns, 1) {
		t.Error("a reservation after a refusal was taken")
	}
}

// A call that settles for more than it reserved holds back the next
// reservation, even one that would fit, until every call in flight has
// settled; then the real spending decides. One that settles within its
// reservation holds back nothing.
func TestLedgerWaitsForSettlementAfterAnOverrun(t *testing.T) {
	for _, tt := range []struct {
		name       string
		firstCost  float64 // what the first of two calls in flight (0.1 reserved each) settles for
		secondCost float64
		waits      bool // the third reservation waits for the second call
		fits       bool // and then fits the cap of 1
	}{
		{"within its reservation", 0.1, 0.1, false, true},
		{"just within", 0.1 - 1e-9, 0.1, false, true},
		{"just over", 0.1 + 1e-9, 0.1, true, true},
		{"over, the rest fits", 0.3, 0.1, true, true},
		{"over, the rest does not fit", 0.3, 0.65, true, false},
		{"over, exactly the cap left", 0.3, 0.6, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			budget := 1.0
			l := newLedger(0, &budget)
			x := toNanos(0.1)
			if !l.reserve(0, x) || !l.reserve(1, x) {
				t.Fatal("two reservations of 0.1 did not fit a cap of 1")
			}
			l.settle(x, toNanos(tt.firstCost))
			got := make(chan bool)
			go func() { got <- l.reserve(2, x) }()
			select {
			case ok := <-got:
				if tt.waits {
					t.Fatalf("the third reservation was answered (%v) with the second call in flight after an overrun", ok)
				}
				if ok != tt.fits {
					t.Fatalf("the third reservation: %v, want %v", ok, tt.fits)
				}
				l.settle(x, toNanos(tt.secondCost))
				return
			case <-time.After(100 * time.Millisecond):
				if !tt.waits {
					t.Fatal("the third reservation waited though no call overran its reservation")
				}
			}
			l.settle(x, toNanos(tt.secondCost))
			if ok := <-got; ok != tt.fits {
				t.Errorf("after settlement (spent %s): the third reservation %v, want %v", money(fromNanos(l.total())), ok, tt.fits)
			}
		})
	}
}

// A halted ledger takes no reservation, and calls in flight still settle.
func TestLedgerHalt(t *testing.T) {
	budget := 1.0
	l := newLedger(0, &budget)
	if !l.reserve(0, toNanos(0.1)) {
		t.Fatal("a reservation of 0.1 did not fit a cap of 1")
	}
	l.halt()
	if l.reserve(1, toNanos(0.1)) {
		t.Error("a halted ledger took a reservation")
	}
	l.settle(toNanos(0.1), toNanos(0.05))
	if got := l.total(); got != toNanos(0.05) {
		t.Errorf("total %s after settling, want $0.05", money(fromNanos(got)))
	}
}
