package hosted_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// syncBuffer collects log lines from concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// echoBearer makes the RS echo the caller's bearer in every data error: a
// 400 envelope (message, param, available_connections), a 401 envelope and
// a 500 plain-text body. Schema passes through so the kind check succeeds.
func echoBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		tok := strings.TrimPrefix(auth, "Bearer ")
		switch {
		case r.URL.Path == "/v1/schema" || strings.HasPrefix(r.URL.Path, "/.well-known/"):
			next.ServeHTTP(w, r)
		case strings.HasSuffix(r.URL.Path, "/records"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"type":"invalid_request_error","code":"invalid_request","message":"token %s is not allowed (%s)","param":%q,"available_connections":[{"connection_id":%q}]}}`, tok, auth, tok, tok)
		case strings.Contains(r.URL.Path, "/search"):
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "upstream failure for %s", auth)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"type":"authentication_error","code":"authentication_error","message":"Invalid token %s"}}`, tok)
		}
	})
}

// leakCalls is every tool on success and error paths (local validation,
// RS errors, ambiguous connections), plus a resource read.
var leakCalls = []struct {
	method string
	params map[string]any
}{
	{"tools/call", map[string]any{"name": "schema", "arguments": map[string]any{}}},
	{"tools/call", map[string]any{"name": "schema", "arguments": map[string]any{"stream": "messages"}}},
	{"tools/call", map[string]any{"name": "schema", "arguments": map[string]any{"detail": "full"}}},
	{"tools/call", map[string]any{"name": "query_records", "arguments": map[string]any{"stream": "conversations", "limit": 3}}},
	{"tools/call", map[string]any{"name": "query_records", "arguments": map[string]any{"stream": "messages", "limit": 2, "connection_id": demodata.GmailWorkConnectionID}}},
	{"tools/call", map[string]any{"name": "query_records", "arguments": map[string]any{"stream": "no_such_stream"}}},
	{"tools/call", map[string]any{"name": "query_records", "arguments": map[string]any{"stream": "messages", "limit": 1000}}},
	{"tools/call", map[string]any{"name": "aggregate", "arguments": map[string]any{"stream": "messages", "metric": "count", "connection_id": demodata.GmailWorkConnectionID}}},
	{"tools/call", map[string]any{"name": "aggregate", "arguments": map[string]any{"stream": "messages", "metric": "sum"}}},
	{"tools/call", map[string]any{"name": "search", "arguments": map[string]any{"q": "invoice", "limit": 5}}},
	{"tools/call", map[string]any{"name": "search", "arguments": map[string]any{"q": demodata.LongBodyTerm, "mode": "semantic"}}},
	{"tools/call", map[string]any{"name": "fetch", "arguments": map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID}}},
	{"tools/call", map[string]any{"name": "fetch", "arguments": map[string]any{"id": "messages:" + demodata.SharedRecordID}}},
	{"tools/call", map[string]any{"name": "fetch", "arguments": map[string]any{"id": "../../etc:passwd"}}},
	{"tools/call", map[string]any{"name": "read_record_field", "arguments": map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID, "field_path": "body_text", "q": demodata.LongBodyTerm}}},
	{"tools/call", map[string]any{"name": "read_record_field", "arguments": map[string]any{"id": demodata.GmailWorkConnectionID + "/message_bodies:" + demodata.LongBodyMessageID, "field_path": "body_text", "cursor": "forged"}}},
	{"resources/read", map[string]any{"uri": "pdpp://record/" + demodata.GmailWorkConnectionID + "/messages:" + demodata.SharedRecordID}},
	{"tools/list", nil},
}

// TestBearerNeverLeaks runs every tool over stdio-style grants and over
// hosted HTTP, against an honest RS and one that echoes the bearer in its
// errors, with debug logging on; no bearer may appear in any result, HTTP
// response, error or log line.
func TestBearerNeverLeaks(t *testing.T) {
	t.Parallel()
	bearers := []string{demodata.GmailToken, demodata.SlackToken, demodata.GitHubToken, demodata.OwnerToken, demodata.ExpiredToken, demodata.RevokedToken}
	for _, echo := range []bool{false, true} {
		t.Run(fmt.Sprintf("echo=%v", echo), func(t *testing.T) {
			t.Parallel()
			logs := &syncBuffer{}
			logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			opts := testenv.Options{}
			if echo {
				opts.Raw = echoBearer
			}
			rs := testenv.StartRS(t, opts)
			rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL, Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			var produced []string
			// stdio-style: a fixed source set of several grants.
			stdio, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Logger: logger, Grants: []adapter.Grant{
				adapter.NewGrant(demodata.GmailToken), adapter.NewGrant(demodata.SlackToken), adapter.NewGrant(demodata.GitHubToken)}})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range leakCalls {
				req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": c.method, "params": c.params})
				out, _ := json.Marshal(stdio.MCP().HandleMessage(t.Context(), req))
				produced = append(produced, string(out))
			}
			// A stdio source set holding an owner token (mislabelled cache).
			mixed, _ := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Logger: logger, Grants: []adapter.Grant{
				adapter.NewGrant(demodata.OwnerToken), adapter.NewGrant(demodata.ExpiredToken)}})
			for i, c := range leakCalls[:4] {
				req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": c.method, "params": c.params})
				out, _ := json.Marshal(mixed.MCP().HandleMessage(t.Context(), req))
				produced = append(produced, string(out))
			}
			// Hosted: every bearer, every call, full HTTP responses.
			hostedSrv, _ := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Logger: logger})
			hs := httptest.NewServer(hosted.New(hostedSrv, hosted.Options{PublicURL: publicURL, Logger: logger}))
			t.Cleanup(hs.Close)
			for _, b := range bearers {
				for i, c := range leakCalls {
					body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": c.method, "params": c.params})
					res := post(t, hs.URL, "Bearer "+b, string(body), nil)
					produced = append(produced, fmt.Sprint(res.Status, res.Header), string(res.Body))
				}
			}
			logText := logs.String()
			if !strings.Contains(logText, `"level":"DEBUG"`) {
				t.Fatalf("debug logging did not run; the test would prove nothing:\n%.500s", logText)
			}
			produced = append(produced, strings.Split(logText, "\n")...)
			echoed := 0
			for _, s := range produced {
				if strings.Contains(s, "[REDACTED]") {
					echoed++
				}
				for _, b := range bearers {
					if strings.Contains(s, b) || strings.Contains(s, adapter.TokenHash(b)+b[:8]) {
						t.Errorf("bearer %.8s… leaked in: %.400s", b, s)
					}
					// Half a token is still a leak.
					if strings.Contains(s, b[:len(b)/2]) {
						t.Errorf("half of bearer %.8s… leaked in: %.400s", b, s)
					}
				}
			}
			if echo && echoed == 0 {
				t.Errorf("the echoing RS produced no redacted output; the echo path did not run")
			}
		})
	}
}
