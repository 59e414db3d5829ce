package adapter_test

import (
	"os"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip("manual exploration")
	}
	e := newEnv(t, testenv.Options{}, demodata.GmailToken, demodata.SlackToken, demodata.ChatGPTToken)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"schema", map[string]any{}},
		{"schema", map[string]any{"stream": "messages"}},
		{"query_records", map[string]any{"stream": "conversations", "limit": 3}},
		{"query_records", map[string]any{"stream": "message_bodies", "limit": 5, "connection_id": demodata.GmailWorkConnectionID}},
		{"aggregate", map[string]any{"stream": "conversations", "metric": "count"}},
		{"search", map[string]any{"q": "invoice", "limit": 5}},
		{"fetch", map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID}},
		{"read_record_field", map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID, "field_path": "body_text", "q": demodata.LongBodyTerm, "before_chars": 100, "after_chars": 100}},
	} {
		r := e.c.call(c.tool, c.args)
		t.Logf("=== %s %v isError=%v text(%d):\n%s\nstructured(%d): %.600s", c.tool, c.args, r.IsError, len(r.text()), r.text(), len(r.StructuredContent), r.StructuredContent)
	}
}
