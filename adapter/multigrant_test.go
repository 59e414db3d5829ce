package adapter_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func TestMultiGrantRouting(t *testing.T) {
	t.Parallel()
	for _, grants := range [][]string{
		{demodata.GmailToken, demodata.SlackToken},
		{demodata.GmailToken, demodata.SlackToken, demodata.ChatGPTToken},
	} {
		t.Run(fmt.Sprintf("%d grants", len(grants)), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, testenv.Options{}, grants...)
			// A stream only one grant has routes without connection_id.
			r := e.c.call("query_records", map[string]any{"stream": "channels", "limit": 2})
			if r.IsError || !strings.Contains(r.text(), demodata.SlackConnectionID) {
				t.Errorf("channels should route to slack: %s", r.text())
			}
			// connection_id picks the owning grant.
			r = e.c.call("query_records", map[string]any{"stream": "messages", "limit": 2, "connection_id": demodata.SlackConnectionID})
			if r.IsError || !strings.Contains(r.text(), demodata.SlackConnectionID+"/messages:") {
				t.Errorf("slack messages by connection_id: %s", r.text())
			}
			// A shared stream without connection_id is a typed, bounded error,
			// built from membership without any RS call.
			before := e.rs.RSCalls()
			r = e.c.call("query_records", map[string]any{"stream": "messages"})
			if got := r.errorCode(t); got != "ambiguous_connection" {
				t.Fatalf("code %q: %s", got, r.text())
			}
			if n := e.rs.RSCalls() - before; n != 0 {
				t.Errorf("ambiguity cost %d RS calls", n)
			}
			var env struct {
				Error struct {
					RetryWith string              `json:"retry_with"`
					Available []map[string]string `json:"available_connections"`
					Count     int                 `json:"available_connection_count"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(r.text()), &env); err != nil {
				t.Fatal(err)
			}
			want := 3 // two gmail connections + slack
			if len(grants) == 3 {
				want = 4
			}
			if env.Error.RetryWith != "connection_id" || env.Error.Count != want || len(env.Error.Available) != want {
				t.Errorf("error = %+v", env.Error)
			}
			for _, a := range env.Error.Available {
				for _, k := range []string{"grant_id", "connector_key", "connection_id"} {
					if a[k] == "" {
						t.Errorf("candidate lacks %s: %v", k, a)
					}
				}
			}
			// Unknown connection ids are typed errors too.
			if got := e.c.call("aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": "cin_ffffffffffffffffffffffff"}).errorCode(t); got != "unknown_connection" {
				t.Errorf("unknown connection: %q", got)
			}
		})
	}
}

func TestAmbiguityCandidatesAreCapped(t *testing.T) {
	t.Parallel()
	url, tokens := schemaRS(t, 14, 3, 5)
	c := newClient(t, newAdapterFor(t, url, tokens...))
	r := c.call("query_records", map[string]any{"stream": "messages"})
	var env struct {
		Error struct {
			Available []map[string]string `json:"available_connections"`
			Count     int                 `json:"available_connection_count"`
			Truncated bool                `json:"available_connections_truncated"`
			Omitted   int                 `json:"available_connections_omitted"`
			Hint      string              `json:"discovery_hint"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.text()), &env); err != nil {
		t.Fatalf("%v: %s", err, r.text())
	}
	if len(env.Error.Available) != 12 || env.Error.Count != 14 || !env.Error.Truncated || env.Error.Omitted != 2 || !strings.Contains(env.Error.Hint, "schema") {
		t.Errorf("capped error = %+v", env.Error)
	}
}

func TestOwnerTokenIsRefusedByEveryTool(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.OwnerToken)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"schema", map[string]any{}},
		{"query_records", map[string]any{"stream": "messages"}},
		{"aggregate", map[string]any{"stream": "messages", "metric": "count"}},
		{"search", map[string]any{"q": "invoice"}},
		{"fetch", map[string]any{"id": demodata.GmailWorkConnectionID + "/messages:" + demodata.SharedRecordID}},
		{"read_record_field", map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID, "field_path": "body_text"}},
	} {
		if got := e.c.call(c.tool, c.args).errorCode(t); got != "owner_token_refused" {
			t.Errorf("%s: code %q", c.tool, got)
		}
	}
	for _, req := range e.rs.Server.Requests() {
		if req.Path != "/v1/schema" {
			t.Errorf("owner token reached a data route: %s %s", req.Method, req.Path)
		}
	}
}

// TestOwnerTokenBesideClientGrantsIsLeftOut: an owner token among client
// grants (a stdio cache re-read at runtime can bring one in) is never read
// through, and every call still answers from the client grants, with a
// warning naming the refused credential.
func TestOwnerTokenBesideClientGrantsIsLeftOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken, demodata.OwnerToken)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"schema", map[string]any{}},
		{"query_records", map[string]any{"stream": "messages", "limit": 2}},
		{"aggregate", map[string]any{"stream": "messages", "metric": "count"}},
		{"search", map[string]any{"q": "invoice", "limit": 2}},
		{"fetch", map[string]any{"id": demodata.GmailWorkConnectionID + "/messages:" + demodata.SharedRecordID}},
	} {
		r := e.c.call(c.tool, c.args)
		if r.IsError {
			t.Errorf("%s: error %s", c.tool, r.text())
			continue
		}
		containsAll(t, r.text(), "owner_token_refused", "credential 2 of 2 is not a grant-scoped client token")
	}
	for _, req := range e.rs.Server.Requests() {
		if req.Bearer == demodata.OwnerToken && req.Path != "/v1/schema" {
			t.Errorf("owner token reached a data route: %s %s", req.Method, req.Path)
		}
	}
}
