# cra — see README.md. Every target runs on a fresh machine with Go and gcc.
GO       ?= go
BIN      ?= bin/cra
REPO     ?= $(CURDIR)
BENCH    ?= .
COUNT    ?= 6
N        ?= 3
# staticcheck, pinned; `go run` fetches it through the module proxy the first time.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# bench-bootstrap mines REPO (one path or several) when given on the command
# line, else a generated one.
BENCH_REPO = $(if $(filter command line,$(origin REPO)),$(abspath $(REPO)))

.PHONY: build install test test-race lint bench bench-index bench-bootstrap bench-retrieval bench-solve bench-box bench-routing bench-eval bench-datasets bench-distill bench-curate-logged e2e shards demo clean

# -buildvcs=auto stamps the git revision `cra version` prints, even where
# GOFLAGS turns it off.
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/cra

# cra on PATH: into $(GOBIN), else $(go env GOPATH)/bin.
install:
	$(GO) install -buildvcs=auto ./cmd/cra

# Every test binary links DuckDB (a large C++ archive), about forty of
# them: gold, where the machine has it (binutils on Debian), links each
# with about a third less CPU than the default linker, and without a
# symbol table or DWARF (-s -w: a test binary is run, not debugged; its
# panics still print Go's stack traces) a quarter to a third less again.
TESTLINK = -ldflags='-s -w$(if $(shell command -v ld.gold 2>/dev/null), -extldflags=-fuse-ld=gold)'

# The packages in the order go test starts their test binaries (two at a
# time on two cores): the longest first, so that the suite does not end
# with one long package running alone on one core.
TESTPKGS = ./cmd/cra/e2e/adapters ./bootstrap ./cmd/cra/e2e/recipe ./cmd/cra/e2e/solve \
	./cmd/cra/e2e ./cmd/cra/e2e/curate ./cmd/cra ./shards ./...

# cmd/cra/e2e's tests run bin/cra, built here without -race: the
# figures it checks are a user's, and the test does not build it itself.
# test is the suite as you run it while working; test-race is the same
# suite under the race detector (three to four times slower), which CI
# runs too. TESTFLAGS adds go test flags (-json for per-package times).
test: build
	CRA_E2E_BIN=$(abspath $(BIN)) $(GO) test $(TESTLINK) $(TESTFLAGS) -timeout 30m $(TESTPKGS)

test-race: build
	CRA_E2E_BIN=$(abspath $(BIN)) $(GO) test $(TESTLINK) -race $(TESTFLAGS) -timeout 30m $(TESTPKGS)

lint:
	@files=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# Benchmarks print figures and ratios against a baseline measured in the same
# process; quote medians (COUNT runs each; benchstat summarises bench.txt).
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) ./... | tee bench.txt

# cra index on generated repositories: files/s, MB/s, commits/s and the
# ratios to `git log --numstat` and `ctags -R` (when installed) on the same tree.
bench-index:
	$(GO) test -run '^$$' -bench 'BenchmarkIndex' -benchmem -count $(COUNT) -benchtime 3x ./ingest/ | tee bench-index.txt

# cra bootstrap on a generated ~150-file, ~6,000-commit repository (REPO="paths"
# for real clones, mined in one run): commits/s, verified commits, peak RSS and
# the ratio to `git log --all --numstat --no-renames` on the same repositories.
bench-bootstrap:
	CRA_BENCH_REPO="$(BENCH_REPO)" $(GO) test -run '^$$' -bench 'BenchmarkBootstrap' -benchmem -count $(COUNT) -benchtime 2x ./bootstrap/ | tee bench-bootstrap.txt

# Deterministic retrieval for one task (load the graph from the knowledge
# base, expand): generated 150- and 10,000-file repositories, or REPO=path.
bench-retrieval:
	CRA_BENCH_REPO=$(BENCH_REPO) $(GO) test -run '^$$' -bench 'BenchmarkRetrieval' -benchmem -count $(COUNT) -benchtime 5x ./agent/retrieval/ | tee bench-retrieval.txt

# cra solve's own time per step (an instant in-process model, `true` as the
# test command): a generated 150-file repository, or REPO=path (indexed
# first); the ratio is to the git add + commit a step needs anyway.
bench-solve:
	CRA_BENCH_REPO=$(BENCH_REPO) $(GO) test -run '^$$' -bench 'BenchmarkSolveStep' -benchmem -count $(COUNT) -benchtime 3x ./agent/orchestrator/ | tee bench-solve.txt

# bench-box: a test run's cost in bubblewrap against the same run
# unconfined (box-ms/op: the difference; target under 50 ms).
bench-box:
	$(GO) test -run '^$$' -bench 'BenchmarkBoxOverhead' -count $(COUNT) ./agent/orchestrator/ | tee bench-box.txt

# bench-routing: what routing a stage to its champion adapter adds to a
# call (Resolve and the request body, per server); the champion lines
# report x-base and added-µs/op, which must stay under 1000.
bench-routing:
	$(GO) test -run '^$$' -bench 'BenchmarkRouting' -benchmem -count $(COUNT) ./agent/llm/ | tee bench-routing.txt

# cra eval's own time per task (an instant in-process model answering from
# ground truth, no test command): a generated repository, or REPO=path
# (mined first); TASKS=N held-out tasks per eval (default 10), JOBS=N its --jobs; the ratio is
# to adding and removing a worktree at each task's parent.
bench-eval:
	CRA_BENCH_REPO=$(BENCH_REPO) CRA_BENCH_TASKS=$(TASKS) CRA_BENCH_JOBS=$(JOBS) $(GO) test -run '^$$' -bench 'BenchmarkEvalTask' -benchmem -count $(COUNT) -benchtime 1x -timeout 60m ./agent/eval/ | tee bench-eval.txt

# curate-data on 100,000 synthetic targets (targets/s) and the Parquet
# export of 1,000,000 rows (rows/s, peak heap).
bench-datasets:
	$(GO) test -run '^$$' -bench 'BenchmarkCurate$$|BenchmarkExportParquet' -benchmem -count $(COUNT) -benchtime 1x ./curate/ ./datasets/ | tee bench-datasets.txt

# cra distill: a run of 10,000 requests all answered from the cache
# (requests/s; target under 10 s) and the verification of 10,000 implement
# answers against their ground truth (answers/s; target under 30 s).
# bench-curate-logged: curate-data (every kind) over CALLS generated logged
# calls (default 1,000,000), in a child process: wall time, peak RSS, and
# the ratio to DuckDB reading every call's text once.
CALLS ?= 1000000
bench-curate-logged:
	CRA_BENCH_CALLS=$(CALLS) $(GO) test -run '^$$' -bench 'BenchmarkCurateLogged' -count $(COUNT) -benchtime 1x -timeout 60m ./curate/ | tee bench-curate-logged.txt

bench-distill:
	$(GO) test -run '^$$' -bench 'BenchmarkDistillCachedReplay|BenchmarkVerifyImplement' -benchmem -count $(COUNT) -benchtime 1x ./curate/ | tee bench-distill.txt

# The README's recipe on real clones, REPO="path [path ...]": init,
# bootstrap, curate-data, an export in every layout, eval, train-plan,
# logged curation, distill --dry-run and a budgeted distill, each step a
# child process of bin/cra, the fake model in oracle mode a process of its
# own (bin/fakellm). One row per step: exit code, seconds, CPU seconds,
# peak RSS, rows written. RUNS=3 runs it on three fresh homes and prints
# medians; E2E_FLAGS passes more (--eval-sample N, --distill-budget USD,
# --distill-sample N, --keep).
RUNS ?= 1
E2E_FLAGS ?=
E2E_REPOS = $(if $(filter command line environment,$(origin REPO)),$(REPO))
e2e:
	@test -n "$(E2E_REPOS)" || { echo 'usage: make e2e REPO="path [path ...]" [RUNS=3]'; exit 2; }
	@$(MAKE) --no-print-directory build
	$(GO) build -o bin/fakellm ./internal/e2e/cmd/fakellm
	$(GO) run ./internal/e2e/cmd/e2e --cra $(BIN) --fakellm bin/fakellm --runs $(RUNS) $(E2E_FLAGS) $(E2E_REPOS)

# The sharded nightly batch on one machine: REPO mined once in a home of
# its own and again as N shard processes at once (separate homes, --shard
# K/N), each exported, the union imported into a fresh home; prints each
# step's time and peak RSS and whether the union and `cra sql --shards`
# equal the single run (shards.Checks). Exit 1 when they differ.
shards:
	@test -n "$(E2E_REPOS)" || { echo 'usage: make shards REPO="path [path ...]" [N=3]'; exit 2; }
	@$(MAKE) --no-print-directory build
	$(GO) run ./internal/e2e/cmd/shards --cra $(BIN) --shards $(N) $(E2E_REPOS)

# The main job on a throw-away home: REPO=path to choose the repository.
demo: build
	@home=$$(mktemp -d -t cra-demo-XXXXXX); \
	if [ -z "$(KEEP)" ]; then trap 'rm -rf "$$home"; echo "demo home $$home removed (KEEP=1 keeps it)"' EXIT; \
	else echo "demo home kept: $$home (remove it with: rm -rf $$home)"; fi; \
	echo "demo home: $$home (repository $(REPO))"; \
	./$(BIN) --home $$home init && \
	./$(BIN) --home $$home bootstrap $(REPO) && \
	./$(BIN) --home $$home bootstrap $(REPO) && \
	./$(BIN) --home $$home sql --format table \
		"select outcome, sum(commits) as commits from bootstrap_funnel group by all order by commits desc" && \
	./$(BIN) --home $$home sql --format table \
		"select stage, count(*) as targets, round(avg(length(target::varchar))) as avg_bytes from synthetic_targets group by all" && \
	./$(BIN) --home $$home sql --format table \
		"select file_path, qualified_name, called_by from code_index order by len(called_by) desc limit 5"

clean:
	rm -rf bin bench.txt bench-index.txt bench-bootstrap.txt bench-retrieval.txt bench-solve.txt bench-routing.txt bench-eval.txt bench-datasets.txt bench-distill.txt bench-curate-logged.txt
