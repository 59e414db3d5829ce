package adapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// A typo'd tool name gets "did you mean" and the six
// tools, typed (data.code unknown_tool), with mcp-go's own JSON-RPC code
// kept; a name near none still lists the tools.
func TestUnknownToolDidYouMean(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	for _, tc := range []struct {
		name string
		near []string
	}{
		{"serach", []string{"search"}},
		{"query_record", []string{"query_records"}},
		{"read_field", []string{"read_record_field"}},
		{"zzzzzzzzzz", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call",
				"params": map[string]any{"name": tc.name, "arguments": map[string]any{}}})
			out, err := json.Marshal(e.srv.MCP().HandleMessage(context.Background(), req))
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				ID    int `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Data    struct {
						Error struct {
							Code       string   `json:"code"`
							Tools      []string `json:"tools"`
							DidYouMean []string `json:"did_you_mean"`
						} `json:"error"`
					} `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(adapter.TypedErrors(out), &env); err != nil {
				t.Fatal(err)
			}
			got := env.Error
			if env.ID != 7 || got.Code != -32602 || got.Data.Error.Code != "unknown_tool" || len(got.Data.Error.Tools) != 6 {
				t.Fatalf("answer %s", adapter.TypedErrors(out))
			}
			if diff := cmp.Diff(tc.near, got.Data.Error.DidYouMean); diff != "" {
				t.Errorf("did_you_mean (-want +got):\n%s", diff)
			}
			if len(tc.near) > 0 && !strings.Contains(got.Message, "did you mean "+tc.near[0]) {
				t.Errorf("message %q", got.Message)
			}
			if !strings.Contains(got.Message, "read_record_field") {
				t.Errorf("message does not list the tools: %q", got.Message)
			}
		})
	}
}
