# pdpp-mcp — one command runs the demo, one passes the tests.
GO      ?= go
PKGS    := ./...
BIN     := bin/pdpp-mcp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build demo test test-go test-e2e e2e-deps lint fuzz bench clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/pdpp-mcp

## demo: embedded mock RS + demo data + hosted adapter on loopback.
demo: build
	./$(BIN) demo

## e2e-deps: the pinned Node MCP clients of e2e/ (npm ci from the lockfile).
e2e-deps:
	./.ci/setup-e2e

# test installs the Node clients first only where npm exists; elsewhere the
# Node e2e tests skip (and fail under CI=true).
E2E_DEPS := $(if $(shell command -v npm 2>/dev/null),e2e-deps)

## test: every test (unit, contract, e2e with real clients where installed).
test: $(E2E_DEPS)
	$(GO) vet $(PKGS)
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)

## fuzz: run every fuzz target briefly (FUZZTIME per target).
FUZZTIME ?= 10s
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; done

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

clean:
	rm -rf bin dist
