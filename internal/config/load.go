package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Load reads config.toml at path over the defaults and validates it. A
// missing file is not an error: the defaults apply. All problems found are
// returned together, each as an *Error.
func Load(path string) (Config, error) {
	cfg := Default()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, &Error{File: path, Problem: err.Error(), Fix: "check the file's permissions"}
	}
	return Parse(path, string(data))
}

// Parse is Load on text already read; path only names the file in errors.
func Parse(path, text string) (Config, error) {
	cfg := Default()
	md, err := toml.Decode(text, &cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return cfg, &Error{File: path, Key: perr.LastKey,
				Problem: fmt.Sprintf("line %d: %s", perr.Position.Line, perr.Message),
				Fix:     "correct the TOML syntax, or move the file away and run `cra init`"}
		}
		return cfg, &Error{File: path, Problem: err.Error(), Fix: "correct the value's type (see the comments `cra init` writes)"}
	}
	var errs []error
	for _, k := range md.Undecoded() {
		errs = append(errs, unknownKey(path, k.String()))
	}
	errs = append(errs, cfg.Validate(path)...)
	return cfg, errors.Join(errs...)
}

var secretish = regexp.MustCompile(`(?i)(api_?key|token|secret|password)$`)

func unknownKey(path, key string) *Error {
	if secretish.MatchString(key) {
		return &Error{File: path, Key: key, Problem: "looks like a secret, and secrets never go in config.toml",
			Fix: "delete it, export the secret in an environment variable and put that variable's NAME in api_key_env"}
	}
	e := &Error{File: path, Key: key, Problem: "unknown key", Fix: "delete it"}
	if s := closest(key, knownKeys()); s != "" {
		e.Fix = fmt.Sprintf("did you mean %s?", s)
	}
	return e
}

// Validate checks the rules no type can express. path only names the file.
func (c Config) Validate(path string) []error {
	var errs []error
	bad := func(key, problem, fix string) {
		errs = append(errs, &Error{File: path, Key: key, Problem: problem, Fix: fix})
	}
	providers := []string{"ollama", "openai_compat", "remote_api"}
	if !contains(providers, c.Models.Provider) {
		bad("models.provider", fmt.Sprintf("%q is not a provider", c.Models.Provider), "use one of "+strings.Join(providers, ", "))
	}
	checkURL(bad, "models.base_url", c.Models.BaseURL, true)
	checkSize(bad, "store.memory_limit", c.Store.MemoryLimit, MinMemoryLimit)
	if c.Store.Threads < 0 {
		bad("store.threads", fmt.Sprintf("%d is negative", c.Store.Threads), "use 0 (one thread) or a number of threads")
	}
	if c.Models.Coding == "" || c.Models.Reasoning == "" {
		bad("models", "coding and reasoning models must both be set", "run `cra init --coding-model M --reasoning-model M`, or set models.coding and models.reasoning")
	}
	if c.Models.Provider == "remote_api" && c.Models.APIKeyEnv == "" {
		bad("models.api_key_env", "remote_api needs an API key", "export the key in an environment variable and set api_key_env to its name")
	}
	checkEnvName(bad, "models.api_key_env", c.Models.APIKeyEnv)
	positive(bad, "models.context_window", c.Models.ContextWindow)
	positive(bad, "models.max_tokens", c.Models.MaxTokens)
	positive(bad, "models.timeout_seconds", c.Models.TimeoutSeconds)
	positive(bad, "models.max_concurrency", c.Models.MaxConcurrency)
	nonNegative(bad, "models.max_retries", c.Models.MaxRetries)
	if c.Models.MaxTokens >= c.Models.ContextWindow && c.Models.ContextWindow > 0 {
		bad("models.max_tokens", fmt.Sprintf("max_tokens (%d) must be < context_window (%d)", c.Models.MaxTokens, c.Models.ContextWindow), "lower max_tokens")
	}
	for role, t := range map[string]float64{"coding": c.Models.Temperature.Coding, "reasoning": c.Models.Temperature.Reasoning} {
		if t < 0 || t > 2 {
			bad("models.temperature."+role, fmt.Sprintf("%g is outside 0..2", t), "use 0.0 for deterministic output")
		}
	}
	for stage, model := range c.Models.Overrides {
		if model == "" {
			bad("models.overrides."+stage, "empty model tag", "remove the line or name a model")
		}
	}
	c.Adapters.validate(bad, c.Models.Provider)
	c.Ask.validate(bad)
	errs = append(errs, c.Budget.Validate(path, c.Models.ContextWindow)...)
	positive(bad, "index.max_file_bytes", int(c.Index.MaxFileBytes))
	positive(bad, "index.co_change_max_files", c.Index.CoChangeMaxFiles)
	positive(bad, "testing.timeout_seconds", c.Testing.TimeoutSeconds)
	positive(bad, "testing.eval_timeout_floor_seconds", c.Testing.EvalTimeoutFloorSeconds)
	if c.Testing.EvalTimeoutFactor < 1 {
		bad("testing.eval_timeout_factor", fmt.Sprintf("eval_timeout_factor (%g) must be at least 1", c.Testing.EvalTimeoutFactor), "set it to 1 or more (default 5)")
	}
	if !slices.Contains(SandboxModes, c.Testing.Sandbox) {
		bad("testing.sandbox", fmt.Sprintf("%q is not a sandbox mode", c.Testing.Sandbox), "use one of "+strings.Join(SandboxModes, ", "))
	}
	for i, r := range c.Testing.Repos {
		key := fmt.Sprintf("testing.repo[%d]", i+1)
		if r.Path == "" {
			bad(key+".path", "a [[testing.repo]] table without a path", "name the repository it is for: path = \"/path/to/repo\"")
		}
		nonNegative(bad, key+".timeout_seconds", r.TimeoutSeconds)
	}
	positive(bad, "orchestrator.max_parts", c.Orchestrator.MaxParts)
	positive(bad, "orchestrator.max_steps_per_part", c.Orchestrator.MaxStepsPerPart)
	nonNegative(bad, "orchestrator.max_adjustment_rounds", c.Orchestrator.MaxAdjustmentRounds)
	nonNegative(bad, "orchestrator.max_retries_per_step", c.Orchestrator.MaxRetriesPerStep)
	nonNegative(bad, "orchestrator.max_refinement_loops", c.Orchestrator.MaxRefinementLoops)
	positive(bad, "bootstrap.max_files", c.Bootstrap.MaxFiles)
	positive(bad, "bootstrap.max_changed_lines", c.Bootstrap.MaxChangedLines)
	nonNegative(bad, "bootstrap.min_subject_chars", c.Bootstrap.MinSubjectChars)
	nonNegative(bad, "bootstrap.min_subject_words", c.Bootstrap.MinSubjectWords)
	positive(bad, "bootstrap.co_change_min_count", c.Bootstrap.CoChangeMinCount)
	if c.Curate.NearDupThreshold <= 0 || c.Curate.NearDupThreshold > 1 {
		bad("curate.near_dup_threshold", fmt.Sprintf("%g is outside (0, 1]", c.Curate.NearDupThreshold), "0.8 is the common choice")
	}
	positive(bad, "curate.minhash_bands", c.Curate.MinHashBands)
	positive(bad, "curate.minhash_rows", c.Curate.MinHashRows)
	if c.Curate.Secrets != "redact" && c.Curate.Secrets != "drop" {
		bad("curate.secrets", fmt.Sprintf("%q is not a choice", c.Curate.Secrets), "use redact or drop")
	}
	if c.Curate.ValidationFraction < 0 || c.Curate.ValidationFraction >= 1 {
		bad("curate.validation_fraction", fmt.Sprintf("%g is outside [0, 1)", c.Curate.ValidationFraction), "0.1 puts a tenth of the commits in validation")
	}
	nonNegative(bad, "curate.per_repo_cap", c.Curate.PerRepoCap)
	positive(bad, "curate.shard_max_mb", c.Curate.ShardMaxMB)
	if !contains([]string{"remote_api", "openai_compat"}, c.Teacher.Provider) {
		bad("teacher.provider", fmt.Sprintf("%q is not a teacher provider", c.Teacher.Provider), "use remote_api or openai_compat")
	}
	checkURL(bad, "teacher.base_url", c.Teacher.BaseURL, c.Teacher.Model != "")
	checkEnvName(bad, "teacher.api_key_env", c.Teacher.APIKeyEnv)
	positive(bad, "teacher.max_concurrency", c.Teacher.MaxConcurrency)
	positive(bad, "teacher.timeout_seconds", c.Teacher.TimeoutSeconds)
	nonNegative(bad, "teacher.max_retries", c.Teacher.MaxRetries)
	positive(bad, "teacher.max_tokens", c.Teacher.MaxTokens)
	positive(bad, "teacher.batch_poll_seconds", c.Teacher.BatchPollSeconds)
	for key, v := range map[string]float64{"input_per_million": c.Teacher.Prices.InputPerMillion,
		"cached_input_per_million": c.Teacher.Prices.CachedInputPerMillion, "output_per_million": c.Teacher.Prices.OutputPerMillion} {
		if v < 0 {
			bad("teacher.prices."+key, fmt.Sprintf("%g is negative", v), "write the provider's price in USD per million tokens")
		}
	}
	if d := c.Teacher.Prices.BatchDiscount; d < 0 || d >= 1 {
		bad("teacher.prices.batch_discount", fmt.Sprintf("%g is outside [0, 1)", d), "0.5 takes half off, as OpenAI's Batch API does")
	}
	for key, v := range map[string]float64{"scope_min_recall": c.Teacher.Verify.ScopeMinRecall,
		"scope_min_precision": c.Teacher.Verify.ScopeMinPrecision, "precision_min_f1": c.Teacher.Verify.PrecisionMinF1,
		"precision_min_primary_recall": c.Teacher.Verify.PrecisionMinPrimaryRecall, "plan_min_file_f1": c.Teacher.Verify.PlanMinFileF1} {
		if v < 0 || v > 1 {
			bad("teacher.verify."+key, fmt.Sprintf("%g is outside [0, 1]", v), "use a fraction; 1 demands a perfect match")
		}
	}
	return errs
}

// Validate applies the budget rules, in this one place:
// context_window > 0, reserved_tokens >= 0, reserved_tokens < context_window.
func (b Budget) Validate(path string, contextWindow int) []error {
	var errs []error
	bad := func(key, problem, fix string) {
		errs = append(errs, &Error{File: path, Key: key, Problem: problem, Fix: fix})
	}
	if contextWindow <= 0 {
		bad("models.context_window", fmt.Sprintf("context_window must be > 0, got %d", contextWindow), "set the execute model's context window in tokens, e.g. 32768")
	}
	if b.ReservedTokens < 0 {
		bad("budget.reserved_tokens", fmt.Sprintf("reserved_tokens must be >= 0, got %d", b.ReservedTokens), "use 0 or more")
	} else if contextWindow > 0 && b.ReservedTokens >= contextWindow {
		bad("budget.reserved_tokens", fmt.Sprintf("reserved_tokens must be < context_window (%d >= %d)", b.ReservedTokens, contextWindow),
			"lower budget.reserved_tokens or raise models.context_window")
	}
	if b.SafetyMargin < 0 || b.SafetyMargin >= 1 {
		bad("budget.safety_margin", fmt.Sprintf("%g is outside [0, 1)", b.SafetyMargin), "0.1 adds a tenth to every estimate")
	}
	return errs
}

type badFunc func(key, problem, fix string)

func positive(bad badFunc, key string, v int) {
	if v <= 0 {
		bad(key, fmt.Sprintf("must be > 0, got %d", v), "use a positive number or delete the line for the default")
	}
}

func nonNegative(bad badFunc, key string, v int) {
	if v < 0 {
		bad(key, fmt.Sprintf("must be >= 0, got %d", v), "use 0 or more, or delete the line for the default")
	}
}

func checkURL(bad badFunc, key, raw string, required bool) {
	if raw == "" {
		if required {
			bad(key, "is empty", "set the provider's URL, e.g. http://localhost:11434")
		}
		return
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad(key, fmt.Sprintf("%q is not an http(s) URL", raw), "write it as http://host:port")
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkEnvName refuses values that are not variable names. It never echoes
// the value: a user who pasted the key itself must not see it in a log.
// MinMemoryLimit is the smallest [store] memory_limit accepted: less is
// too little for DuckDB to work with.
const MinMemoryLimit = 512 << 20

var sizeRE = regexp.MustCompile(`(?i)^\s*([0-9]+(?:\.[0-9]+)?)\s*(b|kb|mb|gb|tb|kib|mib|gib|tib)\s*$`)

// checkSize checks a size as DuckDB reads it ("2GB", "1.5GiB"): empty, or
// at least least bytes.
func checkSize(bad badFunc, key, v string, least int64) {
	if strings.TrimSpace(v) == "" {
		return
	}
	n, ok := Bytes(v)
	switch {
	case !ok:
		bad(key, fmt.Sprintf("%q is not a size", v), `write it like "2GB" or "1.5GiB", or leave it empty for the default`)
	case n < least:
		bad(key, fmt.Sprintf("%q is less than %d MiB", v, least>>20), "raise it, or leave it empty for the default")
	}
}

// Bytes reads a size such as "2GB" (powers of 1000) or "1.5GiB" (of 1024).
func Bytes(v string) (int64, bool) {
	m := sizeRE.FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	unit := strings.ToLower(m[2])
	base := 1000.0
	if strings.HasSuffix(unit, "ib") {
		base = 1024
	}
	for range strings.Index("bkmgt", unit[:1]) {
		f *= base
	}
	return int64(f), true
}

func checkEnvName(bad badFunc, key, v string) {
	if v != "" && !envName.MatchString(v) {
		bad(key, "must be the NAME of an environment variable (letters, digits, _), not the key itself",
			"export the key as e.g. CRA_API_KEY and write api_key_env = \"CRA_API_KEY\"")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// knownKeys lists every dotted key config.toml accepts.
func knownKeys() []string {
	var keys []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Tag.Get("toml") == "-" {
				continue
			}
			name := prefix + f.Tag.Get("toml")
			keys = append(keys, name)
			switch {
			case f.Type.Kind() == reflect.Struct:
				walk(name+".", f.Type)
			case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
				walk(name+".", f.Type.Elem()) // an array of tables
			}
		}
	}
	walk("", reflect.TypeOf(Config{}))
	return keys
}

// closest returns the known key nearest to key by edit distance, if near.
func closest(key string, known []string) string {
	best, bestD := "", 4
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
