# pdpp-mcp — one command runs the demo, one passes the tests.
GO      ?= go
PKGS    := ./...
BIN     := bin/pdpp-mcp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build demo test test-go test-e2e e2e-deps lint fuzz bench soak clean manifests release-check release-build bench-e2e

all: build

## build: a static binary, as released (no cgo: a desktop host spawns the
## stdio adapter per session, and the dynamic loader cost ~3 ms of it).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN) ./cmd/pdpp-mcp

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

## manifests: strict offline checks of deploy/ (Kubernetes API types, policy,
## the binary under the container's environment); also part of `make test`.
manifests:
	$(GO) test -count=1 ./deploy

## release-check: goreleaser's own validation of .goreleaser.yaml (fetches
## goreleaser through the Go module proxy on first use).
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
release-check:
	$(GORELEASER) check

## release-build: the release matrix with the release flags, without
## goreleaser, into dist/ (sizes printed).
RELEASE_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
release-build:
	@set -e; for p in $(RELEASE_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" \
	    -o dist/pdpp-mcp_$${os}_$${arch} ./cmd/pdpp-mcp; \
	done; ls -l dist/pdpp-mcp_*

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

## soak: the built binary against an in-process mock RS, 64 MCP clients over
## every tool for 60 s with RS faults in the middle; prints calls, errors by
## code, p50/p99, adapter RSS and goroutines (SOAK_DURATION, SOAK_CLIENTS,
## SOAK_REPORT=<file> to keep the figures). Not part of `make test`.
soak: build
	SOAK_BIN=$(CURDIR)/$(BIN) $(GO) test -tags soak -run '^TestSoak$$' -count=1 -timeout 10m -v ./internal/soak

clean:
	rm -rf bin dist

## bench-e2e: the adapter against its limit, the RS itself (hosted, stdio and
## direct REST side by side, interleaved; ~1–2 minutes). Not part of `test`.
bench-e2e: build
	$(GO) run ./e2e/bench -bin $(BIN)
