package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestToolCallLogLines: a successful call is logged at DEBUG only (tool
// and duration), a failed one at INFO with its error code; neither names
// the bearer.
func TestToolCallLogLines(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	cases := []struct {
		name  string
		level slog.Level
		want  []string // "LEVEL tool error_code", one per call
	}{
		{"debug", slog.LevelDebug, []string{"DEBUG schema ", "INFO fetch invalid_id"}},
		{"info", slog.LevelInfo, []string{"INFO fetch invalid_id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
			if err != nil {
				t.Fatal(err)
			}
			a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)},
				Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: tc.level}))})
			if err != nil {
				t.Fatal(err)
			}
			for _, msg := range []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"schema","arguments":{}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"../x"}}}`,
			} {
				a.MCP().HandleMessage(context.Background(), []byte(msg))
			}
			if strings.Contains(logs.String(), demodata.GmailToken) {
				t.Error("bearer in the log")
			}
			var got []string
			for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
				var rec struct {
					Level, Msg, Tool string
					ErrorCode        string `json:"error_code"`
					DurationMS       *int64 `json:"duration_ms"`
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
				if rec.Msg != "tool call" {
					continue
				}
				if rec.DurationMS == nil {
					t.Errorf("no duration_ms in %s", line)
				}
				got = append(got, rec.Level+" "+rec.Tool+" "+rec.ErrorCode)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tool call lines (-want +got):\n%s", diff)
			}
		})
	}
}
