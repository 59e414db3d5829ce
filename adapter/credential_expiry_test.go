package adapter_test

import (
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Stdio, several grants: a grant past its cached expires_at
// is never sent; it degrades to a credential_expired warning naming the
// command that renews it, and the other grants keep serving.
func TestExpiredGrantIsAWarningOthersServe(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	expired := adapter.NewGrant(demodata.GmailToken)
	expired.Expires = now.Add(-time.Minute)
	live := adapter.NewGrant(demodata.SlackToken)
	live.Expires = now.Add(time.Hour)
	reloads := 0
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{expired, live}, Reconnect: "pdpp connect " + rs.URL,
		Reload: func() ([]adapter.Grant, error) { reloads++; return []adapter.Grant{expired, live}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, a)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"q": "roadmap", "limit": 3}},
		{"query_records", map[string]any{"stream": "channels", "limit": 2}},
	} {
		r := c.call(call.tool, call.args)
		if r.IsError {
			t.Fatalf("%s failed with a live grant left: %s", call.tool, r.text())
		}
		containsAll(t, r.text(), "credential_expired", "pdpp connect "+rs.URL)
	}
	for _, req := range rs.Server.Requests() {
		if req.Bearer == demodata.GmailToken {
			t.Errorf("an expired grant reached the RS: %s %s", req.Method, req.Path)
		}
	}
	if reloads == 0 {
		t.Error("the credential cache was not re-read for the expired grant")
	}
}
