package rsclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// TestCredentialRefused: the client's error for an answer that refuses
// the bearer itself — 401 authentication_error, and the real RS's 403
// grant_expired for an expired access token or grant_revoked for a
// revoked grant — is a refusal, and no other answer is.
func TestCredentialRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		code   string
		want   bool
	}{
		{"401 authentication_error", 401, "authentication_error", true},
		{"403 grant_expired", 403, "grant_expired", true},
		{"401 context grant error", 401, "context.stream_not_allowed", false},
		{"403 grant_revoked", 403, "grant_revoked", true},
		{"403 grant_stream_not_allowed", 403, "grant_stream_not_allowed", false},
		{"404 not_found", 404, "not_found", false},
		{"500", 500, "api_error", false},
		{"200", 200, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				if tc.status == 200 {
					_, _ = w.Write([]byte(`{"object":"schema","connectors":[]}`))
					return
				}
				_, _ = w.Write([]byte(`{"error":{"type":"x","code":"` + tc.code + `","message":"m"}}`))
			}))
			t.Cleanup(rs.Close)
			c, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = c.Schema(context.Background(), "tok", rsclient.SchemaQuery{})
			var rsErr *rsclient.Error
			refused := errors.As(err, &rsErr) && rsclient.CredentialRefused(rsErr.Status, rsErr.Code)
			got := []any{refused, rsclient.CredentialRefused(tc.status, tc.code)}
			if diff := cmp.Diff([]any{tc.want, tc.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
