package adapter_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// fetch accepts a pdpp://record/ URI and echoes it as the document id.
func TestFetchAcceptsRecordURI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	uri := contentladder.RecordURI(contentladder.RecordRef{ConnectionID: demodata.GmailWorkConnectionID, Stream: "messages", RecordID: demodata.SharedRecordID})
	r := e.c.call("fetch", map[string]any{"id": uri})
	if r.IsError {
		t.Fatal(r.text())
	}
	var doc struct {
		ID       string         `json:"id"`
		Title    string         `json:"title"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(r.text()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ID != uri || doc.Metadata["connection_id"] != demodata.GmailWorkConnectionID || doc.Title == "" {
		t.Errorf("document = %+v", doc)
	}
}

// read_record_field without a selector reads the first 4,096 characters.
func TestReadRecordFieldDefaultWindow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	text, next, prev, start := windowDoc(t, e.c.call("read_record_field", map[string]any{
		"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID, "field_path": "body_text"}))
	if start != 0 || len([]rune(text)) != 4096 || next == nil || prev != nil {
		t.Errorf("default window: start %d, %d runes, next %v, prev %v", start, len([]rune(text)), next != nil, prev != nil)
	}
	// q without context reads 2,048 characters on each side of the match.
	text, _, _, start = windowDoc(t, e.c.call("read_record_field", map[string]any{
		"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID, "field_path": "body_text", "q": demodata.LongBodyTerm}))
	if start != demodata.LongBodyTermOffset-2048 || len([]rune(text)) != 2048+len(demodata.LongBodyTerm)+2048 {
		t.Errorf("q window: start %d, %d runes", start, len([]rune(text)))
	}
}

// Untitled hits are named by source, stream and authored time — never by
// ingest time when an authored time exists, an ingest time is labelled as
// one, and never by the snippet.
func TestSearchFallbackTitlePrefersAuthoredTime(t *testing.T) {
	t.Parallel()
	schema := `{"object":"schema","bearer":{"token_kind":"client","scope":"grant","grant_id":"grt_1"},"connectors":[{"connector_key":"chat","source":{"id":"chat","kind":"connector"},` +
		`"granted_connections":[{"connection_id":"cin_1","display_name":"Team Chat"}],"streams":[{"name":"notes","primary_key":["id"],"field_capabilities":{"id":"t=string","body":"t=string,lex"}}]}],"links":{"self":"/v1/schema"},"meta":{"count":{"kind":"none"},"warnings":[]}}`
	page := `{"object":"list","has_more":false,"data":[{"object":"search_result","connector_id":"chat","connection_id":"cin_1","display_name":"Team Chat","stream":"notes","record_key":"n1",` +
		`"emitted_at":"2026-02-02T00:00:00Z","authored_at":"2026-01-15T09:30:00Z","snippet":{"field":"body","text":"the <mark>budget</mark> note"}},` +
		`{"object":"search_result","connector_id":"chat","connection_id":"cin_1","stream":"notes","record_key":"n2","emitted_at":"2026-02-03T00:00:00Z","snippet":{"field":"body","text":"<mark>budget</mark> again"}}],` +
		`"links":{"self":"/v1/search"},"meta":{"count":2,"warnings":[]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/schema" {
			_, _ = w.Write([]byte(schema))
			return
		}
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, newAdapterFor(t, srv.URL, "tok"))
	sr := decodeSearch(t, c.call("search", map[string]any{"q": "budget"}))
	if got, want := sr.Results[0].Title, "Team Chat / notes / 2026-01-15T09:30:00Z"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if got, want := sr.Results[1].Title, "Team Chat / notes / ingested 2026-02-03T00:00:00Z"; got != want {
		t.Errorf("title %q, want %q (ingest time only when nothing better, and labelled)", got, want)
	}
	for _, h := range sr.Results {
		if strings.Contains(h.Title, "budget") {
			t.Errorf("title fell back to the snippet: %q", h.Title)
		}
	}
}
