package rsclient

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBearerNeverLeaks drives every outcome with a debug logger and greps
// everything produced for the bearer.
func TestBearerNeverLeaks(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	echo := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Request-Id", "req_echo")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"code":"authentication_error","message":"bad token %s","param":%q,"available_connections":[%q]}}`,
			r.Header.Get("Authorization"), r.Header.Get("Authorization"), testBearer)
	})
	ok := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Request-Id", "req_ok")
		_, _ = w.Write([]byte(okBody(r)))
	})
	text := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "upstream said %s", r.Header.Get("Authorization"))
	})
	big := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(bytes.Repeat([]byte("x"), 4096)) })
	slow := blockingServer(t)
	// Only the blocking server needs a short deadline; the others get a
	// long one, so a loaded machine cannot turn their answers into
	// timeouts (the ok server's request id went missing that way once).
	mkWithin := func(base string, timeout time.Duration) *Client {
		return newTestClient(t, base, func(c *Config) {
			c.Logger, c.MaxBodyBytes, c.Timeout = logger, 1024, timeout
		})
	}
	mk := func(base string) *Client { return mkWithin(base, 30*time.Second) }
	var produced []string
	calls := 0
	for _, c := range []*Client{mk(echo.URL), mk(ok.URL), mk(text.URL), mk(big.URL), mkWithin(slow.URL, 100*time.Millisecond), mk("http://127.0.0.1:1")} {
		_, resp, err := c.Records(t.Context(), testBearer, RecordsQuery{Stream: "messages", Cursor: "c1", Filter: Filter{{Field: "q", Value: "secret search"}}})
		calls++
		if err != nil {
			produced = append(produced, err.Error(), fmt.Sprintf("%+v %#v", err, err))
			var e *Error
			if errors.As(err, &e) {
				produced = append(produced, string(e.Envelope), e.Message, e.Param, string(e.AvailableConnections))
			}
		}
		if resp != nil {
			produced = append(produced, string(resp.Body))
		}
	}
	_, _, err := mk(ok.URL).Records(t.Context(), testBearer, RecordsQuery{Stream: "m", Filter: Filter{{Field: "a]"}}})
	produced = append(produced, err.Error())
	produced = append(produced, logs.String())
	for _, s := range produced {
		if strings.Contains(s, testBearer) {
			t.Errorf("bearer leaked in %q", s)
		}
	}
	// One "rs call" line per call; the reachability changes (the silent
	// and the closed RS) add their own lines, checked above for the bearer.
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(l, `"msg":"rs call"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) != calls {
		t.Fatalf("%d log lines for %d calls:\n%s", len(lines), calls, logs.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, `"path":"/v1/streams/messages/records"`) || !strings.Contains(l, `"status":`) ||
			!strings.Contains(l, `"duration":`) || !strings.Contains(l, `"request_id":`) ||
			strings.Contains(l, "secret") || strings.Contains(l, "cursor") || strings.Contains(l, "Authorization") {
			t.Errorf("log line %s: want method/path/status/request_id/duration only, no query, no headers", l)
		}
	}
	if !strings.Contains(logs.String(), `"request_id":"req_ok"`) {
		t.Errorf("logs lack the request id:\n%s", logs.String())
	}
}
