package rstest

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAuthAndEnvelope(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	tests := []struct {
		name, path, tok string
		status          int
		code, msg       string
	}{
		{"no token", "/v1/schema", "", 401, "authentication_error", "Missing Bearer token"},
		{"unknown token", "/v1/schema", unknownTok, 401, "authentication_error", "Invalid or expired token"},
		{"expired token", "/v1/schema", staleTok, 403, "grant_expired", "Grant has expired"},
		{"revoked grant", "/v1/schema", revokedTok, 403, "grant_revoked", ""},
		{"expired grant", "/v1/schema", expiredGr, 403, "grant_expired", ""},
		{"invalid grant", "/v1/schema", invalidGr, 403, "grant_invalid", ""},
		{"revoked message", "/v1/schema", revokedTok, 403, "grant_revoked", "Grant has been revoked"},
		{"stream not granted", "/v1/streams/attachments/records", gmailTok, 401, "context.stream_not_allowed", "Token introspection failed closed"},
		{"connection not granted", "/v1/streams/messages/records?connection_id=" + connSlack, gmailTok, 401, "context.instance_mismatch", "Token introspection failed closed"},
		{"owner unknown stream", "/v1/streams/nope/records?connector_id=gmail", ownerTok, 404, "not_found", ""},
		{"owner without scope", "/v1/streams/messages/records", ownerTok, 400, "invalid_request", "connector_id must be a single non-empty string for polyfill owner access"},
		{"ok", "/v1/schema", gmailTok, 200, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := get(t, ts.URL, tc.path, tc.tok)
			if r.status != tc.status {
				t.Fatalf("status = %d, want %d: %s", r.status, tc.status, r.raw)
			}
			if got := r.header.Get("PDPP-Version"); got != pdppVersion {
				t.Errorf("PDPP-Version = %q", got)
			}
			if !regexp.MustCompile(`^req_[0-9a-f]{16}$`).MatchString(r.header.Get("Request-Id")) {
				t.Errorf("Request-Id = %q", r.header.Get("Request-Id"))
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			if tc.code == "" {
				return
			}
			code, _ := r.errCode()
			if code != tc.code {
				t.Errorf("code = %q, want %q", code, tc.code)
			}
			if tc.msg != "" && at(r.body, "error", "message") != tc.msg {
				t.Errorf("message = %v, want %q", at(r.body, "error", "message"), tc.msg)
			}
			if at(r.body, "error", "request_id") != r.header.Get("Request-Id") {
				t.Errorf("request_id mismatch")
			}
			wantType := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error"}[tc.status]
			if at(r.body, "error", "type") != wantType {
				t.Errorf("type = %v, want %s", at(r.body, "error", "type"), wantType)
			}
			if tc.status == 401 {
				md := ts.URL + "/.well-known/oauth-protected-resource"
				if got := r.header.Get("WWW-Authenticate"); got != `Bearer resource_metadata="`+md+`"` {
					t.Errorf("WWW-Authenticate = %q", got)
				}
				if at(r.body, "error", "resource_metadata") != md || at(r.body, "error", "next_step") != nextStep {
					t.Errorf("401 body lacks resource_metadata/next_step: %s", r.raw)
				}
			} else if r.header.Get("WWW-Authenticate") != "" {
				t.Errorf("unexpected challenge on %d", tc.status)
			}
		})
	}
}

func TestTransportRules(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, testDataset(), Options{})
	t.Run("echo request id", func(t *testing.T) {
		t.Parallel()
		req, _ := http.NewRequest("GET", ts.URL+"/v1/schema", nil)
		req.Header.Set("Request-Id", "req_custom")
		req.Header.Set("Authorization", "Bearer "+gmailTok)
		if r := do(t, req); r.header.Get("Request-Id") != "req_custom" {
			t.Errorf("Request-Id = %q", r.header.Get("Request-Id"))
		}
	})
	t.Run("bad version", func(t *testing.T) {
		t.Parallel()
		req, _ := http.NewRequest("GET", ts.URL+"/v1/schema", nil)
		req.Header.Set("PDPP-Version", "2025-01-01")
		req.Header.Set("Authorization", "Bearer "+gmailTok)
		r := do(t, req)
		if code, _ := r.errCode(); r.status != 400 || code != "unsupported_version" {
			t.Errorf("got %d %s", r.status, r.raw)
		}
	})
	t.Run("head like get", func(t *testing.T) {
		t.Parallel()
		req, _ := http.NewRequest("HEAD", ts.URL+"/v1/streams", nil)
		req.Header.Set("Authorization", "Bearer "+gmailTok)
		r := do(t, req)
		if r.status != 200 || len(r.raw) != 0 || r.header.Get("Request-Id") == "" {
			t.Errorf("HEAD: %d %q", r.status, r.raw)
		}
	})
	t.Run("fastify 404", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/search/semantic?q=x", gmailTok)
		want := map[string]any{"message": "Route GET:/v1/search/semantic not found", "error": "Not Found", "statusCode": float64(404)}
		if d := cmp.Diff(want, r.body); r.status != 404 || d != "" {
			t.Errorf("status %d (-want +got):\n%s", r.status, d)
		}
	})
	t.Run("links and meta defaults", func(t *testing.T) {
		t.Parallel()
		r := get(t, ts.URL, "/v1/streams?x=1", gmailTok)
		want := map[string]any{"self": "/v1/streams?x=1", "next": nil}
		if d := cmp.Diff(want, r.body["links"]); d != "" {
			t.Errorf("links (-want +got):\n%s", d)
		}
		wantMeta := map[string]any{"count": map[string]any{"kind": "none"}, "warnings": []any{}}
		if d := cmp.Diff(wantMeta, r.body["meta"]); d != "" {
			t.Errorf("meta (-want +got):\n%s", d)
		}
	})
	t.Run("recording", func(t *testing.T) {
		t.Parallel()
		s, ts2 := newTestServer(t, testDataset(), Options{})
		get(t, ts2.URL, "/v1/schema?view=compact", gmailTok)
		get(t, ts2.URL, "/.well-known/oauth-protected-resource", "")
		reqs := s.Requests()
		if len(reqs) != 2 || reqs[0].Bearer != gmailTok || reqs[0].RawQuery != "view=compact" || reqs[1].Bearer != "" {
			t.Errorf("Requests() = %+v", reqs)
		}
		s.ResetRequests()
		if len(s.Requests()) != 0 {
			t.Error("ResetRequests kept requests")
		}
	})
}

func TestPRM(t *testing.T) {
	t.Parallel()
	for _, semantic := range []bool{false, true} {
		_, ts := newTestServer(t, testDataset(), Options{Semantic: semantic, PublicURL: "https://rs.example"})
		r := get(t, ts.URL, "/.well-known/oauth-protected-resource", "")
		if r.status != 200 || r.body["resource"] != "https://rs.example" || r.body["pdpp_core_query_base"] != "https://rs.example/v1" {
			t.Fatalf("PRM: %d %s", r.status, r.raw)
		}
		if d := cmp.Diff([]any{"owner", "client"}, r.body["pdpp_token_kinds_supported"]); d != "" {
			t.Error(d)
		}
		caps, _ := r.body["capabilities"].(map[string]any)
		_, sem := caps["semantic_retrieval"]
		_, hyb := caps["hybrid_retrieval"]
		if caps["lexical_retrieval"] == nil || sem != semantic || hyb != semantic {
			t.Errorf("semantic=%v: capabilities %v", semantic, caps)
		}
		if strings.Contains(string(r.raw), `"links"`) {
			t.Error("PRM must not carry links")
		}
	}
}
