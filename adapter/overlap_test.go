package adapter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// aggregateCount is the scalar count an aggregate result reports.
func aggregateCount(t *testing.T, r toolResult) float64 {
	t.Helper()
	if r.IsError {
		t.Fatalf("aggregate failed: %s", r.text())
	}
	var sc map[string]json.RawMessage
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
		t.Fatalf("structuredContent: %v\n%s", err, r.StructuredContent)
	}
	var v float64
	if err := json.Unmarshal(sc["count(messages)"], &v); err != nil {
		t.Fatalf("no count(messages) answer: %s", r.StructuredContent)
	}
	return v
}

// TestOverlappingGrantsAnswerFromTheWidest: two cached
// grants serve the Work Gmail connection — a narrow one (fewer fields, one
// connection, a time window) cached first, the person's full grant second.
// A read of that connection is answered by the full grant whatever the
// cache order, and the result names the grant that answered.
func TestOverlappingGrantsAnswerFromTheWidest(t *testing.T) {
	t.Parallel()
	work := demodata.GmailWorkConnectionID
	full := newEnv(t, testenv.Options{}, demodata.GmailToken)
	want := aggregateCount(t, full.c.call("aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": work}))
	narrow := newEnv(t, testenv.Options{}, demodata.GmailRestrictedToken)
	narrowCount := aggregateCount(t, narrow.c.call("aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": work}))
	if narrowCount >= want {
		t.Fatalf("the narrow grant counts %v, the full one %v: the proof needs the narrow one to see less", narrowCount, want)
	}
	for name, order := range map[string][]string{
		"narrow first": {demodata.GmailRestrictedToken, demodata.GmailToken},
		"full first":   {demodata.GmailToken, demodata.GmailRestrictedToken},
	} {
		e := newEnv(t, testenv.Options{}, order...)
		for _, args := range []map[string]any{
			{"stream": "messages", "metric": "count", "connection_id": work},
			{"stream": "messages", "metric": "count"}, // the full grant fans in over both connections
		} {
			r := e.c.call("aggregate", args)
			got := aggregateCount(t, r)
			if _, ok := args["connection_id"]; ok && got != want {
				t.Errorf("%s: count %v, want the full grant's %v (the narrow one sees %v)", name, got, want, narrowCount)
			}
			if !strings.Contains(r.text(), "grant_chosen") || !strings.Contains(r.text(), demodata.GmailGrantID) ||
				!strings.Contains(string(r.StructuredContent), "grant_chosen") || !strings.Contains(string(r.StructuredContent), demodata.GmailGrantID) {
				t.Errorf("%s: the result must name the grant that answered:\n%s\n%s", name, r.text(), r.StructuredContent)
			}
		}
		// A record-level read of the overlap routes the same way.
		rec := e.c.call("query_records", map[string]any{"stream": "messages", "connection_id": work, "limit": 1})
		if rec.IsError || !strings.Contains(rec.text(), "from_email") {
			t.Errorf("%s: records of the overlap must come with the full grant's fields:\n%s", name, rec.text())
		}
	}
	t.Logf("count on the overlap: full grant %v, narrow grant %v", want, narrowCount)
}
