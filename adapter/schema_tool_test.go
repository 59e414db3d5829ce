package adapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/schemagen"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

var threeGrants = []string{demodata.GmailToken, demodata.SlackToken, demodata.ChatGPTToken}

// grantStreams lists the stream names each demo grant carries.
func grantStreams(t *testing.T) map[string][]string {
	t.Helper()
	ds := testenv.Dataset(t)
	out := map[string][]string{}
	for _, g := range ds.Grants {
		for _, s := range g.Streams {
			out[g.Token] = append(out[g.Token], s.Name)
		}
	}
	return out
}

func TestSchemaGlobalIndexShowsEveryStream(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	r := e.c.call("schema", map[string]any{})
	if r.IsError {
		t.Fatalf("schema failed: %s", r.text())
	}
	streams := grantStreams(t)
	for _, tok := range threeGrants {
		for _, name := range streams[tok] {
			if !strings.Contains(r.text(), name) {
				t.Errorf("global text lacks stream %q", name)
			}
		}
	}
	containsAll(t, r.text(), "gmail", "slack", "chatgpt", demodata.GmailWorkConnectionID, demodata.SlackConnectionID)
	var sc struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
		t.Fatal(err)
	}
	if _, nested := sc.Data["data"]; nested {
		t.Error("schema document must sit directly under structuredContent.data")
	}
	if n := len(r.text()) + len(r.StructuredContent); n > 8192 {
		t.Errorf("global result is %d bytes; budget 8192", n)
	}
	if strings.Count(string(r.StructuredContent), "message_bodies") != 1 {
		t.Errorf("a stream list appears more than once: %s", r.StructuredContent)
	}
}

func TestSchemaDetailFullNeedsStreamWithoutRSCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.GmailToken)
	before := e.rs.RSCalls()
	r := e.c.call("schema", map[string]any{"detail": "full"})
	if got := r.errorCode(t); got != "invalid_request" {
		t.Errorf("code = %q", got)
	}
	containsAll(t, r.text(), `schema(stream, connection_id, detail:\"full\")`)
	if n := e.rs.RSCalls() - before; n != 0 {
		t.Errorf("RS saw %d requests; want none", n)
	}
}

func TestSchemaSharedStreamNeedsConnectionForFullDetail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	scoped := e.c.call("schema", map[string]any{"stream": "messages"})
	if scoped.IsError {
		t.Fatal(scoped.text())
	}
	// Every source of the shared name is described, each with its facts.
	containsAll(t, scoped.text(), "connector_key=gmail", "connector_key=slack", "connector_key=chatgpt",
		`sort:"-received_at"`, `sort:"-sent_at"`, "legend", "aggregate", "expand", "search: modes=", "projection")
	before := e.rs.RSCalls()
	r := e.c.call("schema", map[string]any{"stream": "messages", "detail": "full"})
	if got := r.errorCode(t); got != "ambiguous_schema_detail" {
		t.Fatalf("code = %q: %s", got, r.text())
	}
	var env struct {
		Error struct {
			RetryWith string `json:"retry_with"`
			Available []struct {
				ConnectionID string `json:"connection_id"`
				ConnectorKey string `json:"connector_key"`
				GrantID      string `json:"grant_id"`
			} `json:"available_connections"`
			Count int `json:"available_connection_count"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.text()), &env); err != nil {
		t.Fatal(err)
	}
	if env.Error.RetryWith != "connection_id" || env.Error.Count != 4 || len(env.Error.Available) != 4 {
		t.Errorf("ambiguity error = %+v", env.Error)
	}
	if n := e.rs.RSCalls() - before; n != 0 {
		t.Errorf("ambiguity cost %d RS calls; want 0 (built from membership)", n)
	}
	full := e.c.call("schema", map[string]any{"stream": "messages", "detail": "full", "connection_id": demodata.SlackConnectionID})
	if full.IsError {
		t.Fatal(full.text())
	}
	// The text's JSON Schema types line is in structuredContent too, for
	// one source, and the RS's exhaustive document is not.
	var doc struct {
		Data struct {
			Sources []json.RawMessage `json:"sources"`
			Types   string            `json:"json_schema_types"`
		} `json:"data"`
	}
	if err := json.Unmarshal(full.StructuredContent, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Data.Sources) != 1 || doc.Data.Types == "" || !strings.Contains(full.text(), doc.Data.Types) {
		t.Errorf("full detail should be one source with the text's types line: %.400s", full.StructuredContent)
	}
	if strings.Contains(string(full.StructuredContent), `"$schema"`) || strings.Contains(string(full.StructuredContent), `"properties"`) {
		t.Errorf("the RS's exhaustive document leaked into structuredContent: %.400s", full.StructuredContent)
	}
}

func TestSchemaGlobalScopedToConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, threeGrants...)
	r := e.c.call("schema", map[string]any{"connection_id": demodata.GmailWorkConnectionID})
	if r.IsError {
		t.Fatal(r.text())
	}
	containsAll(t, r.text(), "connectors=1", demodata.GmailWorkConnectionID, "message_bodies")
	for _, absent := range []string{demodata.GmailPersonalConnectionID, "slack", "chatgpt"} {
		if strings.Contains(r.text(), absent) {
			t.Errorf("scoped index mentions %s:\n%s", absent, r.text())
		}
	}
}

func TestSchemaUnknownStreamAndConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.Options{}, demodata.SlackToken)
	for _, tc := range []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"stream": "no_such_stream"}, "unknown_stream"},
		{map[string]any{"stream": "messages", "connection_id": "cin_000000000000000000000000"}, "unknown_connection"},
		{map[string]any{"stream": "../etc"}, "invalid_id"},
	} {
		if got := e.c.call("schema", tc.args).errorCode(t); got != tc.code {
			t.Errorf("%v: code %q, want %q", tc.args, got, tc.code)
		}
	}
}

// schemaRS serves synthetic compact schemas, one connector per bearer, so
// budgets can be measured at sizes the demo data does not reach.
func schemaRS(t *testing.T, connectors, streams, fields int) (string, []string) {
	t.Helper()
	bodies := map[string][]byte{}
	var tokens []string
	for i := 0; i < connectors; i++ {
		tok := fmt.Sprintf("%064x", i+1)
		tokens = append(tokens, tok)
		conns := []schemagen.Connection{{ID: fmt.Sprintf("cin_%024x", i*2+1), DisplayName: fmt.Sprintf("Account %d", i)}}
		body := schemagen.SchemaBody(fmt.Sprintf("connector%02d", i), streams, fields, conns, true)
		body = []byte(strings.Replace(string(body), `"object":"schema"`, `"object":"schema","bearer":{"token_kind":"client","scope":"grant","grant_id":"grt_`+fmt.Sprintf("%016x", i)+`"}`, 1))
		bodies[tok] = body
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, ok := bodies[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_0000000000000001")
		if !ok || r.URL.Path != "/v1/schema" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"type":"not_found_error","code":"not_found","message":"nope"}}`))
			return
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, tokens
}

func TestSchemaBudgetsOnGeneratedGrants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		connectors, streams, fields int
		budget                      int // 0 = report only
	}{
		{1, 5, 30, 8192},
		{4, 20, 30, 8192},
		{12, 20, 30, 0},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.connectors, tc.streams), func(t *testing.T) {
			t.Parallel()
			url, tokens := schemaRS(t, tc.connectors, tc.streams, tc.fields)
			c := newClient(t, newAdapterFor(t, url, tokens...))
			r := c.call("schema", map[string]any{})
			if r.IsError {
				t.Fatal(r.text())
			}
			total := len(r.text()) + len(r.StructuredContent)
			t.Logf("global schema at %d connectors × %d streams × %d fields: text %d B + structured %d B = %d B",
				tc.connectors, tc.streams, tc.fields, len(r.text()), len(r.StructuredContent), total)
			if tc.budget > 0 && total > tc.budget {
				t.Errorf("global result %d B exceeds %d", total, tc.budget)
			}
			var sc struct {
				Data page.SchemaIndexPage `json:"data"`
			}
			if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, conn := range sc.Data.Connectors {
				for _, s := range strings.Split(conn.Streams, "|") {
					n++
					if !strings.Contains(r.text(), s) {
						t.Errorf("stream %q missing from text", s)
					}
				}
			}
			if n != tc.connectors*tc.streams {
				t.Errorf("index lists %d streams, want %d", n, tc.connectors*tc.streams)
			}
		})
	}
}

func newAdapterFor(t *testing.T, rsURL string, bearers ...string) *adapter.Server {
	t.Helper()
	rc, err := rsclient.New(rsclient.Config{BaseURL: rsURL})
	if err != nil {
		t.Fatal(err)
	}
	grants := make([]adapter.Grant, len(bearers))
	for i, b := range bearers {
		grants[i] = adapter.NewGrant(b)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
