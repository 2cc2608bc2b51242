# loregate — run `make` for the list of targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/loregate
# Packages under test; fuzz seeds run as ordinary tests.
PKGS ?= ./...
FUZZTIME ?= 30s
BENCH ?= .
BENCHTIME ?= 1s

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this list
	@grep -hE '^[a-zA-Z/_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-14s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build bin/loregate
	$(GO) build -o $(BIN) ./cmd/loregate

.PHONY: install
install: ## Install loregate into GOBIN (default: GOPATH/bin; put it on PATH)
	$(GO) install ./cmd/loregate
	@d=$$($(GO) env GOBIN); test -n "$$d" || d=$$($(GO) env GOPATH)/bin; echo "installed $$d/loregate"; \
		case ":$$PATH:" in *":$$d:"*) ;; *) echo "$$d is not on PATH: export PATH=\"$$d:\$$PATH\"";; esac

.PHONY: run
run: build ## Start the service on a local Postgres it launches itself (data in ./.loregate)
	./$(BIN) serve

.PHONY: test
test: build ## Run every test against one throwaway Postgres
	./$(BIN) with-postgres -- $(GO) test -count=1 $(PKGS)

.PHONY: test/race
test/race: build ## Run every test with the race detector
	./$(BIN) with-postgres -- $(GO) test -count=1 -race $(PKGS)

.PHONY: bench
bench: build ## Run the benchmarks (results: docs/benchmarks.md)
	./$(BIN) with-postgres -- $(GO) test -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) -benchmem $(PKGS)

.PHONY: bench-report
bench-report: ## Print the ratio tables of docs/benchmarks.md that need no database (engine, bench workload, recursion, card and world info import; CPU-time ratios, about 3 minutes)
	@$(GO) test -run '^$$' -bench 'BenchmarkActivation$$|BenchmarkWorkload|BenchmarkRecursionWorkload|BenchmarkLargeCard|BenchmarkLargeWorldInfo/interleaved' -benchtime 4x ./lore/activation/ ./lore/format/ | awk '\
		/^Benchmark/ { name=$$1; sub(/-[0-9]+$$/, "", name); line=""; \
			for (i=3; i<NF; i+=2) if ($$(i+1) ~ /\// || $$(i+1) ~ /-ns\/turn|cpu-ms/) line=line sprintf(" | %s %s", $$(i+1), $$i); \
			print name line } \
		/^(ok|FAIL)/ { print }'
	@uptime

.PHONY: fuzz
fuzz: ## Fuzz every decoder, the GraphQL request path and the regex key compiler for FUZZTIME each (docs/fuzzing.md)
	@set -e; for pkg in $$($(GO) list ./lore/... ./graph/...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

.PHONY: soak
soak: build ## Long runs, not in make test: hostile requests beside normal turns (p99 within 3x of a quiet run) 10 kills of serve under writers at the default settings, 10 SIGKILLs of serve recording deferred turns, a 10,000-memory migration job
	./$(BIN) with-postgres -- $(GO) test -count=1 -tags soak -timeout 60m -run '^TestSoak' -v ./graph/ ./cmd/loregate/ ./jobs/

.PHONY: generate
generate: ## Regenerate generated code (River migrations, gqlgen, docs/schema.graphql)
	$(GO) generate ./...

.PHONY: verify
verify: generate ## Check that generated code is up to date
	@git diff --exit-code -- migrations graph docs/schema.graphql || { echo "generated code is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- migrations graph docs/schema.graphql)" || { echo "make generate created untracked files:"; git status --porcelain -- migrations graph docs/schema.graphql; exit 1; }

.PHONY: lint
lint: ## go vet, gofmt, staticcheck, deadcode (versions pinned by go.mod's tool lines) the citation check and the lore/ function length check, and the check that no rule raises the generic reason key
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); test -z "$$out" || { echo "gofmt needed:"; echo "$$out"; exit 1; }
	$(GO) tool staticcheck ./...
	@out=$$($(GO) tool deadcode -test ./...) && test -z "$$out" || { echo "deadcode: unreachable functions (remove them):"; echo "$$out"; exit 1; }
	$(GO) test -count=1 -run '^(TestCitationsResolve|TestLoreFunctionLength|TestCodecsDependOnLore|TestNoGenericReason)$$' ./cmd/internal/doccheck

.PHONY: tidy
tidy: ## go mod tidy
	$(GO) mod tidy
