package adapter_test

import (
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/bearer"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Stdio: a grant-package token, which the RS's /v1
// answers 404 "Unknown source: unknown" (D15), is a typed package_token
// error carrying the hosted door's words — what the token is, what this
// adapter serves, how to get it — not the RS's bare not_found.
func TestPackageTokenToolErrorExplains(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	pkg := rs.Server.MintPackageToken()
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(pkg.AccessToken)}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, a)
	for _, tool := range []string{"schema", "query_records"} {
		r := c.call(tool, map[string]any{"stream": "messages"})
		if !r.IsError {
			t.Fatalf("%s served a package token: %s", tool, r.text())
		}
		containsAll(t, r.text(), adapter.CodePackageToken, bearer.PackageTokenExplained, bearer.ConnectAdvice, "Unknown source: unknown")
	}
}

// Stdio: the real RS's answer to an expired client
// access token, 403 grant_expired (D13), is a refused credential like a
// 401: the credential cache is re-read and a fresh token there serves the
// call.
func TestGrantExpiredRereadsCredentials(t *testing.T) {
	t.Parallel()
	clock := &stepClock{now: time.Now()}
	rs := testenv.StartRS(t, testenv.Options{TokenTTL: time.Minute, Now: clock.Now})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	old := adapter.NewGrant(demodata.GmailToken)
	var fresh string
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{old}, Reconnect: "pdpp connect",
		Reload: func() ([]adapter.Grant, error) {
			if fresh == "" {
				return []adapter.Grant{old}, nil
			}
			return []adapter.Grant{adapter.NewGrant(fresh)}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, a)
	if r := c.call("query_records", map[string]any{"stream": "messages", "limit": 1}); r.IsError {
		t.Fatalf("fresh token: %s", r.text())
	}
	clock.advance(2 * time.Minute)
	m, err := rs.Server.MintClientToken(demodata.GmailGrantID)
	if err != nil {
		t.Fatal(err)
	}
	fresh = m.AccessToken
	if r := c.call("query_records", map[string]any{"stream": "messages", "limit": 1}); r.IsError {
		t.Fatalf("after grant_expired the re-read token must serve: %s", r.text())
	}
}

// stepClock is a clock tests move by hand.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *stepClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }
