// Package testenv starts the pieces an adapter or end-to-end test needs: a
// mock RS over the demo dataset (every response validated against
// openapi.yaml), rs clients, and adapter servers wired to them. It is for
// tests only.
package testenv

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/contract"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

var (
	datasetOnce sync.Once
	dataset     *rstest.Dataset
	datasetErr  error
)

// Dataset is the default demo dataset, built once per test binary (it is
// immutable once built).
func Dataset(t testing.TB) *rstest.Dataset {
	t.Helper()
	datasetOnce.Do(func() { dataset, datasetErr = demodata.Build(demodata.Options{}) })
	if datasetErr != nil {
		t.Fatalf("build demo dataset: %v", datasetErr)
	}
	return dataset
}

// RS is a running mock resource server.
type RS struct {
	URL    string
	Server *rstest.Server
}

// Options tune StartRS.
type Options struct {
	// Dataset overrides the demo dataset.
	Dataset *rstest.Dataset
	// NoSemantic unmounts semantic and hybrid search.
	NoSemantic bool
	// Raw wraps the mock RS handler (e.g. to make it ignore `fields`).
	Raw func(http.Handler) http.Handler
	// NoContract skips OpenAPI validation (benchmarks: the validator costs
	// more than the exchange it checks).
	NoContract bool
	// TokenTTL and Now are the mock's client-token lifetime and clock
	// (rstest.Options); zero values: tokens never expire, real time.
	TokenTTL time.Duration
	Now      func() time.Time
	// Capabilities is the schema posture (rstest.Options); zero: full.
	// rstest.CapabilitiesDeclared serves the real RS's D1 posture.
	Capabilities rstest.Capabilities
	// LexicalGaps leaves connection streams out of the lexical index, as
	// the real RS once did (D5; rstest.Options).
	LexicalGaps []rstest.LexicalGap
	// OnRequest sees every request as the mock logs it, before it is
	// answered (rstest.Options.OnRequest; it must not block): a test
	// awaits an arrival (see Arrivals) instead of polling the log.
	OnRequest func(rstest.RecordedRequest)
}

// StartRS serves the mock RS on a loopback httptest server for the test's
// lifetime. Every response is validated against openapi.yaml.
func StartRS(t testing.TB, opts Options) *RS {
	t.Helper()
	ds := opts.Dataset
	if ds == nil {
		ds = Dataset(t)
	}
	srv, err := rstest.New(ds, rstest.Options{Semantic: !opts.NoSemantic, TokenTTL: opts.TokenTTL, Now: opts.Now,
		Capabilities: opts.Capabilities, LexicalGaps: opts.LexicalGaps, OnRequest: opts.OnRequest})
	if err != nil {
		t.Fatalf("mock RS: %v", err)
	}
	var h http.Handler = srv
	if !opts.NoContract {
		h = contract.Middleware(t, srv)
	}
	if opts.Raw != nil {
		h = opts.Raw(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &RS{URL: hs.URL, Server: srv}
}

// RSCalls counts the requests the mock RS has seen.
func (rs *RS) RSCalls() int { return len(rs.Server.Requests()) }
