package adapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestNamesCheckedBeforeTheRS (D2): a stream outside the grant
// and a connection_id outside it are answered on every data tool with a
// typed error that lists what is granted, and cost no RS call at all.
func TestNamesCheckedBeforeTheRS(t *testing.T) {
	t.Parallel()
	work, personal := demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID
	foreignConn := "cin_000000000000000000000000"
	type call struct {
		tool string
		args map[string]any
		code string
	}
	// The restricted gmail grant holds messages and message_bodies of the
	// work connection only; threads and the personal connection exist at
	// the RS but are outside it (the RS would answer 401 context.*, D2).
	cases := []call{
		{"query_records", map[string]any{"stream": "threads"}, "unknown_stream"},
		{"query_records", map[string]any{"stream": "messages", "connection_id": personal}, "unknown_connection"},
		{"query_records", map[string]any{"stream": "messages", "connection_id": foreignConn}, "unknown_connection"},
		{"aggregate", map[string]any{"stream": "threads", "metric": "count"}, "unknown_stream"},
		{"aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": personal}, "unknown_connection"},
		{"search", map[string]any{"q": "roadmap", "streams": []string{"threads"}}, "unknown_stream"},
		{"search", map[string]any{"q": "roadmap", "streams": []string{"messages", "labels"}}, "unknown_stream"},
		{"search", map[string]any{"q": "roadmap", "connection_id": personal}, "unknown_connection"},
		{"search", map[string]any{"q": "roadmap", "mode": "semantic", "streams": []string{"threads"}}, "unknown_stream"},
		{"fetch", map[string]any{"id": work + "/threads:t1"}, "unknown_stream"},
		{"fetch", map[string]any{"id": "threads:t1"}, "unknown_stream"},
		{"fetch", map[string]any{"id": personal + "/messages:m1"}, "unknown_connection"},
		{"read_record_field", map[string]any{"id": work + "/threads:t1", "field_path": "snippet"}, "unknown_stream"},
		{"read_record_field", map[string]any{"connection_id": personal, "stream": "messages", "record_id": "m1", "field_path": "body_text"}, "unknown_connection"},
		{"schema", map[string]any{"stream": "threads"}, "unknown_stream"},
		{"schema", map[string]any{"stream": "messages", "connection_id": personal}, "unknown_connection"},
	}
	for _, grants := range [][]string{
		{demodata.GmailRestrictedToken},
		{demodata.GmailRestrictedToken, demodata.SlackToken},
	} {
		e := newEnv(t, testenv.Options{}, grants...)
		e.c.call("schema", map[string]any{}) // the index is read once, then cached
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%d grants/%s %v", len(grants), tc.tool, tc.args), func(t *testing.T) {
				before := e.rs.RSCalls()
				r := e.c.call(tc.tool, tc.args)
				if got := r.errorCode(t); got != tc.code {
					t.Fatalf("code %q, want %q: %s", got, tc.code, r.text())
				}
				if n := e.rs.RSCalls() - before; n != 0 {
					t.Errorf("%d RS calls, want 0", n)
				}
				var env struct {
					Error struct {
						Param         string            `json:"param"`
						Streams       []string          `json:"granted_streams"`
						StreamCount   int               `json:"granted_stream_count"`
						Available     []json.RawMessage `json:"available_connections"`
						AvailableSize int               `json:"available_connection_count"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(r.text()), &env); err != nil {
					t.Fatal(err)
				}
				switch tc.code {
				case "unknown_stream":
					if env.Error.StreamCount == 0 || len(env.Error.Streams) == 0 || len(env.Error.Streams) > 12 {
						t.Errorf("granted streams not listed (bounded): %s", r.text())
					}
				case "unknown_connection":
					if env.Error.Param != "connection_id" || env.Error.AvailableSize != len(grants)*1 || len(env.Error.Available) == 0 {
						t.Errorf("granted connections not listed: %s", r.text())
					}
				}
			})
		}
	}
}

// TestRSContextRefusalIsAGrantError proves that an RS 401 with a context.*
// code (D2: the real RS's answer for a stream or connection outside the
// grant, worded like a dead token) reaches the model as a grant error that
// lists what is granted, never as an authentication failure.
func TestRSContextRefusalIsAGrantError(t *testing.T) {
	t.Parallel()
	refuse := func(code string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasPrefix(r.URL.Path, "/v1/streams/messages/records") {
					next.ServeHTTP(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://rs.invalid/.well-known/oauth-protected-resource"`)
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprintf(w, `{"error":{"code":%q,"message":"Token introspection failed closed","type":"authentication_error",`+
					`"resource_metadata":"http://rs.invalid/.well-known/oauth-protected-resource","request_id":"req_1"}}`, code)
			})
		}
	}
	for _, tc := range []struct {
		rsCode, args, want string
	}{
		{"context.stream_not_allowed", `{"stream":"messages"}`, "unknown_stream"},
		{"context.instance_mismatch", `{"stream":"messages","connection_id":"` + demodata.GmailWorkConnectionID + `"}`, "unknown_connection"},
	} {
		t.Run(tc.rsCode, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, testenv.Options{Raw: refuse(tc.rsCode), NoContract: true}, demodata.GmailToken)
			var args map[string]any
			_ = json.Unmarshal([]byte(tc.args), &args)
			if tc.want == "unknown_stream" {
				args["connection_id"] = demodata.GmailWorkConnectionID
			}
			r := e.c.call("query_records", args)
			if got := r.errorCode(t); got != tc.want {
				t.Fatalf("code %q, want %q: %s", got, tc.want, r.text())
			}
			for _, bad := range []string{"authentication_error", "Token introspection failed closed", `"http_status":401`} {
				if strings.Contains(r.text(), bad) {
					t.Errorf("result reads like an authentication failure (%s): %s", bad, r.text())
				}
			}
			containsAll(t, r.text(), `"rs_code":"`+tc.rsCode+`"`, "call schema")
		})
	}
}
