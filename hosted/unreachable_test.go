package hosted_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// TestHostedUnreachableRS: with an RS that cannot be reached, a request
// gets 503 rs_unavailable saying the data source is unreachable and why
// (not that its token could not be verified), /readyz names the RS and the
// same cause, and the log names both once, however many requests fail.
func TestHostedUnreachableRS(t *testing.T) {
	t.Parallel()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String()
	closed.Close()
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(untrusted.Close)
	noDNS := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS server here")
	}}
	tests := []struct {
		name      string
		cfg       rsclient.Config
		wantCause string
	}{
		{"connection refused", rsclient.Config{BaseURL: closedURL}, "connection refused"},
		{"DNS failure", rsclient.Config{BaseURL: "http://rs.example.invalid",
			Transport: &http.Transport{DialContext: (&net.Dialer{Resolver: noDNS}).DialContext}}, "DNS lookup failed"},
		{"untrusted certificate", rsclient.Config{BaseURL: untrusted.URL}, "TLS certificate not accepted: x509: certificate signed by unknown authority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
			tt.cfg.Logger = logger
			rc, err := rsclient.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			a, err := adapter.New(adapter.Config{RS: rc, Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(hosted.New(a, hosted.Options{Logger: logger}))
			t.Cleanup(hs.Close)
			host := strings.TrimPrefix(strings.TrimPrefix(tt.cfg.BaseURL, "https://"), "http://")

			for _, token := range []string{demodata.GmailToken, demodata.SlackToken} {
				res := post(t, hs.URL, "Bearer "+token, initializeBody, nil)
				e := res.errorBody(t)
				if res.Status != http.StatusServiceUnavailable || e["code"] != "rs_unavailable" {
					t.Errorf("status %d code %q, want 503 rs_unavailable", res.Status, e["code"])
				}
				for _, want := range []string{"data source", "cannot be reached right now: " + tt.wantCause, "Nothing is wrong with the token"} {
					if !strings.Contains(e["message"], want) {
						t.Errorf("message %q lacks %q", e["message"], want)
					}
				}
				if strings.Contains(e["message"], "could not be verified") || strings.Contains(string(res.Body), host) {
					t.Errorf("message blames the token or names the RS address: %s", res.Body)
				}
			}

			resp, err := http.Get(hs.URL + "/readyz")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var ready map[string]string
			if err := json.Unmarshal(body, &ready); err != nil {
				t.Fatalf("/readyz: %v: %s", err, body)
			}
			want := map[string]string{"status": "unavailable", "reason": "rs_unavailable", "rs": tt.cfg.BaseURL, "cause": tt.wantCause}
			if resp.StatusCode != http.StatusServiceUnavailable || !cmp.Equal(want, ready) {
				t.Errorf("/readyz = %d %s, want 503 %v", resp.StatusCode, body, want)
			}

			var unreachable []map[string]any
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
				if rec["msg"] == "resource server unreachable" {
					unreachable = append(unreachable, rec)
				}
			}
			if len(unreachable) != 1 || unreachable[0]["rs"] != tt.cfg.BaseURL || unreachable[0]["cause"] != tt.wantCause {
				t.Errorf("want one log line naming %s and %q, got %v\nlog:\n%s", tt.cfg.BaseURL, tt.wantCause, unreachable, logs.String())
			}
		})
	}
}
