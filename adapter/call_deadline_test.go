package adapter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// withholdingRS is a resource server reached without a network: the mock
// RS answers in memory, except the requests withhold picks, which get no
// answer until the request's context or the test's ends (an RS that
// accepts and never answers; a schema read shared through the cache
// outlives the call that started it, and ends with the test).
type withholdingRS struct {
	rs       http.Handler
	withhold func(*http.Request) bool
	until    context.Context
}

func (w withholdingRS) RoundTrip(r *http.Request) (*http.Response, error) {
	if w.withhold(r) {
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-w.until.Done():
			return nil, w.until.Err()
		}
	}
	rec := httptest.NewRecorder()
	w.rs.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// TestACallIsBoundedAsAWhole: when the RS accepts requests and never
// answers, a tool call ends when its own deadline (Waits.Call) does,
// however many RS requests it makes one after another, and answers a
// typed error that says the resource server gave no answer in time. The calls
// run in a synctest bubble over an in-memory transport, so the clock they
// read is the bubble's: the elapsed time is exact and owes nothing to the
// machine's speed. Each RS request alone may take an hour (rsclient's
// per-request timeout), so only the call's deadline can end them.
func TestACallIsBoundedAsAWhole(t *testing.T) {
	t.Parallel()
	const callTimeout = 2 * time.Second
	dataOnly := func(r *http.Request) bool { return !strings.HasPrefix(r.URL.Path, "/v1/schema") }
	everything := func(*http.Request) bool { return true }
	work := demodata.GmailWorkConnectionID
	for _, tc := range []struct {
		name     string
		withhold func(*http.Request) bool
		tool     string
		args     map[string]any
	}{
		{"aggregate over two connections, data withheld", dataOnly, "aggregate", map[string]any{"stream": "messages", "metric": "count"}},
		{"aggregate, every request withheld", everything, "aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": work}},
		{"search over two connections, data withheld", dataOnly, "search", map[string]any{"q": "invoice"}},
		{"query_records, data withheld", dataOnly, "query_records", map[string]any{"stream": "messages", "connection_id": work, "limit": 3}},
		{"read_record_field, data withheld", dataOnly, "read_record_field", map[string]any{"stream": "message_bodies", "connection_id": work,
			"record_id": demodata.LongBodyMessageID, "field_path": "body_text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				mock, err := rstest.New(testenv.Dataset(t), rstest.Options{Semantic: true})
				if err != nil {
					t.Fatal(err)
				}
				rc, err := rsclient.New(rsclient.Config{BaseURL: "http://rs.test", Timeout: time.Hour,
					Transport: withholdingRS{rs: mock, withhold: tc.withhold, until: t.Context()}})
				if err != nil {
					t.Fatal(err)
				}
				srv, err := adapter.New(adapter.Config{RS: rc, Version: "test", Waits: adapter.Waits{Call: callTimeout},
					Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				r := newClient(t, srv).call(tc.tool, tc.args)
				if took := time.Since(start); took != callTimeout {
					t.Errorf("the call took %v of the bubble's clock, want its deadline %v", took, callTimeout)
				}
				if code := r.errorCode(t); code != "rs_timeout" || !strings.Contains(r.text(), "answer in time") {
					t.Errorf("answer: %s", r.text())
				}
			})
		})
	}
}

// TestAnOutageCostsACallOneDeadline: a grant read before the RS stopped
// answering, whose cached schema is past its TTL, makes the call read the
// schema again and then the data, one after the other. Each RS request
// alone may take rsclient's 15 s, so the call used to take 30 s; with the
// defaults it ends at its own 15 s deadline, answered from the last
// readable schema with a typed timeout. On the bubble's clock, as above.
func TestAnOutageCostsACallOneDeadline(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mock, err := rstest.New(testenv.Dataset(t), rstest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var down atomic.Bool
		rc, err := rsclient.New(rsclient.Config{BaseURL: "http://rs.test",
			Transport: withholdingRS{rs: mock, withhold: func(*http.Request) bool { return down.Load() }, until: t.Context()}})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := adapter.New(adapter.Config{RS: rc, Version: "test", Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}})
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, srv)
		count := map[string]any{"stream": "messages", "metric": "count"}
		if r := c.call("aggregate", count); r.IsError {
			t.Fatalf("before the outage: %s", r.text())
		}
		down.Store(true)
		time.Sleep(time.Minute) // the bubble's clock passes the schema TTL; no real time passes
		start := time.Now()
		r := c.call("aggregate", count)
		if took := time.Since(start); took != rsclient.DefaultTimeout {
			t.Errorf("the call took %v of the bubble's clock, want the default call deadline %v", took, rsclient.DefaultTimeout)
		}
		if code := r.errorCode(t); code != "rs_timeout" {
			t.Errorf("answer: %s", r.text())
		}
	})
}
