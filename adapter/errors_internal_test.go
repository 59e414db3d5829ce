package adapter

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// TestErrorResultIsTyped: an error result renders its envelope once and
// keeps the typed error, so logs and metrics learn the code without
// parsing the JSON back — for adapter errors and for RS envelopes alike.
func TestErrorResultIsTyped(t *testing.T) {
	t.Parallel()
	rsEnv := json.RawMessage(`{"type":"permission_error","code":"grant_stream_not_allowed","message":"no","request_id":"r1"}`)
	cases := []struct {
		name     string
		err      *toolError
		wantCode string
		wantBody string
	}{
		{"adapter error with extras", newAdapterError("invalid_id", "bad <id>", field{"param", "id"}), "invalid_id",
			`{"error":{"type":"adapter_error","code":"invalid_id","message":"bad <id>","param":"id"}}`},
		{"RS envelope kept verbatim", fromError(&rsclient.Error{Status: 403, Code: "grant_stream_not_allowed", Envelope: rsEnv}), "grant_stream_not_allowed",
			`{"error":` + string(rsEnv) + `,"http_status":403}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := errorResult(tc.err)
			text, _ := mcp.AsTextContent(res.Content[0])
			type got struct{ Code, Text, Structured string }
			want := got{tc.wantCode, tc.wantBody, tc.wantBody}
			if diff := cmp.Diff(want, got{summarize(res).code, text.Text, string(page.MarshalNoEscape(res.StructuredContent))}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
