package adapter_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// rsRecord reads one record's payload and emitted_at from the mock RS
// directly (ground truth, never through the adapter).
func rsRecord(t *testing.T, rsURL, token, stream, connectionID, id string) (map[string]any, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, rsURL+"/v1/streams/"+stream+"/records/"+id+"?connection_id="+connectionID, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rec struct {
		Data      map[string]any `json:"data"`
		EmittedAt string         `json:"emitted_at"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rec); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("RS %d: %v", resp.StatusCode, err)
	}
	return rec.Data, rec.EmittedAt
}

// fetchDoc decodes a fetch document from content[] text alone.
func fetchDoc(t *testing.T, r toolResult) (title, text string) {
	t.Helper()
	if r.IsError {
		t.Fatal(r.text())
	}
	var d struct{ Title, Text string }
	if err := json.Unmarshal([]byte(r.text()), &d); err != nil {
		t.Fatalf("fetch text is not the document: %v", err)
	}
	if string(r.StructuredContent) != r.text() {
		t.Errorf("structuredContent differs from the text document")
	}
	return d.Title, d.Text
}

// fetch(fields) shows every requested value as a "name: value" line, and
// a cut value carries the exact call that continues it.
func TestFetchFieldsShowsEveryRequestedValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	conn := demodata.GmailWorkConnectionID
	list := e.c.call("query_records", map[string]any{"stream": "messages", "connection_id": conn, "limit": 5, "fields": []string{"id"}})
	ids := recordLineIDRe.FindAllStringSubmatch(list.text(), -1)
	if len(ids) == 0 {
		t.Fatal(list.text())
	}
	for _, m := range ids {
		id := m[1]
		want, _ := rsRecord(t, e.rs.URL, demodata.GmailToken, "messages", conn, id[strings.LastIndex(id, ":")+1:])
		fields := []string{"subject", "from_name", "received_at", "size_bytes"}
		_, text := fetchDoc(t, e.c.call("fetch", map[string]any{"id": id, "fields": fields}))
		for _, f := range fields {
			v, ok := want[f]
			if !ok {
				continue
			}
			s, isStr := v.(string)
			if !isStr {
				b, _ := json.Marshal(v)
				s = string(b)
			}
			if !strings.Contains(text, f+": "+s) {
				t.Errorf("%s: text lacks %s: %q\n%s", id, f, s, text)
			}
		}
		if strings.Contains(text, "snippet") || strings.Contains(text, "labels") {
			t.Errorf("%s: unrequested field in text:\n%s", id, text)
		}
	}
}

// A long requested value is cut with a continuation that reads on from
// exactly where the line stopped.
func TestFetchFieldsCutValueContinues(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	_, text := fetchDoc(t, e.c.call("fetch", map[string]any{"id": id, "fields": []string{"body_text", "body_source", "message_received_at"}}))
	if !strings.Contains(text, "body_source: ") || !strings.Contains(text, "message_received_at: ") {
		t.Errorf("requested short fields missing:\n%.600s", text)
	}
	// body_text is the document body: cut with its own continuation.
	if !strings.Contains(text, "[text cut at ") {
		t.Errorf("long body not cut with a continuation:\n%.300s", text[len(text)-300:])
	}
	full, _ := rsRecord(t, e.rs.URL, demodata.GmailToken, "message_bodies", demodata.GmailWorkConnectionID, demodata.LongBodyMessageID)
	if body := full["body_text"].(string); !strings.Contains(text, "body_text: "+body[:200]) {
		t.Errorf("the body does not follow its label")
	}
}

// A fetched record whose projection leaves only its ingest time titles
// the document "ingested <time>", never the bare time as its date.
func TestFetchNeverPresentsIngestTimeAsDate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	_, emitted := rsRecord(t, e.rs.URL, demodata.GmailToken, "message_bodies", demodata.GmailWorkConnectionID, demodata.LongBodyMessageID)
	title, _ := fetchDoc(t, e.c.call("fetch", map[string]any{"id": id, "fields": []string{"body_source"}}))
	if strings.Contains(title, emitted) && !strings.Contains(title, "ingested "+emitted) {
		t.Errorf("title presents the ingest time as the record's date: %q", title)
	}
	if !strings.Contains(title, "ingested") {
		t.Errorf("title %q lacks the labelled ingest time", title)
	}
}

// A requested field whose value is null shows null, never an empty value
// a model would read as "".
func TestFetchFieldsShowNullAsNull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	conn := demodata.GmailPersonalConnectionID
	id := conn + "/messages:776aa39bee6e3ef0"
	want, _ := rsRecord(t, e.rs.URL, demodata.GmailToken, "messages", conn, "776aa39bee6e3ef0")
	if v, ok := want["in_reply_to"]; !ok || v != nil {
		t.Fatalf("the fixture's in_reply_to is %v, want null", v)
	}
	_, text := fetchDoc(t, e.c.call("fetch", map[string]any{"id": id, "fields": []string{"subject", "in_reply_to"}}))
	if !strings.Contains(text, "in_reply_to: null\n") && !strings.HasSuffix(text, "in_reply_to: null") {
		t.Errorf("null value not shown as null:\n%s", text)
	}
}
