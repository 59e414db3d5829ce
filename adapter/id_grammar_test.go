package adapter_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestRecordIDWithSlashRoundTrips follows a demo record whose id holds '/'
// (the Gmail label "Projects/Roadmap") from the listing through every id
// form into fetch and read_record_field.
func TestRecordIDWithSlashRoundTrips(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	list := e.c.call("query_records", map[string]any{"stream": "labels", "connection_id": demodata.GmailWorkConnectionID, "limit": 25})
	if list.IsError {
		t.Fatal(list.text())
	}
	id := demodata.GmailWorkConnectionID + "/labels:Projects/Roadmap"
	if !strings.Contains(list.text(), id) {
		t.Fatalf("query_records text does not list %s:\n%s", id, list.text())
	}
	ref := contentladder.RecordRef{ConnectionID: demodata.GmailWorkConnectionID, Stream: "labels", RecordID: "Projects/Roadmap"}

	fetches := []struct {
		name string
		args map[string]any
	}{
		{"self-contained", map[string]any{"id": id}},
		{"legacy + connection_id", map[string]any{"id": "labels:Projects/Roadmap", "connection_id": demodata.GmailWorkConnectionID}},
		{"record handle URI", map[string]any{"id": contentladder.RecordURI(ref)}},
		{"percent-encoded URI", map[string]any{"id": contentladder.RecordURIPrefix + url.PathEscape(id)}},
	}
	for _, tt := range fetches {
		t.Run("fetch "+tt.name, func(t *testing.T) {
			t.Parallel()
			r := e.c.call("fetch", tt.args)
			if r.IsError {
				t.Fatalf("fetch %v: %s", tt.args, r.text())
			}
			var doc struct {
				Text     string         `json:"text"`
				Metadata map[string]any `json:"metadata"`
			}
			if err := json.Unmarshal(r.StructuredContent, &doc); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(doc.Text, `"canonical_name":"projects-roadmap"`) {
				t.Errorf("fetched document is not the label record: %.300s", doc.Text)
			}
		})
	}

	windows := []struct {
		name string
		args map[string]any
	}{
		{"self-contained", map[string]any{"id": id, "field_path": "name"}},
		{"explicit parts", map[string]any{"connection_id": demodata.GmailWorkConnectionID, "stream": "labels", "record_id": "Projects/Roadmap", "field_path": "name"}},
	}
	for _, tt := range windows {
		t.Run("read_record_field "+tt.name, func(t *testing.T) {
			t.Parallel()
			r := e.c.call("read_record_field", tt.args)
			if r.IsError {
				t.Fatalf("read_record_field %v: %s", tt.args, r.text())
			}
			if !strings.HasSuffix(r.text(), "\nProjects/Roadmap") {
				t.Errorf("window text does not end with the field value:\n%s", r.text())
			}
		})
	}
}

// TestRecordIDTraversalRefused: ids that could address another resource
// are refused before any RS call, whatever form carries them.
func TestRecordIDTraversalRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	if r := e.c.call("schema", map[string]any{}); r.IsError { // warm the source set
		t.Fatal(r.text())
	}
	for _, args := range []map[string]any{
		{"id": demodata.GmailWorkConnectionID + "/labels:../message_bodies"},
		{"id": demodata.GmailWorkConnectionID + "/labels:Projects/../../x"},
		{"id": "../labels:x"},
		{"id": demodata.GmailWorkConnectionID + "/../labels:x"},
		{"id": demodata.GmailWorkConnectionID + "/labels:"},
		{"id": "labels:.", "connection_id": demodata.GmailWorkConnectionID},
		{"id": contentladder.RecordURIPrefix + url.PathEscape(demodata.GmailWorkConnectionID+"/labels:a/..")},
	} {
		before := e.rs.RSCalls()
		if code := e.c.call("fetch", args).errorCode(t); code != "invalid_id" {
			t.Errorf("fetch %v: code %q, want invalid_id", args, code)
		}
		if n := e.rs.RSCalls() - before; n != 0 {
			t.Errorf("fetch %v made %d RS calls before refusing", args, n)
		}
	}
}
