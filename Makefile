# cra — see README.md. Every target runs on a fresh machine with Go and gcc.
GO       ?= go
BIN      ?= bin/cra
REPO     ?= $(CURDIR)
BENCH    ?= .
COUNT    ?= 6

.PHONY: build test lint bench demo clean

build:
	$(GO) build -o $(BIN) ./cmd/cra

test:
	$(GO) test -race ./...

lint:
	@files=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi
	$(GO) vet ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# Benchmarks print figures and ratios against a baseline measured in the same
# process; quote medians (COUNT runs each; benchstat summarises bench.txt).
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) ./... | tee bench.txt

# The main job on a throw-away home: REPO=path to choose the repository.
demo: build
	@home=$$(mktemp -d -t cra-demo-XXXXXX); \
	echo "demo home: $$home (repository $(REPO))"; \
	./$(BIN) --home $$home init && \
	./$(BIN) --home $$home status && \
	./$(BIN) --home $$home sql --format table \
		"select table_catalog as store, count(*) as tables from information_schema.tables where table_catalog in ('curated', 'raw') group by all order by 1"

clean:
	rm -rf bin bench.txt
