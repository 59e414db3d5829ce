package hosted_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// TestAccessLogLevels: health probes and scrapes that succeed are DEBUG,
// a failing readiness check and every other request INFO.
func TestAccessLogLevels(t *testing.T) {
	t.Parallel()
	rs := testenv.StartRS(t, testenv.Options{})
	cases := []struct {
		name, rsURL, path string
		wantLevel         string
	}{
		{"liveness", rs.URL, "/healthz", "DEBUG"},
		{"readiness", rs.URL, "/readyz", "DEBUG"},
		{"metrics scrape", rs.URL, "/metrics", "DEBUG"},
		{"failing readiness", "http://127.0.0.1:1", "/readyz", "INFO"},
		{"a page", rs.URL, "/llms.txt", "INFO"},
		{"unauthenticated MCP call", rs.URL, "/mcp", "INFO"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc, err := rsclient.New(rsclient.Config{BaseURL: tc.rsURL})
			if err != nil {
				t.Fatal(err)
			}
			a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc})
			if err != nil {
				t.Fatal(err)
			}
			var logs syncBuffer
			logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			hs := httptest.NewServer(hosted.New(a, hosted.Options{Logger: logger, Metrics: hosted.NewMetrics()}))
			defer hs.Close()
			resp, err := hs.Client().Get(hs.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			hs.Close() // the log line is written once the handler returns
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var rec struct{ Level, Msg, Path string }
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
				if rec.Msg == "http request" {
					got = append(got, rec.Path+" "+rec.Level)
				}
			}
			if diff := cmp.Diff([]string{tc.path + " " + tc.wantLevel}, got); diff != "" {
				t.Errorf("access log lines (-want +got):\n%s", diff)
			}
		})
	}
}
