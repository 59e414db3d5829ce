package adapter_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// hostedCall runs one tools/call as the hosted door does: the request's
// bearer attached to the context, no configured grants.
func hostedCall(t *testing.T, srv *adapter.Server, bearer, tool string, args any) toolResult {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	g := adapter.NewGrant(bearer)
	ctx := adapter.WithRequest(context.Background(), adapter.Request{Grant: &g})
	out, err := json.Marshal(srv.MCP().HandleMessage(ctx, req))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Result toolResult `json:"result"`
	}
	if err := json.Unmarshal(adapter.TypedErrors(out), &env); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	return env.Result
}

// windowNextRE finds the field window's next cursor in its header line.
var windowNextRE = regexp.MustCompile(`"next":\{"tool":"read_record_field","args":\{[^}]*"cursor":"([^"]+)"`)

// TestCursorsSurviveARefreshOfTheirGrant: every
// continuation (a changes feed page, a search page, a field window) is
// bound to the grant, not the bearer string. A token the RS minted later
// for the same grant (a host's refresh) continues it; a token of another
// grant is refused with a message that says so, before any RS read.
func TestCursorsSurviveARefreshOfTheirGrant(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	refreshed, err := rs.Server.MintClientToken(demodata.GmailGrantID)
	if err != nil {
		t.Fatal(err)
	}
	work := demodata.GmailWorkConnectionID
	for _, tc := range []struct {
		name   string
		tool   string
		first  map[string]any
		next   func(cursor string) map[string]any
		cursor *regexp.Regexp
	}{
		{"changes feed", "query_records",
			map[string]any{"stream": "messages", "connection_id": work, "changes_since": "beginning", "limit": 5},
			func(c string) map[string]any {
				return map[string]any{"stream": "messages", "connection_id": work, "cursor": c}
			}, nextCursorRE},
		{"search", "search", map[string]any{"q": "invoice", "limit": 2},
			func(c string) map[string]any { return map[string]any{"cursor": c} }, nextCursorRE},
		{"field window", "read_record_field",
			map[string]any{"connection_id": work, "stream": "message_bodies", "record_id": demodata.LongBodyMessageID,
				"field_path": "body_text", "limit_chars": 1000},
			func(c string) map[string]any {
				return map[string]any{"connection_id": work, "stream": "message_bodies", "record_id": demodata.LongBodyMessageID,
					"field_path": "body_text", "cursor": c}
			}, windowNextRE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first := hostedCall(t, srv, demodata.GmailToken, tc.tool, tc.first)
			m := tc.cursor.FindStringSubmatch(first.text())
			if first.IsError || m == nil {
				t.Fatalf("first page has no cursor: %s", first.text())
			}
			if r := hostedCall(t, srv, refreshed.AccessToken, tc.tool, tc.next(m[1])); r.IsError {
				t.Errorf("a refreshed token of the same grant must continue the cursor: %s", r.text())
			}
			other := hostedCall(t, srv, demodata.GmailRestrictedToken, tc.tool, tc.next(m[1]))
			if got := other.errorCode(t); got != "invalid_cursor" {
				t.Fatalf("another grant's token: code %q: %s", got, other.text())
			}
			if !strings.Contains(other.text(), "grant") || strings.Contains(other.text(), demodata.GmailToken) {
				t.Errorf("refusal must name the grant mismatch and never a bearer: %s", other.text())
			}
		})
	}
}
