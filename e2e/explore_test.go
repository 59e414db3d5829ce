package e2e

import (
	"os"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/demodata"
)

func TestExploreE2E(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	s := connectHTTP(t, startServe(t), mockRS.bearer(t, demodata.GmailGrantID), defaultProtocol)
	t.Logf("protocol %s", s.protocol())
	for _, c := range []struct {
		n string
		a map[string]any
	}{
		{"query_records", map[string]any{"stream": "messages", "limit": 500}},
		{"fetch", map[string]any{"id": "../x"}},
		{"query_records", map[string]any{"stream": "conversations"}},
		{"query_records", map[string]any{"stream": "messages", "filter": map[string]any{"is_seen": true}}},
		{"fetch", map[string]any{"id": "messages:" + demodata.SharedRecordID}},
		{"query_records", map[string]any{"stream": "messages", "limit": 3}},
		{"aggregate", map[string]any{"stream": "messages", "metric": "count"}},
		{"aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "is_seen"}},
		{"search", map[string]any{"q": demodata.LongBodyTerm}},
		{"read_record_field", map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID, "field_path": "body_text", "offset_chars": 46000}},
	} {
		r := s.call(c.n, c.a)
		t.Logf("=== %s %v isError=%v links=%v\n%s\nSC %.500s", c.n, c.a, r.IsError, r.Links, r.Text, r.Structured)
	}
}
