package adapter_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// A resource read that fails is a JSON-RPC error with a proper
// code and the typed error as data — never -32603 "Internal error" with
// the envelope packed into the message.
func TestResourceReadErrorsAreTyped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	work := demodata.GmailWorkConnectionID
	cases := []struct {
		name     string
		uri      string
		wantRPC  int
		wantCode string
	}{
		{"garbage record handle", contentladder.RecordURIPrefix + "not-a-handle", -32602, "invalid_handle"},
		{"truncated record handle", contentladder.RecordURI(contentladder.RecordRef{ConnectionID: work, Stream: "messages", RecordID: "x"})[:20], -32602, "invalid_handle"},
		{"garbage field-window handle", contentladder.FieldWindowURIPrefix + "abc", -32602, ""},
		{"stream not in the grant set", contentladder.RecordURI(contentladder.RecordRef{ConnectionID: work, Stream: "no_such_stream", RecordID: "x"}), -32602, "unknown_stream"},
		{"record that does not exist", contentladder.RecordURI(contentladder.RecordRef{ConnectionID: work, Stream: "messages", RecordID: "no-such-record"}), -32002, ""},
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
			if err := json.Unmarshal(re.Data, &data); err != nil || data.Error.Code == "" || data.Error.Message == "" {
				t.Fatalf("data is not a typed error: %s (%v)", re.Data, err)
			}
			if re.Code != tc.wantRPC || (tc.wantCode != "" && data.Error.Code != tc.wantCode) {
				t.Errorf("code %d / %s, want %d / %s: %s", re.Code, data.Error.Code, tc.wantRPC, tc.wantCode, re.Data)
			}
			if strings.Contains(re.Message, "{") {
				t.Errorf("message carries the envelope: %q", re.Message)
			}
		})
	}
}

// TypedErrors leaves every message alone except a marked resource error.
func TestTypedErrorsLeavesOtherMessages(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"contents":[]}}` + "\n",
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}`,
		`[{"jsonrpc":"2.0","id":3,"result":{}}]`,
		`{"jsonrpc":"2.0","id":4,"result":{"text":"pdpp-resource-error: quoted by a record"}}`,
		`not json pdpp-resource-error:`,
		`{"jsonrpc":"2.0","id":5,"result":{"text":"handler not found for resource URI 'x': resource not found"}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":-32002,"message":"handler not found for resource URI 'x': resource not found","data":{"error":{}}}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"handler not found for resource URI 'x': resource not found"}}`,
	} {
		if diff := cmp.Diff(msg, string(adapter.TypedErrors([]byte(msg)))); diff != "" {
			t.Errorf("rewritten (-want +got):\n%s", diff)
		}
	}
}

// FuzzTypedErrors: whatever the bytes, the rewrite never panics, and a
// rewritten message is still one JSON value ending as the input ended.
func FuzzTypedErrors(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"pdpp-resource-error:{\"code\":-32602,\"message\":\"bad\",\"data\":{}}"}}` + "\n"))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"pdpp-resource-error:{}"}}]`))
	f.Add([]byte(`pdpp-resource-error:`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"handler not found for resource URI 'pdpp://record/a\nb': resource not found"}}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		out := adapter.TypedErrors(msg)
		if string(out) == string(msg) {
			return
		}
		if !json.Valid([]byte(strings.TrimRight(string(out), " \r\n\t"))) {
			t.Fatalf("rewrite of %q is not JSON: %q", msg, out)
		}
	})
}
