package adapter

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

// EncodeBothWays encodes resp, mcp-go's answer to one JSON-RPC message
// handled under sp (a splicer from NewRecordingSplicer), as the
// transports send it: through the fast path (mcp-go's envelope, the
// adapter's result members spliced in) and, for a tool result the adapter
// stashed, as mcp-go encodes the same result by itself. It fails t when
// the two do not parse to the same JSON value, and returns the fast
// path's bytes.
func EncodeBothWays(t testing.TB, sp *ResultSplicer, stashed *[]*mcp.CallToolResult, resp mcp.JSONRPCMessage) []byte {
	t.Helper()
	raw, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("marshal response: %v", err)
	}
	fast := sp.Join(TypedErrors(raw))
	if len(*stashed) == 0 {
		return fast
	}
	if len(*stashed) > 1 {
		t.Fatalf("%d results stashed for one message", len(*stashed))
	}
	r, ok := resp.(mcp.JSONRPCResponse)
	if !ok {
		t.Fatalf("a stashed result answered by %T", resp)
	}
	placeholder, ok := r.Result.(*mcp.CallToolResult)
	if !ok {
		t.Fatalf("a stashed result answered by a %T result", r.Result)
	}
	orig := *(*stashed)[0]
	orig.Result = placeholder.Result // mcp-go's decoration (resultType, _meta)
	r.Result = &orig
	slow, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("mcp-go's encoding of the result: %v", err)
	}
	if diff := JSONValueDiff(TypedErrors(slow), fast); diff != "" {
		t.Errorf("the fast path's answer differs from mcp-go's (-mcp-go +fast):\n%s", diff)
	}
	*stashed = (*stashed)[:0]
	return fast
}

// NewRecordingSplicer is a splicer that records every result it stashes.
func NewRecordingSplicer() (*ResultSplicer, *[]*mcp.CallToolResult) {
	var stashed []*mcp.CallToolResult
	sp := &ResultSplicer{}
	sp.observe = func(res *mcp.CallToolResult) { stashed = append(stashed, res) }
	return sp, &stashed
}

// JSONValueDiff compares two JSON texts as values (member order and
// spelling aside); an unparsable text is a difference.
func JSONValueDiff(want, got []byte) string {
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return "want is not JSON: " + err.Error()
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return "got is not JSON: " + err.Error() + "\n" + string(got)
	}
	return cmp.Diff(w, g)
}

// SetTitleReadDone has srv call done each time a hit title read's fetch
// ends (answered, failed or given up), whether or not a page still waits
// for it: a test then knows when a late read has filled the cache. Set it
// before the first call.
func SetTitleReadDone(srv *Server, done func()) { srv.titleReadDone = done }
