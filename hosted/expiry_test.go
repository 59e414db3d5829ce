package hosted_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// exchangeLog records the status and challenge of every MCP HTTP answer
// the SDK client received.
type exchangeLog struct {
	mu        sync.Mutex
	bearer    string
	statuses  []int
	challenge string
}

func (l *exchangeLog) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+l.bearer)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost {
		l.mu.Lock()
		l.statuses = append(l.statuses, resp.StatusCode)
		if c := resp.Header.Get("WWW-Authenticate"); c != "" {
			l.challenge = c
		}
		l.mu.Unlock()
	}
	return resp, err
}

func (l *exchangeLog) last() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.statuses[len(l.statuses)-1], l.challenge
}

// Hosted: a bearer that expires mid-session (its verdict and
// schema still cached) makes the next tools/call an HTTP 401 with the
// WWW-Authenticate challenge, through the official Go SDK client — never a
// tool result — and the verdict is not reused afterwards.
func TestHostedExpiredBearerIsChallengedThroughGoSDK(t *testing.T) {
	t.Parallel()
	// The mock RS as the real one (D13): client tokens live 600 s on its
	// clock, then answer 401 authentication_error "Invalid or expired token".
	clock := newFakeClock()
	rs := testenv.StartRS(t, testenv.Options{TokenTTL: 600 * time.Second, Now: clock.Now})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{PublicURL: publicURL}))
	t.Cleanup(hs.Close)

	log := &exchangeLog{bearer: demodata.GmailToken}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "expiry-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: log}, MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query_records", Arguments: map[string]any{"stream": "messages", "limit": 2}})
	if err != nil || res.IsError {
		t.Fatalf("before expiry: err %v, result %+v", err, res)
	}

	clock.Advance(601 * time.Second)
	type outcome struct {
		ClientErr bool
		Status    int
		Challenge string
	}
	want := outcome{ClientErr: true, Status: http.StatusUnauthorized,
		Challenge: wantTokenChallenge}
	for _, step := range []string{"verdict cached when the token expired", "verdict dropped: verified again"} {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query_records", Arguments: map[string]any{"stream": "messages", "limit": 2}})
		status, challenge := log.last()
		got := outcome{ClientErr: err != nil, Status: status, Challenge: challengeWithoutDescription(challenge)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s\nresult: %+v", step, diff, res)
		}
	}
}

// Over HTTP: an invalid resource handle is JSON-RPC -32602 with
// the typed error as data, not -32603 "Internal error" — however the
// client spells the method (JSON may escape its slash).
func TestHostedResourceErrorIsTyped(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL}, adapter.Config{})
	for _, method := range []string{`resources/read`, `resources\/read`, `resources\u002fread`} {
		res := post(t, env.url, "Bearer "+demodata.GmailToken,
			`{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":{"uri":"pdpp://record/not-a-handle"}}`, nil)
		var rpc struct {
			Error struct {
				Code int `json:"code"`
				Data struct {
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(res.Body, &rpc); err != nil {
			t.Fatalf("%s: status %d body %s: %v", method, res.Status, res.Body, err)
		}
		type got struct {
			Status, Code int
			Typed        string
		}
		if diff := cmp.Diff(got{200, -32602, "invalid_handle"}, got{res.Status, rpc.Error.Code, rpc.Error.Data.Error.Code}); diff != "" {
			t.Errorf("%s (-want +got):\n%s\nbody: %s", method, diff, res.Body)
		}
	}
}

// once the RS answers the token 403 grant_expired (the
// real RS's expiry, D13), every tool that reads is an HTTP 401 with
// error="invalid_token", though the door's verdict for the token is still
// cached (the verdict clock has not moved), and never a tool result saying
// "Grant has expired". (The schema tool answered from the adapter's cached
// document reads nothing from the RS, so it has nothing to be refused.)
func TestHostedGrantExpiredChallengesEveryRead(t *testing.T) {
	t.Parallel()
	rsClock := newFakeClock()
	rs := testenv.StartRS(t, testenv.Options{TokenTTL: 600 * time.Second, Now: rsClock.Now})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(a, hosted.Options{PublicURL: publicURL}))
	t.Cleanup(hs.Close)
	record := demodata.GmailWorkConnectionID + "/messages:" + demodata.SharedRecordID
	calls := []struct{ name, body string }{
		{"query_records", `{"name":"query_records","arguments":{"stream":"messages","limit":1}}`},
		{"search", `{"name":"search","arguments":{"q":"project"}}`},
		{"aggregate", `{"name":"aggregate","arguments":{"stream":"messages","metric":"count"}}`},
		{"fetch", `{"name":"fetch","arguments":{"id":"` + record + `"}}`},
		{"read_record_field", `{"name":"read_record_field","arguments":{"id":"` + demodata.GmailWorkConnectionID + `/message_bodies:` + demodata.LongBodyMessageID + `","field_path":"body_text"}}`},
	}
	rpc := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	}
	// Each read runs with a token of its own, verified while fresh, so
	// each sees the expiry with its verdict cached.
	type step struct{ name, body string }
	var steps []step
	for _, c := range calls {
		steps = append(steps, step{c.name, rpc("tools/call", c.body)})
	}
	tokens := make([]string, len(steps))
	for i := range steps {
		m, err := rs.Server.MintClientToken(demodata.GmailGrantID)
		if err != nil {
			t.Fatal(err)
		}
		tokens[i] = m.AccessToken
		if res := post(t, hs.URL, "Bearer "+m.AccessToken, toolsCallSchema, nil); res.Status != http.StatusOK {
			t.Fatalf("fresh token: %d %s", res.Status, res.Body)
		}
	}
	rsClock.Advance(601 * time.Second)
	for i, s := range steps {
		res := post(t, hs.URL, "Bearer "+tokens[i], s.body, nil)
		got := []any{res.Status, challengeWithoutDescription(res.Header.Get("WWW-Authenticate"))}
		if diff := cmp.Diff([]any{http.StatusUnauthorized, wantTokenChallenge}, got); diff != "" {
			t.Errorf("%s after expiry (-want +got):\n%s\nbody: %s", s.name, diff, res.Body)
		}
	}
}
