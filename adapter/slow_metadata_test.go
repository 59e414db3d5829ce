package adapter_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// While the RS's protected-resource metadata never answers,
// concurrent schema(stream) calls share one metadata fetch instead of
// queueing behind each other, and every one of them is answered within a
// single RS deadline (queued, the last would wait six).
func TestSlowMetadataConcurrentCallersShareOneDeadline(t *testing.T) {
	t.Parallel()
	const rsTimeout = time.Second
	rs := testenv.StartRS(t, testenv.Options{NoContract: true})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL, Timeout: rsTimeout})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.SlackToken)}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, a)
	c.call("schema", map[string]any{}) // the grant's schema is healthy and cached
	rs.Server.SetFaults(&rstest.Faults{PathPrefix: "/.well-known/oauth-protected-resource", Latency: time.Minute})

	const callers = 6
	texts := make([]string, callers)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.call("schema", map[string]any{"stream": "messages"})
			if r.IsError {
				t.Errorf("caller %d: %s", i, r.text())
			}
			texts[i] = r.text()
		}()
	}
	wg.Wait()
	t.Logf("%d concurrent callers answered in %v; one metadata deadline is %v", callers, time.Since(start), rsTimeout)
	if prm := metadataRequests(rs); prm != 1 {
		t.Errorf("the RS saw %d metadata requests, want 1 shared by every caller", prm)
	}
	for i, text := range texts {
		if !strings.Contains(text, "messages") {
			t.Errorf("caller %d: schema(stream) text lacks the stream:\n%s", i, text)
		}
	}
	// The failure is remembered briefly: a later call does not ask again.
	c.call("schema", map[string]any{"stream": "messages"})
	if prm := metadataRequests(rs); prm != 1 {
		t.Errorf("after the failure the RS saw %d metadata requests, want it remembered", prm)
	}
}

func metadataRequests(rs *testenv.RS) int {
	n := 0
	for _, r := range rs.Server.Requests() {
		if strings.HasPrefix(r.Path, "/.well-known/oauth-protected-resource") {
			n++
		}
	}
	return n
}

// When the RS's search metadata cannot be read,
// schema(stream) says the modes could not be checked (both channels) and a
// semantic search goes to the RS instead of a false "not offered".
func TestUnreadableSearchMetadataIsUncheckedNotAbsent(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{NoContract: true})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, a)
	c.call("schema", map[string]any{}) // the grant's schema is healthy and cached
	rs.Server.SetFaults(&rstest.Faults{PathPrefix: "/.well-known/oauth-protected-resource", Status5xx: 503})
	r := c.call("schema", map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID})
	for _, page := range []string{r.text(), string(r.StructuredContent)} {
		if r.IsError || !strings.Contains(page, "search_modes_unchecked") || !strings.Contains(page, "semantic") {
			t.Errorf("schema(stream) does not say the modes are unchecked:\n%s", page)
		}
	}
	s := c.call("search", map[string]any{"q": demodata.LongBodyTerm, "mode": "semantic"})
	if s.IsError && strings.Contains(s.text(), "does not offer") {
		t.Errorf("semantic search refused as not offered while unchecked:\n%s", s.text())
	}
}
