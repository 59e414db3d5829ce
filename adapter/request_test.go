package adapter_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestRequestHearsEveryRefusal: a transport's Request is the one channel
// on which the adapter reports that the RS refused the request's token —
// for a tool call and for a resource read (no tool result to inspect) —
// and nothing else is reported as one: a record the RS does not have, a
// call that succeeds. The request reads through its own grant alone, never
// through the configured grants: they would have served the refused calls.
func TestRequestHearsEveryRefusal(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test",
		Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}})
	if err != nil {
		t.Fatal(err)
	}
	const unknownToken = "pdpp-test-token-the-rs-never-issued"
	record := contentladder.RecordURI(contentladder.RecordRef{ConnectionID: demodata.GmailWorkConnectionID, Stream: "messages", RecordID: demodata.SharedRecordID})
	for _, tc := range []struct {
		name, bearer, method string
		params               map[string]any
		wantTold             bool
	}{
		{"tool call, token refused", unknownToken, "tools/call",
			map[string]any{"name": "query_records", "arguments": map[string]any{"stream": "messages", "limit": 1}}, true},
		{"resource read, token refused", unknownToken, "resources/read", map[string]any{"uri": record}, true},
		{"tool call, record missing", demodata.GmailToken, "tools/call",
			map[string]any{"name": "fetch", "arguments": map[string]any{"id": demodata.GmailWorkConnectionID + "/messages:no-such-record"}}, false},
		{"tool call, answered", demodata.GmailToken, "tools/call",
			map[string]any{"name": "query_records", "arguments": map[string]any{"stream": "messages", "limit": 1}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var told atomic.Int32
			g := adapter.NewGrant(tc.bearer)
			ctx := adapter.WithRequest(context.Background(), adapter.Request{Grant: &g, CredentialRefused: func() { told.Add(1) }})
			msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": tc.method, "params": tc.params})
			out, err := json.Marshal(srv.MCP().HandleMessage(ctx, msg))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantTold, told.Load() > 0); diff != "" {
				t.Errorf("refusal told (-want +got):\n%s\nanswer: %s", diff, out)
			}
		})
	}
}
