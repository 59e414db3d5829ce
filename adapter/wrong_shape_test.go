package adapter_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestWrongShapeRSAnswersAreInvalidResponse: a 200 of the wrong shape on a
// tool's data route is a typed invalid_response, never a success built from
// nothing (as once, when aggregate passed the body through, fetch showed
// "nope" and read_record_field an empty window).
func TestWrongShapeRSAnswersAreInvalidResponse(t *testing.T) {
	t.Parallel()
	id := demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		route string // path fragment whose answers are replaced
		body  string
	}{
		{"aggregate", map[string]any{"stream": "messages", "metric": "count", "connection_id": demodata.GmailWorkConnectionID}, "/aggregate", `{"nope":1}`},
		{"aggregate", map[string]any{"stream": "messages", "metric": "count", "group_by": "from_email", "connection_id": demodata.GmailWorkConnectionID}, "/aggregate", `{"metric":"count","stream":"messages","groups":[{"count":3}]}`},
		{"fetch", map[string]any{"id": id}, "/records/", `{"nope":"nope"}`},
		{"fetch", map[string]any{"id": id}, "/records/", `{"id":"x","stream":"message_bodies","data":"nope"}`},
		{"read_record_field", map[string]any{"id": id, "field_path": "body_text"}, "/field-window", `{}`},
		{"read_record_field", map[string]any{"id": id, "field_path": "body_text"}, "/field-window", `{"field":{"path":"body_text"},"window":{"text":"","start_chars":0,"end_chars":40,"total_chars":90,"limit_chars":40}}`},
		{"query_records", map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID}, "/records", `{"data":[{"nope":1}]}`},
		{"search", map[string]any{"q": "invoice"}, "/v1/search", `{"data":[{"score":1}]}`},
	} {
		t.Run(tc.tool+" "+tc.body, func(t *testing.T) {
			t.Parallel()
			wrong := func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.Contains(r.URL.Path, tc.route) {
						w.Header().Set("Content-Type", "application/json")
						_, _ = w.Write([]byte(tc.body))
						return
					}
					next.ServeHTTP(w, r)
				})
			}
			e := newEnv(t, testenv.Options{NoContract: true, Raw: wrong}, demodata.GmailToken)
			r := e.c.call(tc.tool, tc.args)
			if code := r.errorCode(t); code != "invalid_response" {
				t.Errorf("code %q, want invalid_response: %s", code, r.text())
			}
		})
	}
}
