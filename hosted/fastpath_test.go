package hosted_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
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
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(hosted.New(srv, hosted.Options{PublicURL: publicURL}))
	t.Cleanup(hs.Close)
	long := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	direct := adapter.WithRequestGrant(context.Background(), adapter.NewGrant(demodata.GmailToken))
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
