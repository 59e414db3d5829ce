package hosted_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The RS goes down for longer than the token's 30 s
// verdict. A token the RS served as a client token within the last-good
// schema's lifetime keeps its session: schema() answers from the cache
// (with a source_unavailable warning), a data call answers a typed
// rs_unavailable tool error, and no request becomes HTTP 503. A token
// never verified still gets 503, with Retry-After: nothing vouches for it.
func TestHostedOutageServesFromCache(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL}, adapter.Config{})
	if res := post(t, env.url, "Bearer "+demodata.GmailToken, toolsCallSchema, nil); res.Status != http.StatusOK {
		t.Fatalf("warm-up: %d %s", res.Status, res.Body)
	}
	env.rs.Server.SetFaults(&rstest.Faults{Reset: true}) // the RS is unreachable
	for _, wait := range []time.Duration{31 * time.Second, 60 * time.Second} {
		env.clock.Advance(wait)
		schema := post(t, env.url, "Bearer "+demodata.GmailToken, toolsCallSchema, nil)
		if schema.Status != http.StatusOK || toolIsError(t, schema.Body) || !strings.Contains(string(schema.Body), "source_unavailable") {
			t.Errorf("schema() %s into the outage: %d %.300s", wait, schema.Status, schema.Body)
		}
		data := post(t, env.url, "Bearer "+demodata.GmailToken,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages","connection_id":"`+demodata.GmailWorkConnectionID+`","limit":1}}}`, nil)
		if data.Status != http.StatusOK || !toolIsError(t, data.Body) || !strings.Contains(string(data.Body), "rs_unavailable") {
			t.Errorf("query_records %s into the outage: %d %.300s", wait, data.Status, data.Body)
		}
	}
	if res := post(t, env.url, "Bearer "+demodata.SlackToken, toolsCallSchema, nil); res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "5" {
		t.Errorf("a token never verified, RS down: %d Retry-After %q, want 503 Retry-After 5 (the failed check is remembered 2 s; come back after it)",
			res.Status, res.Header.Get("Retry-After"))
	}
	// Past the last-good lifetime (15 min) nothing vouches any more.
	env.clock.Advance(16 * time.Minute)
	if res := post(t, env.url, "Bearer "+demodata.GmailToken, toolsCallSchema, nil); res.Status != http.StatusServiceUnavailable {
		t.Errorf("16 min into the outage: %d, want 503", res.Status)
	}
}

// toolIsError reads result.isError of a JSON-RPC answer.
func toolIsError(t *testing.T, body []byte) bool {
	t.Helper()
	var r struct {
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("answer is not JSON-RPC: %v %.200s", err, body)
	}
	return r.Result.IsError
}
