package adapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// toolResult is a tools/call result as a client sees it on the wire.
type toolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// hostJSON is structuredContent as a host hands it to the model: decoded
// and written again as compact JSON without HTML escaping (as JSON.stringify
// writes it), so "<mark>" counts 6 bytes, not the wire's 12.
func hostJSON(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// text is content[0].text.
func (r toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// errorCode is the typed code of an error result.
func (r toolResult) errorCode(t *testing.T) string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("expected an error result, got success: %s", r.text())
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.text()), &env); err != nil {
		t.Fatalf("error text is not JSON: %v\n%s", err, r.text())
	}
	return env.Error.Code
}

// client drives an adapter through its JSON-RPC entry point, exactly as a
// transport would.
type client struct {
	t   *testing.T
	srv *adapter.Server
	id  atomic.Int64
}

func newClient(t *testing.T, srv *adapter.Server) *client { return &client{t: t, srv: srv} }

// rpc sends one JSON-RPC request and returns its result (or fails on a
// JSON-RPC error).
func (c *client) rpc(method string, params any) json.RawMessage {
	c.t.Helper()
	raw, err := c.rpcRaw(method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return raw
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// Error is the message and the typed data, so tests can look for codes.
func (e *rpcError) Error() string { return e.Message + " " + string(e.Data) }

func (c *client) rpcRaw(method string, params any) (json.RawMessage, error) {
	c.t.Helper()
	req := map[string]any{"jsonrpc": "2.0", "id": c.id.Add(1), "method": method, "params": params}
	b, _ := json.Marshal(req)
	// Every answer takes the transports' fast path, and each tool result
	// is checked against mcp-go's own encoding of it.
	sp, stashed := adapter.NewRecordingSplicer()
	resp := c.srv.MCP().HandleMessage(adapter.WithRequest(context.Background(), adapter.Request{Results: sp}), b)
	out := adapter.EncodeBothWays(c.t, sp, stashed, resp)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		c.t.Fatalf("decode response: %v\n%s", err, out)
	}
	if env.Error != nil {
		return nil, env.Error
	}
	return env.Result, nil
}

// call runs tools/call.
func (c *client) call(tool string, args any) toolResult {
	c.t.Helper()
	raw := c.rpc("tools/call", map[string]any{"name": tool, "arguments": args})
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		c.t.Fatalf("decode tool result: %v\n%s", err, raw)
	}
	return r
}

// env is one mock RS with an adapter over a chosen set of grants.
type env struct {
	rs  *testenv.RS
	srv *adapter.Server
	c   *client
}

func newEnv(t *testing.T, opts testenv.Options, bearers ...string) *env {
	t.Helper()
	rs := testenv.StartRS(t, opts)
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	grants := make([]adapter.Grant, len(bearers))
	for i, b := range bearers {
		grants[i] = adapter.NewGrant(b)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: grants, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return &env{rs: rs, srv: srv, c: newClient(t, srv)}
}

func containsAll(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}
