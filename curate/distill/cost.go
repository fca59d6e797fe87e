package distill

import (
	"math"
	"sync"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
)

// Money is counted in nano-dollars (int64): sums of many small costs stay
// exact, and the cap is compared without rounding surprises.
const nanosPerUSD = 1e9

func toNanos(usd float64) int64           { return int64(math.Round(usd * nanosPerUSD)) }
func fromNanos(n int64) float64           { return float64(n) / nanosPerUSD }
func perToken(perMillion float64) float64 { return perMillion * nanosPerUSD / 1e6 }

// pricing turns tokens into cost at the teacher's prices (with the batch
// discount for --batch).
type pricing struct {
	prices config.TeacherPrices
	batch  bool
}

func (p pricing) discount() float64 {
	if p.batch {
		return 1 - p.prices.BatchDiscount
	}
	return 1
}

// cost is what a call with this usage is charged, in nano-dollars: the
// uncached prompt tokens at the input price, the cached ones at the cached
// price, the completion at the output price.
func (p pricing) cost(prompt, cached, completion int64) int64 {
	c := float64(prompt-cached)*perToken(p.prices.InputPerMillion) + float64(cached)*perToken(p.prices.CachedInputPerMillion) +
		float64(completion)*perToken(p.prices.OutputPerMillion)
	return int64(math.Round(c * p.discount()))
}

// Token counts of a request, as distill estimates and bounds them.
//
// The estimate is the chars/4 rule over every message (the rule the
// prompt budget uses, without its margin: the margin is the estimate's
// stated uncertainty) and, for the answer, the chars/4 of the answer
// expected (the ground truth's rendered answer, or the student's).
//
// The bound is what a call cannot exceed: a token is at least one byte in
// the byte-level BPE vocabularies of OpenAI-compatible models, plus a few
// tokens of chat formatting per message; the completion is capped by
// max_tokens (max_completion_tokens, reasoning included). A call is never
// started unless its bound fits the budget left.
const (
	boundPerMessage = 16
	boundPerRequest = 16
)

var chars4 = llm.Budget{} // chars/4, no margin

func estimatePrompt(body llm.ChatBody) int64 {
	var n int64
	for _, m := range body.Messages {
		n += int64(chars4.Estimate(m.Content))
	}
	return n
}

func boundPrompt(body llm.ChatBody) int64 {
	n := int64(boundPerRequest)
	for _, m := range body.Messages {
		n += int64(len(m.Content)) + boundPerMessage
	}
	return n
}

func boundCompletion(body llm.ChatBody) int64 {
	return int64(max(body.MaxTokens, body.MaxCompletionTokens))
}

// upper is the most a request can cost, in nano-dollars, rounded up.
func (p pricing) upper(body llm.ChatBody) int64 {
	c := (float64(boundPrompt(body))*perToken(p.prices.InputPerMillion) +
		float64(boundCompletion(body))*perToken(p.prices.OutputPerMillion)) * p.discount()
	return int64(math.Ceil(c))
}

// ledger is the run's spending against the cap: before a call, the most
// it can cost is reserved against what is left; after, what it cost
// settles the reservation. No call is started whose reservation would take
// spending (settled and reserved) past the cap.
//
// Reservations are taken in the order of the calls (each has a turn), so
// the run stops at the first call, in order, that cannot fit even with
// nothing in flight, whatever the scheduling: a later, smaller call never
// slips in before it, and a re-run with the same budget stops at the same
// call.
//
// A reservation is only a bound if the provider keeps to it. Once a call
// settles for more than it reserved, the books are wrong by an unknown
// amount for every call still in flight, so no reservation is taken until
// they have all settled and the spending they really took is compared to
// the cap: spending passes the cap by at most what the calls in flight at
// that moment (--jobs at most) cost beyond their reservations.
type ledger struct {
	mu       sync.Mutex
	changed  *sync.Cond
	limit    int64 // nano-dollars; -1: no cap
	spent    int64 // settled, earlier runs' included
	reserved int64
	inFlight int
	turn     int64 // the turn whose reservation comes next
	closed   bool  // a reservation did not fit, or the run stopped: none comes after it
	overrun  bool  // a call settled over its reservation: none is taken while calls are in flight
}

func newLedger(spent int64, budgetUSD *float64) *ledger {
	l := &ledger{limit: -1, spent: spent}
	if budgetUSD != nil {
		l.limit = toNanos(*budgetUSD)
	}
	l.changed = sync.NewCond(&l.mu)
	return l
}

// reserve takes x nano-dollars from what is left at turn (0, 1, 2, ...:
// every turn is taken once, by reserve or pass), after the turns before
// it, waiting while calls in flight may settle for less than they
// reserved, and while any is in flight after one settled for more; false
// when x cannot fit even with nothing in flight, or an earlier turn could
// not, or the run stopped.
func (l *ledger) reserve(turn, x int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.changed.Broadcast()
	for !l.closed && (l.turn != turn || (l.over(x) || l.overrun) && l.inFlight > 0) {
		l.changed.Wait()
	}
	if l.closed {
		return false
	}
	l.turn++
	if l.over(x) { // with nothing in flight: it never fits
		l.closed = true
		return false
	}
	l.reserved += x
	l.inFlight++
	return true
}

// pass gives up turn without reserving (its call is not made).
func (l *ledger) pass(turn int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.closed && l.turn != turn {
		l.changed.Wait()
	}
	l.turn++
	l.changed.Broadcast()
}

func (l *ledger) over(x int64) bool { return l.limit >= 0 && l.spent+l.reserved+x > l.limit }

// take reserves x if it fits what is left now, without waiting: for
// batches, whose reservations settle only when their results come.
func (l *ledger) take(x int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.over(x) {
		l.closed = true
		return false
	}
	l.reserved += x
	l.inFlight++
	return true
}

// settle replaces reservation x by what the call cost.
func (l *ledger) settle(x, cost int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reserved -= x
	l.spent += cost
	l.inFlight--
	if cost > x {
		l.overrun = true
	}
	if l.inFlight == 0 {
		l.overrun = false // settled: what is spent is known again
	}
	l.changed.Broadcast()
}

// halt refuses every reservation from now on (the run stops); calls in
// flight still settle.
func (l *ledger) halt() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.changed.Broadcast()
}

// total is what is spent, reservations in flight counted whole.
func (l *ledger) total() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spent + l.reserved
}
