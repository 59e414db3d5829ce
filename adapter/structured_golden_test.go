package adapter_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/golden"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// sealedValue, requestID and loopbackURL match the values that differ
// from run to run: cursors sealed with a per-process key and the current
// time, RS request ids, the RS's port.

// sealedValue matches sealed cursors.
var sealedValue = regexp.MustCompile(`((?:\\?"(?:next_cursor|previous_cursor|cursor)\\?":\\?")|(?:next_cursor=|cursor=))[A-Za-z0-9_-]{16,}`)

// requestID matches the mock RS's per-request ids.
var requestID = regexp.MustCompile(`req_[0-9a-f]{16}`)

// loopbackURL matches the mock RS's address, which changes per run.
var loopbackURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// normalizeSealed replaces sealed values with a placeholder so goldens pin
// everything else byte for byte.
func normalizeSealed(b []byte) []byte {
	b = loopbackURL.ReplaceAll(b, []byte("http://rs.test"))
	b = requestID.ReplaceAll(b, []byte("req_<id>"))
	return sealedValue.ReplaceAll(b, []byte("${1}<sealed>"))
}

// checkGolden compares got with testdata/structured/name, rewriting it
// under -update. A missing golden is a failure.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "structured", name)
	got = normalizeSealed(got)
	want := golden.Read(t, path, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from its golden (-want +got):\n%s", name, diff)
	}
}

// firstID is the id of the first record a query_records page lists.
func firstID(t *testing.T, r toolResult) string {
	t.Helper()
	var sc pageJSON
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil || len(sc.Records) == 0 {
		t.Fatalf("no record on the page: %v\n%s", err, r.StructuredContent)
	}
	return sc.Records[0].ID
}

// TestStructuredContentGolden pins every tool's structuredContent, byte for
// byte as a client receives it, over calls that together set every
// optional member: source mixes, recall notes, ladders, cut text, deleted
// records, counts, matches, null cursors and source warnings. fetch and the
// resources also pin their text, which is the same document.
func TestStructuredContentGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken, demodata.SlackToken)
	c := e.c
	work := demodata.GmailWorkConnectionID
	bodies := c.call("query_records", map[string]any{"stream": "message_bodies", "limit": 2, "connection_id": work})
	bodyID := firstID(t, bodies)
	calls := []struct {
		name, tool string
		args       map[string]any
	}{
		{"schema_index", "schema", map[string]any{}},
		{"schema_connection", "schema", map[string]any{"connection_id": work}},
		{"schema_stream", "schema", map[string]any{"stream": "messages", "connection_id": work}},
		{"schema_full", "schema", map[string]any{"stream": "messages", "detail": "full", "connection_id": work}},
		{"records_bodies", "query_records", map[string]any{"stream": "message_bodies", "limit": 2, "connection_id": work}},
		{"records_ladder", "query_records", map[string]any{"stream": "message_bodies", "limit": 25, "connection_id": work}},
		{"records_count", "query_records", map[string]any{"stream": "messages", "count": "exact", "limit": 3, "connection_id": work}},
		{"records_fields", "query_records", map[string]any{"stream": "messages", "limit": 2, "fields": []string{"subject", "snippet"}, "connection_id": work}},
		{"records_changes", "query_records", map[string]any{"stream": "labels", "changes_since": "beginning", "connection_id": work, "limit": 100}},
		{"search_multi", "search", map[string]any{"q": "invoice", "limit": 5}},
		{"search_semantic", "search", map[string]any{"q": "vendor invoice", "mode": "semantic", "limit": 3}},
		{"search_none", "search", map[string]any{"q": "zzyzxqv"}},                                          // no mode finds it: no retry suggested
		{"search_lexical_miss", "search", map[string]any{"q": "vendors", "streams": []string{"messages"}}}, // semantic finds it: the exact retry
		{"aggregate_count", "aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": work}},
		{"aggregate_grouped", "aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "has_attachments", "limit": 3, "connection_id": work}},
		{"fetch_body", "fetch", map[string]any{"id": bodyID}},
		{"fetch_long", "fetch", map[string]any{"id": work + "/message_bodies:" + demodata.LongBodyMessageID}},
		{"fetch_fields", "fetch", map[string]any{"id": bodyID, "fields": []string{"body_text", "body_source", "message_received_at"}}},
		{"window_offset", "read_record_field", map[string]any{"id": bodyID, "field_path": "body_text", "offset_chars": 10, "limit_chars": 50}},
		{"window_match", "read_record_field", map[string]any{"id": bodyID, "field_path": "body_text", "q": "the"}},
	}
	for _, tc := range calls {
		r := c.call(tc.tool, tc.args)
		if r.IsError {
			t.Errorf("%s: %s", tc.name, r.text())
			continue
		}
		checkGolden(t, tc.name+".json", r.StructuredContent)
		if tc.tool == "fetch" || tc.tool == "read_record_field" {
			checkGolden(t, tc.name+".txt", []byte(r.text()))
		}
	}
	fanin := newEnv(t, testenv.Options{}, demodata.GmailToken).c.call("query_records", map[string]any{"stream": "messages", "limit": 5})
	checkGolden(t, "records_fanin.json", fanin.StructuredContent)
	gaps := []rstest.LexicalGap{{ConnectionID: work, Stream: "messages"}, {ConnectionID: demodata.GmailPersonalConnectionID, Stream: "messages"}}
	gapped := newEnv(t, testenv.Options{LexicalGaps: gaps}, demodata.GmailToken).c.call("search",
		map[string]any{"q": "invoice", "streams": []string{"messages"}, "connection_id": work})
	checkGolden(t, "search_coverage.json", gapped.StructuredContent)
	ref, _, err := contentladder.ParseID(bodyID)
	if err != nil {
		t.Fatal(err)
	}
	for name, uri := range map[string]string{
		"resource_record": contentladder.RecordURI(ref),
		"resource_window": contentladder.FieldWindowURI(contentladder.WindowSpec{Ref: ref, FieldPath: "body_text", LimitChars: 40}),
	} {
		raw, err := c.rpcRaw("resources/read", map[string]any{"uri": uri})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkGolden(t, name+".json", raw)
	}
}

// TestStructuredWarningsGolden pins where source warnings land in each
// tool's structuredContent when one grant's schema cannot be read, on
// successes and on adapter and RS errors alike; in text too where the text
// is the structured document or an error body.
func TestStructuredWarningsGolden(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	rs := testenv.StartRS(t, testenv.Options{Raw: failingSchema(demodata.SlackToken, &failing)})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken), adapter.NewGrant(demodata.SlackToken)}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv)
	work := demodata.GmailWorkConnectionID
	bodyID := firstID(t, c.call("query_records", map[string]any{"stream": "message_bodies", "limit": 1, "connection_id": work}))
	calls := []struct {
		name, tool string
		args       map[string]any
	}{
		{"warn_schema", "schema", map[string]any{}},
		{"warn_records", "query_records", map[string]any{"stream": "threads", "connection_id": work, "limit": 2}},
		{"warn_aggregate", "aggregate", map[string]any{"stream": "threads", "metric": "count", "connection_id": work}},
		{"warn_search", "search", map[string]any{"q": "roadmap"}},
		{"warn_fetch", "fetch", map[string]any{"id": bodyID}},
		{"warn_error_rs", "query_records", map[string]any{"stream": "messages", "fields": []string{"nope"}, "connection_id": work}},
		{"warn_error_adapter", "aggregate", map[string]any{"stream": "nope", "metric": "count"}},
	}
	for _, tc := range calls {
		r := c.call(tc.tool, tc.args)
		if r.IsError != strings.Contains(tc.name, "error") {
			t.Errorf("%s: isError=%t: %s", tc.name, r.IsError, r.text())
			continue
		}
		checkGolden(t, tc.name+".json", r.StructuredContent)
		if tc.tool != "query_records" && tc.tool != "search" {
			// Record and search text has its own tests; pinning it here
			// would tie every text change to this golden.
			checkGolden(t, tc.name+".txt", []byte(r.text()))
		}
	}
}
