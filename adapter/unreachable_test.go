package adapter_test

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// An RS nobody listens for is named to the model as the data source being
// unreachable, with the cause and the code rs_unavailable, never its
// address and never advice about the token or the arguments.
func TestUnreachableRSToolError(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rc, err := rsclient.New(rsclient.Config{BaseURL: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{RS: rc, Grants: []adapter.Grant{adapter.NewGrant(demodata.GmailToken)}})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, a)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"schema", map[string]any{}},
		{"query_records", map[string]any{"stream": "messages", "limit": 1}},
	} {
		r := c.call(call.tool, call.args)
		var env struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if !r.IsError || json.Unmarshal([]byte(r.text()), &env) != nil {
			t.Fatalf("%s: want a typed error, got %s", call.tool, r.text())
		}
		if env.Error.Code != "rs_unavailable" {
			t.Errorf("%s: code %q, want rs_unavailable", call.tool, env.Error.Code)
		}
		for _, want := range []string{"data source", "cannot be reached right now: connection refused", "tell the user"} {
			if !strings.Contains(env.Error.Message, want) {
				t.Errorf("%s: message %q lacks %q", call.tool, env.Error.Message, want)
			}
		}
		if strings.Contains(r.text(), addr) || strings.Contains(r.text(), "dial tcp") {
			t.Errorf("%s: the result names the RS address: %s", call.tool, r.text())
		}
	}
}
