package adapter_test

import (
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestRecordsCursorCarriesThePage proves the page cursor is the whole
// continuation: the next page needs only cursor with the same stream and
// connection_id, and anything that would make it mean another page is a
// typed invalid_cursor, never a silently different page.
func TestRecordsCursorCarriesThePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken, demodata.SlackToken)
	work := demodata.GmailWorkConnectionID
	first := e.c.call("query_records", map[string]any{"stream": "messages", "connection_id": work, "limit": 3,
		"order": "asc", "fields": []string{"subject"}})
	m := nextCursorRE.FindStringSubmatch(first.text())
	if first.IsError || m == nil {
		t.Fatalf("first page: %s", first.text())
	}
	cur := m[1]
	next := e.c.call("query_records", map[string]any{"stream": "messages", "connection_id": work, "cursor": cur})
	if next.IsError || strings.Contains(next.text(), `"thread_id"`) || !strings.Contains(next.text(), `"subject"`) {
		t.Fatalf("second page from cursor alone should keep order and fields: %s", next.text())
	}
	for _, tc := range []struct {
		name  string
		args  map[string]any
		param string
	}{
		{"other stream", map[string]any{"stream": "threads", "connection_id": work, "cursor": cur}, "cursor"},
		{"other connection", map[string]any{"stream": "messages", "connection_id": demodata.GmailPersonalConnectionID, "cursor": cur}, "cursor"},
		{"no connection", map[string]any{"stream": "messages", "cursor": cur}, "cursor"},
		{"other order", map[string]any{"stream": "messages", "connection_id": work, "cursor": cur, "order": "desc"}, "order"},
		{"other fields", map[string]any{"stream": "messages", "connection_id": work, "cursor": cur, "fields": []string{"snippet"}}, "fields"},
		{"changes_since beside cursor", map[string]any{"stream": "messages", "connection_id": work, "cursor": cur, "changes_since": "beginning"}, "changes_since"},
		{"tampered", map[string]any{"stream": "messages", "connection_id": work, "cursor": cur[:10] + flip(cur[10]) + cur[11:]}, "cursor"},
		{"raw RS cursor", map[string]any{"stream": "messages", "connection_id": work, "cursor": "eyJraW5kIjoicGFnZSJ9"}, "cursor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.rs.RSCalls()
			r := e.c.call("query_records", tc.args)
			if got := r.errorCode(t); got != "invalid_cursor" {
				t.Fatalf("code %q: %s", got, r.text())
			}
			if !strings.Contains(r.text(), `"param":"`+tc.param+`"`) {
				t.Errorf("param should be %s: %s", tc.param, r.text())
			}
			if n := e.rs.RSCalls() - before; n != 0 {
				t.Errorf("%d RS calls for a refused cursor", n)
			}
		})
	}
	// The same arguments repeated beside the cursor are fine.
	same := e.c.call("query_records", map[string]any{"stream": "messages", "connection_id": work, "cursor": cur,
		"order": "asc", "fields": []string{"subject"}, "limit": 3})
	if same.IsError {
		t.Errorf("repeating the first call's arguments: %s", same.text())
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}
