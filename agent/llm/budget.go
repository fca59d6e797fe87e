package llm

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/cra-dev/cra/internal/config"
)

// ErrOverBudget: a prompt cannot fit the context window; no call was made.
var ErrOverBudget = errors.New("prompt over budget")

// Budget is the prompt budget: the context package may use
// ContextWindow - ReservedTokens; a whole prompt plus its completion must fit
// ContextWindow. Tokens are estimated as chars/4 plus SafetyMargin.
type Budget struct {
	ContextWindow  int
	ReservedTokens int
	SafetyMargin   float64
}

// NewBudget builds the budget from config, validated by
// config.Budget.Validate (the one home of the budget's rules).
func NewBudget(cfg config.Config) (Budget, error) {
	if errs := cfg.Budget.Validate("config.toml", cfg.Models.ContextWindow); len(errs) > 0 {
		return Budget{}, errors.Join(errs...)
	}
	return Budget{ContextWindow: cfg.Models.ContextWindow, ReservedTokens: cfg.Budget.ReservedTokens,
		SafetyMargin: cfg.Budget.SafetyMargin}, nil
}

// Estimate is the token estimate of text: ceil(chars/4 * (1 + margin)).
func (b Budget) Estimate(text string) int {
	return int(math.Ceil(float64(utf8.RuneCountInString(text)) / 4 * (1 + b.SafetyMargin)))
}

// ContextLimit is the tokens retrieval may fill with context.
func (b Budget) ContextLimit() int { return b.ContextWindow - b.ReservedTokens }

// Check is the hard gate before a call: system + prompt + maxTokens of
// completion must fit the window, or the call is refused unmade.
func (b Budget) Check(system, prompt string, maxTokens int) error {
	need := b.Estimate(system) + b.Estimate(prompt) + maxTokens
	if need > b.ContextWindow {
		return fmt.Errorf("%w: ~%d tokens (prompt ~%d + completion %d) exceed the context window of %d: trim the context or raise models.context_window",
			ErrOverBudget, need, need-maxTokens, maxTokens, b.ContextWindow)
	}
	return nil
}
