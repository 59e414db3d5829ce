package adapter_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// failingSchema makes /v1/schema answer 503 for one bearer while failing
// is set; every other request passes.
func failingSchema(bearer string, failing *atomic.Bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if failing.Load() && r.URL.Path == "/v1/schema" && r.Header.Get("Authorization") == "Bearer "+bearer {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte(`{"error":{"type":"api_error","code":"unavailable","message":"down"}}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// TestFailedGrantIsAWarningEverywhere: a grant whose
// schema read fails is a source_unavailable warning in every tool's
// result, text included; a stream it may hold is source_unavailable, never
// unknown_stream; and while its last index is cached its streams still
// route.
func TestFailedGrantIsAWarningEverywhere(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	rs := testenv.StartRS(t, testenv.Options{Raw: failingSchema(demodata.SlackToken, &failing), NoContract: true})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Now()}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Now: clk.Now, SchemaTTL: time.Minute,
		Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken), adapter.NewGrant(demodata.SlackToken)}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv)
	work := demodata.GmailWorkConnectionID
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"schema", map[string]any{}},
		{"schema", map[string]any{"stream": "threads"}},
		{"query_records", map[string]any{"stream": "threads", "connection_id": work, "limit": 2}},
		{"aggregate", map[string]any{"stream": "threads", "metric": "count", "connection_id": work}},
		{"search", map[string]any{"q": "roadmap"}},
	}

	t.Run("never read", func(t *testing.T) {
		failing.Store(true)
		for _, tc := range calls {
			r := c.call(tc.tool, tc.args)
			if r.IsError {
				t.Errorf("%s %v failed: %s", tc.tool, tc.args, r.text())
				continue
			}
			if !strings.Contains(r.text(), "warning source_unavailable") {
				t.Errorf("%s %v: no source_unavailable warning in text:\n%s", tc.tool, tc.args, r.text())
			}
			if !strings.Contains(string(r.StructuredContent), "source_unavailable") {
				t.Errorf("%s: no warning in structuredContent", tc.tool)
			}
		}
		// fetch: the result stays exactly the document; the warning rides
		// in its metadata (text and structuredContent alike).
		page := c.call("query_records", map[string]any{"stream": "threads", "connection_id": work, "limit": 1})
		m := recordLineRE.FindStringSubmatch(page.text())
		if m == nil {
			t.Fatalf("no record id in %s", page.text())
		}
		doc := c.call("fetch", map[string]any{"id": m[1]})
		if doc.IsError || !strings.Contains(doc.text(), `"source_unavailable"`) || string(doc.StructuredContent) != doc.text() {
			t.Errorf("fetch lacks the warning or is not exactly the document: %s", doc.text())
		}
		// A stream only the unread grant may hold is not unknown.
		r := c.call("query_records", map[string]any{"stream": "channels"})
		if got := r.errorCode(t); got != "source_unavailable" {
			t.Errorf("code %q, want source_unavailable: %s", got, r.text())
		}
		r = c.call("query_records", map[string]any{"stream": "channels", "connection_id": demodata.SlackConnectionID})
		if got := r.errorCode(t); got != "source_unavailable" {
			t.Errorf("unknown connection of an unread grant: code %q: %s", got, r.text())
		}
	})

	t.Run("cached index routes", func(t *testing.T) {
		failing.Store(false)
		clk.advance(3 * time.Second) // past the remembered failure
		if r := c.call("schema", map[string]any{}); strings.Contains(r.text(), "warning") {
			t.Fatalf("both indexes should read: %s", r.text())
		}
		failing.Store(true)
		clk.advance(2 * time.Minute) // past SchemaTTL: the slack schema is re-read and fails
		r := c.call("query_records", map[string]any{"stream": "channels", "limit": 2})
		if r.IsError {
			t.Fatalf("channels of the failing grant should still route: %s", r.text())
		}
		containsAll(t, r.text(), demodata.SlackConnectionID, "warning source_unavailable")
		r = c.call("aggregate", map[string]any{"stream": "channels", "metric": "count"})
		if r.IsError {
			t.Fatalf("aggregate on the failing grant's cached stream: %s", r.text())
		}
		containsAll(t, r.text(), "warning source_unavailable")
	})
}

// A grant that stops reading is named in its warning by grant
// id and label (its connections), not "grant 2 of 2" — also once its last
// readable schema no longer routes (past 15 minutes).
func TestFailedGrantIsNamedByIDAndLabel(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	rs := testenv.StartRS(t, testenv.Options{Raw: failingSchema(demodata.SlackToken, &failing), NoContract: true})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Now()}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Now: clk.Now, SchemaTTL: time.Minute,
		Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken), adapter.NewGrant(demodata.SlackToken)}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv)
	if r := c.call("schema", map[string]any{}); strings.Contains(r.text(), "warning") {
		t.Fatalf("both grants should read: %s", r.text())
	}
	failing.Store(true)
	for _, after := range []time.Duration{2 * time.Minute, 20 * time.Minute} {
		clk.advance(after)
		r := c.call("schema", map[string]any{})
		containsAll(t, r.text(), "warning source_unavailable: grant "+demodata.SlackGrantID+" (", demodata.SlackDisplayName)
		if strings.Contains(r.text(), "of 2") {
			t.Errorf("named by position after %s: %s", after, r.text())
		}
	}
}
