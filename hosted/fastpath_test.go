package hosted_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The door writes tool results through the adapter's fast path (encoded
// once, spliced into mcp-go's answer): each answer is the JSON value
// mcp-go's own encoding of the same call gives, for successes with and
// without resource links and for error results.
func TestHostedToolAnswersMatchMCPGo(t *testing.T) {
	t.Parallel()
	srv := mockRSAdapter(t)
	hs := httptest.NewServer(hosted.New(srv, hosted.Options{PublicURL: publicURL}))
	t.Cleanup(hs.Close)
	long := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	g := adapter.NewGrant(demodata.GmailToken)
	direct := adapter.WithRequest(context.Background(), adapter.Request{Grant: &g})
	for i, call := range []string{
		`{"name":"schema","arguments":{}}`,
		`{"name":"schema","arguments":{"stream":"messages","detail":"full"}}`,
		`{"name":"fetch","arguments":{"id":"` + long + `"}}`,
		`{"name":"read_record_field","arguments":{"id":"` + long + `","field_path":"body_text","q":"` + demodata.LongBodyTerm + `"}}`,
		`{"name":"aggregate","arguments":{"stream":"messages","metric":"count"}}`,
		`{"name":"query_records","arguments":{"stream":"no_such_stream"}}`,
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, call)
		got := post(t, hs.URL, "Bearer "+demodata.GmailToken, body, nil)
		if got.Status != 200 {
			t.Fatalf("%s: HTTP %d %s", call, got.Status, got.Body)
		}
		want, err := json.Marshal(srv.MCP().HandleMessage(direct, []byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		// The two calls are two reads: a field window's cursors carry the
		// time they were issued, so they differ across a second boundary.
		if diff := jsonValueDiff(sealCursors(want), sealCursors(got.Body)); diff != "" {
			t.Errorf("%s: the door's answer differs from mcp-go's (-mcp-go +door):\n%s", call, diff)
		}
	}
}

// mockRSAdapter is an adapter (no grants of its own: the door's bearer
// is the grant) over a mock RS of its own.
func mockRSAdapter(t *testing.T) *adapter.Server {
	t.Helper()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// cursorValue is a cursor member's value, in JSON or inside a JSON string.
var cursorValue = regexp.MustCompile(`(\\?"(?:next_|previous_)?cursor\\?":\\?")[A-Za-z0-9_-]+`)

// sealCursors replaces every cursor value with <sealed>.
func sealCursors(b []byte) []byte { return cursorValue.ReplaceAll(b, []byte("${1}<sealed>")) }

// jsonValueDiff compares two JSON texts as values; an unparsable text is a
// difference.
func jsonValueDiff(want, got []byte) string {
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return "want is not JSON: " + err.Error()
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return "got is not JSON: " + err.Error() + "\n" + string(got)
	}
	return cmp.Diff(w, g)
}

// A page-sized tool answer leaves the door in at most two writes to the
// connection (net/http's 4 KiB buffer, then the rest): written segment
// by segment it took three, the envelope's last bytes alone in the third.
func TestHostedPageAnswerInTwoWrites(t *testing.T) {
	t.Parallel()
	srv := mockRSAdapter(t)
	hs := httptest.NewUnstartedServer(hosted.New(srv, hosted.Options{PublicURL: publicURL}))
	counted := &writeCountingListener{Listener: hs.Listener}
	hs.Listener = counted
	hs.Start()
	t.Cleanup(hs.Close)
	long := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	for i, call := range []string{
		`{"name":"fetch","arguments":{"id":"` + long + `"}}`,
		`{"name":"query_records","arguments":{"stream":"messages","limit":25,"connection_id":"` + demodata.GmailWorkConnectionID + `"}}`,
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, call)
		before := counted.writes.Load()
		got := post(t, hs.URL, "Bearer "+demodata.GmailToken, body, nil)
		writes := counted.writes.Load() - before
		if got.Status != 200 || len(got.Body) <= 4096 {
			t.Fatalf("%s: HTTP %d, %d bytes: want a 200 page over 4 KiB", call, got.Status, len(got.Body))
		}
		if writes > 2 {
			t.Errorf("%s: a %d-byte answer took %d writes to the connection, want at most 2", call, len(got.Body), writes)
		}
	}
}

// writeCountingListener counts the writes to every connection it accepts.
type writeCountingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *writeCountingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &writeCountingConn{Conn: c, writes: &l.writes}, nil
}

type writeCountingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *writeCountingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}
