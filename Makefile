# pdpp-mcp — one command runs the demo, one passes the tests.
GO      ?= go
PKGS    := ./...
BIN     := bin/pdpp-mcp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build demo test e2e-deps lint fuzz bench soak clean manifests release-check release-build bench-e2e bench-e2e-latency image image-push release ri-captures

all: build

## build: a static binary, as released (no cgo: a desktop host spawns the
## stdio adapter per session, and the dynamic loader cost ~3 ms of it).
build:
	@echo "== building $(BIN) (go build; on a cold cache it first compiles every dependency, a minute or more)"
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN) ./cmd/pdpp-mcp

## demo: embedded mock RS + demo data + hosted adapter on loopback. A taken
## default port falls back to a free one (with a note); ARGS passes flags:
## make demo ARGS='--addr 127.0.0.1:7680 --token-ttl 2m'.
ARGS ?=
demo: build
	./$(BIN) demo $(ARGS)

## e2e-deps: the pinned Node MCP clients of e2e/ (npm ci from the lockfile,
## ~1.1 GB into e2e/node/node_modules). Never run by `make test`; .ci/run
## runs it (with Chromium and nginx) before `make test`.
e2e-deps:
	./.ci/setup-e2e

# The race detector needs cgo and a working C compiler (gcc or clang). Where
# either is missing (`go env CGO_ENABLED` is 0 without a compiler on PATH)
# `make test` runs without -race and says so before starting; RACE= (empty)
# turns it off by hand.
CGO_WORKS := $(shell [ "$$($(GO) env CGO_ENABLED 2>/dev/null)" = 1 ] && \
  printf 'int main(void){return 0;}\n' | $$($(GO) env CC) -x c -o /dev/null - >/dev/null 2>&1 && echo yes)
RACE ?= $(if $(CGO_WORKS),-race)

# TEST_BIN is the pdpp-mcp the binary-driving tests (cmd/pdpp-mcp, e2e)
# share: built once here, before `go test` starts, so a cold build never
# races the race builds of every package (internal/testbin).
TEST_BIN := bin/test/pdpp-mcp

# gotestsum prints the standard `go test` output, then a summary of every
# skipped test with its message (each names what enables it).
GOTESTSUM ?= $(GO) tool gotestsum

## test: every test (unit, contract, e2e with real clients where installed;
## the rest skip, listed at the end with what enables them).
test:
	@if [ -n "$(RACE)" ]; then \
	  echo "== make test: race detector on (cgo with $$($(GO) env CC))"; \
	else \
	  echo "== make test: race detector OFF: it needs cgo and a C compiler (install gcc); running without -race"; \
	fi
	CGO_ENABLED=0 $(GO) build -trimpath -o $(TEST_BIN) ./cmd/pdpp-mcp
	$(GO) vet $(PKGS)
	PDPP_MCP_TEST_BIN=$(CURDIR)/$(TEST_BIN) $(GOTESTSUM) --format standard-quiet -- \
	  $(RACE) -count=1 -timeout 30m $(PKGS)

## manifests: strict offline checks of deploy/ (Kubernetes API types, policy,
## the binary under the container's environment); also part of `make test`.
manifests:
	$(GO) test -count=1 ./deploy

## release-check: goreleaser's own validation of .goreleaser.yaml (fetches
## goreleaser through the Go module proxy on first use).
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
release-check:
	$(GORELEASER) check

## image / image-push: the container image of deploy/Dockerfile, tagged
## $(IMAGE):$(VERSION) — the reference deploy/kubernetes/deployment.yaml and
## the README name (go test ./deploy keeps the three in agreement).
## image builds for this machine into the local engine; image-push builds
## linux/amd64 and linux/arm64 with buildx and pushes (docker login first).
IMAGE    ?= ghcr.io/pdpp/pdpp-mcp
DOCKER   ?= docker
IMAGE_ARGS = --build-arg VERSION=$(VERSION) --build-arg REVISION=$$(git rev-parse HEAD) \
  --build-arg CREATED=$$(date -u +%Y-%m-%dT%H:%M:%SZ) -f deploy/Dockerfile -t $(IMAGE):$(VERSION)
image:
	$(DOCKER) build $(IMAGE_ARGS) .
image-push:
	$(DOCKER) buildx build --platform linux/amd64,linux/arm64 $(IMAGE_ARGS) --push .

## release: the tagged release (run on a clean checkout of tag $(VERSION),
## with GITHUB_TOKEN set): goreleaser publishes the archives and checksums
## with docs/releases/$(VERSION).md as the notes, then image-push publishes
## the image. README "Publishing" has the whole flow.
release:
	@test -f docs/releases/$(VERSION).md || { echo "no release notes docs/releases/$(VERSION).md"; exit 1; }
	$(GORELEASER) release --clean --release-notes docs/releases/$(VERSION).md
	$(MAKE) image-push VERSION=$(VERSION)

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

## ri-captures: rewrite rsclient/rstest/testdata/ri-captures from a run of the
## RI tests (each RS exchange, normalised; needs PDPP_RI_SRC). Not part of `test`.
RI_CAPTURES := $(CURDIR)/rsclient/rstest/testdata/ri-captures
RI_CAPTURE_TESTS := TestRIJourneys$$|TestRIWorkOnlyGrant$$|TestRIOverlappingGrants$$|TestRISearchContinuesAcrossARefresh$$|TestRIHintExecutor$$|TestRITwin$$
ri-captures:
	@test -n "$(PDPP_RI_SRC)" || { echo "ri-captures: set PDPP_RI_SRC to the RI source"; exit 1; }
	rm -rf $(RI_CAPTURES)
	PDPP_RI_CAPTURE_DIR=$(RI_CAPTURES) $(GO) test -count=1 -timeout 30m -run '$(RI_CAPTURE_TESTS)' ./e2e
	@ls $(RI_CAPTURES) | wc -l

## bench-e2e: the adapter against its limit, the RS itself (hosted, stdio and
## direct REST side by side, interleaved; ~1–2 minutes). Not part of `test`.
bench-e2e: build
	$(GO) run ./e2e/bench -bin $(BIN)

## bench-e2e-latency: round trips, not CPU: a proxy delays every RS request
## by 20 and 50 ms; per tool the RS requests and p50 of a new bearer's first
## call, a first call and a repeat, against the direct call through the same
## proxy (~2 minutes). -first-search-rs URL -bearer TOKEN measures a first
## search against another RS (the reference RS).
bench-e2e-latency: build
	$(GO) run ./e2e/bench -bin $(BIN) -latency 20ms,50ms
