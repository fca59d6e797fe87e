package config

import (
	"os"
	"path/filepath"
	"strings"
)

// Config is the whole of config.toml. Every field has a default (Default), so
// a missing file or section means "use the defaults". The `doc` tags are the
// comments `cra init` writes above each key; `active` keys are written
// uncommented, the others as commented defaults.
type Config struct {
	Models       Models       `toml:"models" doc:"Models the agent calls. Roles: coding (implement) and reasoning (task analysis, scope, precision, plan, enrichment, train-plan)."`
	Budget       Budget       `toml:"budget" doc:"Prompt budget against the execute model's context window (tokens estimated as chars/4)."`
	Index        Index        `toml:"index" doc:"cra index: what gets parsed and how history is counted."`
	Testing      Testing      `toml:"testing" doc:"How cra solve validates a patch in the target repository. test_command decides success."`
	Orchestrator Orchestrator `toml:"orchestrator" doc:"cra solve: bounds of the recursive plan -> implement loop."`
	Bootstrap    Bootstrap    `toml:"bootstrap" doc:"cra bootstrap: which commits become synthetic ground truth."`
	Curate       Curate       `toml:"curate" doc:"cra curate-data: filters, dedup, splits and shards of training datasets."`
	Teacher      Teacher      `toml:"teacher" doc:"Teacher model for cra distill, any OpenAI-compatible API (OpenAI, DeepSeek, Qwen's compatible mode, a vLLM server)."`
	Store        Store        `toml:"store" doc:"The DuckDB stores (curated.duckdb, raw.duckdb): how much memory every command gives DuckDB."`
	Adapters     Adapters     `toml:"adapters" doc:"cra adapters: the server that loads your LoRA adapters and the gate a candidate must pass to be routed."`
	Ask          Ask          `toml:"ask" doc:"cra ask: call-graph walks, context budgets per question mode and the gap-resolution loop (tokens estimated as chars/4)."`
}

// Models selects providers and model tags per role, with per-stage overrides.
type Models struct {
	Provider       string            `toml:"provider" active:"true" doc:"ollama (local), openai_compat (vLLM, llama-server: the model name selects a LoRA adapter per request) or remote_api."`
	BaseURL        string            `toml:"base_url" active:"true" doc:"Provider URL."`
	Coding         string            `toml:"coding" active:"true" doc:"Model tag for the coding role."`
	Reasoning      string            `toml:"reasoning" active:"true" doc:"Model tag for the reasoning role."`
	ContextWindow  int               `toml:"context_window" doc:"Context window of the execute model, in tokens."`
	MaxTokens      int               `toml:"max_tokens" doc:"Completion tokens asked for per call."`
	APIKeyEnv      string            `toml:"api_key_env" doc:"Name of the environment variable holding the API key, if the provider needs one. Never the key itself."`
	TimeoutSeconds int               `toml:"timeout_seconds" doc:"Per-call timeout."`
	MaxRetries     int               `toml:"max_retries" doc:"Retries on 429, 5xx and connection errors (exponential backoff, honours Retry-After)."`
	MaxConcurrency int               `toml:"max_concurrency" doc:"Calls in flight at once per provider."`
	Think          bool              `toml:"think" doc:"Let thinking models (Qwen3-class) think before answering. false sends Ollama's think=false and vLLM's enable_thinking=false; thinking that still arrives is logged apart and never parsed or trained on."`
	Overrides      map[string]string `toml:"overrides" doc:"Per-stage model tags (e.g. a LoRA adapter trained for that stage); a stage listed here wins over its role." example:"scope = \"qwen3:1.7b-scope-v1\""`
	Temperature    Temperature       `toml:"temperature" doc:"Sampling temperature per role; 0.0 is deterministic."`
	// Champions are the adapters routed per stage: read from the adapter
	// registry when a command loads its stores, never from config.toml.
	// A stage's override wins over its champion.
	Champions map[string]Adapter `toml:"-"`
}

// Temperature per model role.
type Temperature struct {
	Coding    float64 `toml:"coding"`
	Reasoning float64 `toml:"reasoning"`
}

// Budget is the prompt budget: the context package may use
// models.context_window - reserved_tokens.
type Budget struct {
	ReservedTokens int     `toml:"reserved_tokens" doc:"Tokens kept for everything but the context package: system prompt, task, retry context and max_tokens. Must be < models.context_window."`
	SafetyMargin   float64 `toml:"safety_margin" doc:"Fraction added to the chars/4 token estimate to absorb tokenizer variance (0 <= x < 1)."`
}

// Index configures cra index.
type Index struct {
	MaxFileBytes     int64 `toml:"max_file_bytes" doc:"Files larger than this are recorded and skipped, not parsed."`
	CoChangeMaxFiles int   `toml:"co_change_max_files" doc:"Commits touching more files than this are noise for co-change counts."`
}

// Testing configures patch validation for cra solve.
type Testing struct {
	TestCommand      string `toml:"test_command" doc:"Required by cra solve, e.g. \"go test ./...\" or \"pytest tests/\". Run with sh -c in the worktree."`
	LintCommand      string `toml:"lint_command" doc:"Optional; informational only."`
	TypeCheckCommand string `toml:"type_check_command" doc:"Optional; informational only."`
	TimeoutSeconds   int    `toml:"timeout_seconds" doc:"Per command; on timeout the command and its children are killed."`
	// cra eval's own test timeout: this many times the commit's measured
	// test time, at least the floor, at most timeout_seconds.
	EvalTimeoutFactor       float64 `toml:"eval_timeout_factor" doc:"cra eval stops a test run after this many times the commit's own test time (measured once per commit), so one hanging test costs little."`
	EvalTimeoutFloorSeconds int     `toml:"eval_timeout_floor_seconds" doc:"cra eval's test timeout is never below this (and never above timeout_seconds)."`
	// Sandbox is how test commands are confined (agent/orchestrator/box.go).
	Sandbox string `toml:"sandbox" doc:"Where test commands run: \"auto\" (bubblewrap when it works here, else unconfined with a warning), \"bwrap\" (bubblewrap or nothing: cra solve and cra eval stop with exit 2 when it cannot run) or \"none\" (unconfined, with a one-line warning per run). In bubblewrap only the worktree, a private /tmp and the home's sandbox-cache/ (the boxed runs' GOCACHE and XDG_CACHE_HOME) are writable, the network is cut and no test process outlives its run."`
	// EnvPassthrough adds to DefaultEnvPassthrough (testenv.go).
	EnvPassthrough []string `toml:"env_passthrough" doc:"Environment variables test commands get besides PATH, HOME, the locale and the Go, Python, Node, Rust and Java toolchains' own (NAME, or PREFIX* for any suffix). No other variable passes, so no API key reaches a test; a name that looks like a credential (KEY, TOKEN, SECRET, ...) passes only when listed exactly." example:"env_passthrough = [\"DATABASE_URL\", \"MYAPP_*\"]"`
	// Repos override the commands for one repository each.
	Repos []TestingRepo `toml:"repo" doc:"Per-repository overrides, one [[testing.repo]] table each; an empty key keeps the value above." example:"path = \"/home/me/clones/requests\"\ntest_command = \"python3 -m pytest -x -q tests\""`
}

// TestingRepo is one repository's [[testing.repo]] table.
type TestingRepo struct {
	Path             string `toml:"path"`
	TestCommand      string `toml:"test_command"`
	LintCommand      string `toml:"lint_command"`
	TypeCheckCommand string `toml:"type_check_command"`
	TimeoutSeconds   int    `toml:"timeout_seconds"`
}

// For is the testing configuration of the repository at repoPath: the
// [[testing.repo]] table naming it (paths compared absolute and cleaned,
// symbolic links resolved) over the defaults above it.
func (t Testing) For(repoPath string) Testing {
	out := t
	out.Repos = nil
	want := canonical(repoPath)
	for _, r := range t.Repos {
		if canonical(r.Path) != want {
			continue
		}
		for dst, src := range map[*string]string{&out.TestCommand: r.TestCommand, &out.LintCommand: r.LintCommand, &out.TypeCheckCommand: r.TypeCheckCommand} {
			if src != "" {
				*dst = src
			}
		}
		if r.TimeoutSeconds > 0 {
			out.TimeoutSeconds = r.TimeoutSeconds
		}
	}
	return out
}

// canonical is a path made absolute and clean, its links resolved when it
// exists.
func canonical(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}

// Orchestrator bounds the solve loop: parts, steps, adjustments, retries
// and re-entries into retrieval.
type Orchestrator struct {
	MaxParts            int `toml:"max_parts" doc:"Parts in a meta-plan decomposition."`
	MaxStepsPerPart     int `toml:"max_steps_per_part" doc:"Steps in a part plan."`
	MaxAdjustmentRounds int `toml:"max_adjustment_rounds" doc:"Adjustment passes per step."`
	MaxRetriesPerStep   int `toml:"max_retries_per_step" doc:"Implement retries per step after a failed validation."`
	MaxRefinementLoops  int `toml:"max_refinement_loops" doc:"Times one run's plan or implement call may ask retrieval for more context."`
}

// Bootstrap configures the commit filter of history replay.
type Bootstrap struct {
	MaxFiles          int      `toml:"max_files" doc:"A commit qualifies with 1 to max_files source files changed..."`
	MaxChangedLines   int      `toml:"max_changed_lines" doc:"...and at most this many lines added plus deleted."`
	MinSubjectChars   int      `toml:"min_subject_chars" doc:"Subject length after stripping tags such as [skip ci] or scope:."`
	MinSubjectWords   int      `toml:"min_subject_words" doc:"Words in the stripped subject."`
	RequireImperative bool     `toml:"require_imperative" doc:"Only subjects starting with an imperative verb (fix, add, ...)."`
	BotPatterns       []string `toml:"bot_patterns" doc:"Author or committer names/emails containing any of these are bots (case-insensitive)."`
	NoisePatterns     []string `toml:"noise_patterns" doc:"Regular expressions (case-insensitive) for subjects that say nothing: wip, update, reverts, merges, version bumps, bare issue numbers or hashes."`
	Lockfiles         []string `toml:"lockfiles" doc:"File names of dependency lockfiles: a commit touching one is not a code change."`
	GeneratedPatterns []string `toml:"generated_patterns" doc:"Glob patterns (on file names) of generated code: a commit touching one is rejected."`
	CoChangeMinCount  int      `toml:"co_change_min_count" doc:"Co-change neighbours need at least this many earlier commits together."`
}

// Curate configures dataset curation.
type Curate struct {
	NearDupThreshold   float64  `toml:"near_dup_threshold" doc:"MinHash Jaccard threshold for near-duplicates (word 5-grams of task + completion)."`
	MinHashBands       int      `toml:"minhash_bands" doc:"LSH bands; bands x rows hashes in all."`
	MinHashRows        int      `toml:"minhash_rows" doc:"Rows per LSH band."`
	Secrets            string   `toml:"secrets" doc:"What to do with examples containing credentials: redact or drop. Never exported as found."`
	ValidationFraction float64  `toml:"validation_fraction" doc:"Share of commits (by hash of repo + commit; a merged branch's task and its commits by the merge commit, as one) put in the validation split: the one split rule of curate-data, cra distill and cra eval."`
	HoldoutRepos       []string `toml:"holdout_repos" doc:"Repositories held out whole: their tasks go to validation in curate-data and cra distill (curate-data's --holdout-repos or a training plan's list replaces this one) and are cra eval's --split holdout."`
	PerRepoCap         int      `toml:"per_repo_cap" doc:"Most examples per repository and stage; 0 means no cap."`
	ShardMaxMB         int      `toml:"shard_max_mb" doc:"Uncompressed size at which an export starts a new shard."`
}

// Adapters configures LoRA adapters: how they are served and gated.
type Adapters struct {
	Server        string  `toml:"server" doc:"The server that loads the adapters: vllm, llamacpp or ollama; empty means ollama for the ollama provider, vllm for openai_compat."`
	MaxRegression float64 `toml:"max_regression" doc:"cra adapters eval: the most end-to-end success may fall with a candidate (the lower bound of the paired difference's 95 % interval must be above minus this)."`
}

// Store configures DuckDB in every command.
type Store struct {
	MemoryLimit string `toml:"memory_limit" doc:"DuckDB's memory limit per open store, e.g. \"2GB\"; empty means a thirty-second of the machine's memory (or its container's), between 1 GiB and 4 GiB. Past it DuckDB spills to tmp/ in the home; raise it if a command says the stores ran out of memory."`
	Threads     int    `toml:"threads" doc:"DuckDB's worker threads per open store; 0 means 1. cra's own queries are small and gain nothing from more; raise it (up to the machine's cores) for large ad-hoc cra sql queries."`
}

// Teacher configures the remote model used for distillation.
type Teacher struct {
	Provider         string        `toml:"provider" doc:"remote_api or openai_compat."`
	BaseURL          string        `toml:"base_url" doc:"OpenAI-compatible endpoint of the teacher."`
	Model            string        `toml:"model" doc:"Teacher model name; empty disables distillation."`
	APIKeyEnv        string        `toml:"api_key_env" doc:"Name of the environment variable holding the teacher's API key."`
	MaxConcurrency   int           `toml:"max_concurrency" doc:"Teacher calls in flight at once."`
	TimeoutSeconds   int           `toml:"timeout_seconds" doc:"Per-call timeout."`
	MaxRetries       int           `toml:"max_retries" doc:"Retries on 429, 5xx and connection errors."`
	MaxTokens        int           `toml:"max_tokens" doc:"Completion tokens asked for per call (max_completion_tokens for reasoning models); also the output side of the most a call can cost, which --budget-usd reserves before each call."`
	BatchPollSeconds int           `toml:"batch_poll_seconds" doc:"How often cra distill --batch asks the Batch API whether its batches are done."`
	Prices           TeacherPrices `toml:"prices" doc:"The teacher's prices in USD, for --dry-run estimates and the --budget-usd cap. Look them up on the provider's pricing page; all 0 means unknown (a --budget-usd is then refused)."`
	Verify           TeacherVerify `toml:"verify" doc:"Rejection sampling: a teacher answer becomes a training example only when it is this close to the ground truth."`
}

// TeacherPrices are a teacher model's prices per million tokens, in USD.
type TeacherPrices struct {
	InputPerMillion       float64 `toml:"input_per_million" doc:"USD per million prompt tokens."`
	CachedInputPerMillion float64 `toml:"cached_input_per_million" doc:"USD per million prompt tokens the provider reports as served from its prompt cache."`
	OutputPerMillion      float64 `toml:"output_per_million" doc:"USD per million completion tokens (reasoning tokens included)."`
	BatchDiscount         float64 `toml:"batch_discount" doc:"Fraction taken off every price for requests sent through the Batch API (--batch); OpenAI's is 0.5."`
}

// Zero reports whether no price is set.
func (p TeacherPrices) Zero() bool {
	return p.InputPerMillion == 0 && p.CachedInputPerMillion == 0 && p.OutputPerMillion == 0
}

// TeacherVerify holds the thresholds a teacher answer must meet against
// the ground truth of its stage.
type TeacherVerify struct {
	ScopeMinRecall            float64 `toml:"scope_min_recall" doc:"Scope: share of the files the commit touched that the answer keeps."`
	ScopeMinPrecision         float64 `toml:"scope_min_precision" doc:"Scope: share of the answer's files that the commit touched."`
	PrecisionMinF1            float64 `toml:"precision_min_f1" doc:"Precision: F1 of the answer's non-excluded symbols against the ground truth's."`
	PrecisionMinPrimaryRecall float64 `toml:"precision_min_primary_recall" doc:"Precision: share of the ground truth's primary symbols the answer marks primary."`
	PlanMinFileF1             float64 `toml:"plan_min_file_f1" doc:"Plan: F1 of the plan's affected files against the files the commit changed (the plan must also pass validation)."`
}

// The [index] limits' defaults, the one home of both numbers: index,
// bootstrap and the walk fall back to them when no configuration is given.
const (
	DefaultMaxFileBytes     = 1 << 20 // larger files are skipped as too_large
	DefaultCoChangeMaxFiles = 30      // commits touching more files do not count toward co-change
)

// Default returns the configuration used for every key config.toml leaves out.
func Default() Config {
	return Config{
		Models: Models{
			Provider:       "ollama",
			BaseURL:        "http://localhost:11434",
			Coding:         "qwen3:1.7b",
			Reasoning:      "qwen3:1.7b",
			ContextWindow:  32768,
			MaxTokens:      4096,
			TimeoutSeconds: 300,
			MaxRetries:     3,
			MaxConcurrency: 2,
			Overrides:      map[string]string{},
		},
		Budget:  Budget{ReservedTokens: 8192, SafetyMargin: 0.1},
		Index:   Index{MaxFileBytes: DefaultMaxFileBytes, CoChangeMaxFiles: DefaultCoChangeMaxFiles},
		Testing: Testing{Sandbox: SandboxAuto, TimeoutSeconds: 600, EvalTimeoutFactor: 5, EvalTimeoutFloorSeconds: 30, EnvPassthrough: []string{}},
		Orchestrator: Orchestrator{
			MaxParts: 10, MaxStepsPerPart: 15, MaxAdjustmentRounds: 3,
			MaxRetriesPerStep: 1, MaxRefinementLoops: 2,
		},
		Bootstrap: Bootstrap{
			MaxFiles: 5, MaxChangedLines: 200, MinSubjectChars: 10, MinSubjectWords: 4,
			BotPatterns: []string{"[bot]", "dependabot", "renovate", "github-actions"},
			NoisePatterns: []string{
				`^(wip|tmp|temp|misc|stuff|changes|update|updates|updated|fix|fixes|fixed|cleanup|clean ?up|minor|typo|typos|fix typos?|lint|format|formatting|style|refactor|test|tests|initial (commit|import)|first commit|init)\W*$`,
				`^(wip\b|fixup!|squash!|amend!)`,
				`^merge\b`, `^revert\b`,
				`^(bump|bumped|upgrade|upgraded|pin|pinned)\b.*\d+\.\d+`,
				`^(release|released|prepare|preparing|version|tag|tagged)\b.*\d+\.\d+`,
				`^v?\d+(\.\d+)+\S*$`,
				`^((#|gh-)\d+|[a-z]+-\d+)([ ,;]+((#|gh-)\d+|[a-z]+-\d+))*$`,
				`^[0-9a-f]{7,40}$`,
			},
			Lockfiles: []string{"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "go.sum",
				"poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock", "Cargo.lock", "composer.lock", "Gemfile.lock"},
			GeneratedPatterns: []string{"*_pb2.py", "*_pb2_grpc.py", "*.pb.go", "*_generated.go", "*.gen.go",
				"zz_generated*.go", "*.generated.ts", "*.min.js"},
			CoChangeMinCount: 2,
		},
		Adapters: Adapters{MaxRegression: 0.02},
		Ask:      defaultAsk(),
		Curate: Curate{
			NearDupThreshold: 0.8, MinHashBands: 16, MinHashRows: 8,
			Secrets: "redact", ValidationFraction: 0.1, HoldoutRepos: []string{}, PerRepoCap: 5000, ShardMaxMB: 256,
		},
		Teacher: Teacher{
			Provider: "remote_api", APIKeyEnv: "CRA_TEACHER_API_KEY",
			MaxConcurrency: 4, TimeoutSeconds: 120, MaxRetries: 5, MaxTokens: 4096, BatchPollSeconds: 30,
			Prices: TeacherPrices{BatchDiscount: 0.5},
			Verify: TeacherVerify{ScopeMinRecall: 1, ScopeMinPrecision: 0.5, PrecisionMinF1: 0.7,
				PrecisionMinPrimaryRecall: 1, PlanMinFileF1: 0.8},
		},
	}
}
