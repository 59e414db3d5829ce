package adapter_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// resourceErrorSeen is what a resources/read failure tells a client: the
// JSON-RPC code and the typed code inside data.
type resourceErrorSeen struct {
	RPC  int
	Code string
}

// Every way a resources/read can fail on its URI answers with
// one mapping — -32602 for a handle or argument the caller can fix, -32002
// for what does not exist — and always with the typed error as data, never
// -32603 or mcp-go's untyped "handler not found".
func TestResourceErrorMapping(t *testing.T) {
	t.Parallel()
	// The field-restricted grant reads only the work mailbox, and of
	// message_bodies only id, message_id and message_received_at.
	e := newEnv(t, testenv.Options{}, demodata.GmailRestrictedToken)
	work, personal := demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID
	record := func(conn, stream, id string) string {
		return contentladder.RecordURI(contentladder.RecordRef{ConnectionID: conn, Stream: stream, RecordID: id})
	}
	window := func(conn, stream, id, field string) string {
		return contentladder.FieldWindowURI(contentladder.WindowSpec{Ref: contentladder.RecordRef{ConnectionID: conn, Stream: stream, RecordID: id},
			FieldPath: field, LimitChars: 100})
	}
	valid := record(work, "messages", demodata.LongBodyMessageID)
	validWindow := window(work, "message_bodies", demodata.LongBodyMessageID, "message_id")
	cases := []struct {
		name string
		uri  string
		want resourceErrorSeen
	}{
		{"garbage record handle", contentladder.RecordURIPrefix + "not-a-handle", resourceErrorSeen{-32602, "invalid_handle"}},
		{"truncated record handle", valid[:25], resourceErrorSeen{-32602, "invalid_handle"}},
		{"record handle with =", valid + "=", resourceErrorSeen{-32602, "invalid_handle"}},
		{"record handle with a newline", valid[:25] + "\n" + valid[25:], resourceErrorSeen{-32602, "invalid_handle"}},
		{"record handle with +/", valid[:25] + "+/" + valid[25:], resourceErrorSeen{-32602, "invalid_handle"}},
		{"record handle with a space", valid[:25] + " " + valid[25:], resourceErrorSeen{-32602, "invalid_handle"}},
		{"empty record handle", contentladder.RecordURIPrefix, resourceErrorSeen{-32602, "invalid_handle"}},
		{"garbage field-window handle", contentladder.FieldWindowURIPrefix + "abc", resourceErrorSeen{-32602, "invalid_handle"}},
		{"field-window handle with =", validWindow + "=", resourceErrorSeen{-32602, "invalid_handle"}},
		{"field-window handle with a newline", validWindow[:30] + "\n" + validWindow[30:], resourceErrorSeen{-32602, "invalid_handle"}},
		{"field-window handle with +/", validWindow[:30] + "+/" + validWindow[30:], resourceErrorSeen{-32602, "invalid_handle"}},
		{"stream not in the grant", record(work, "no_such_stream", "x"), resourceErrorSeen{-32602, "unknown_stream"}},
		{"connection not in the grant", record(personal, "messages", "x"), resourceErrorSeen{-32602, "unknown_connection"}},
		{"connection not in the grant, field window", window(personal, "message_bodies", "x", "message_id"), resourceErrorSeen{-32602, "unknown_connection"}},
		{"field outside the projection", window(work, "message_bodies", demodata.LongBodyMessageID, "body_text"), resourceErrorSeen{-32602, "field_not_granted"}},
		{"record that does not exist", record(work, "messages", "no-such-record"), resourceErrorSeen{-32002, "not_found"}},
		{"field window of a record that does not exist", window(work, "message_bodies", "no-such-record", "message_id"), resourceErrorSeen{-32002, "not_found"}},
		{"URI of no resource this server has", "pdpp://nothing/abc", resourceErrorSeen{-32002, "resource_not_found"}},
		{"URI of another scheme", "https://example.com/x", resourceErrorSeen{-32002, "resource_not_found"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := e.c.rpcRaw("resources/read", map[string]any{"uri": tc.uri})
			var re *rpcError
			if !errors.As(err, &re) {
				t.Fatalf("want a JSON-RPC error, got %v", err)
			}
			var data struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(re.Data, &data); err != nil || data.Error.Message == "" {
				t.Errorf("data is not a typed error: %q (%v)", re.Data, err)
			}
			if diff := cmp.Diff(tc.want, resourceErrorSeen{re.Code, data.Error.Code}); diff != "" {
				t.Errorf("(-want +got):\n%s\nmessage %q data %s", diff, re.Message, re.Data)
			}
		})
	}
}
