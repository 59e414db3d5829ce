package rsclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base    string
		want    string // "" → error expected
		timeout time.Duration
	}{
		{"http://127.0.0.1:7663", "http://127.0.0.1:7663", 0},
		{"http://RS.Example:7663/some/prefix?x=1#frag", "http://rs.example:7663", 0},
		{"https://rs.example/", "https://rs.example", 0},
		{"  https://rs.example/v1  ", "https://rs.example", 0},
		{"", "", 0},
		{"rs.example:7663", "", 0},
		{"/v1", "", 0},
		{"ftp://rs.example", "", 0},
		{"http://", "", 0},
		{"http://:80", "", 0},
		{"http://user:s3cret@rs.example", "", 0},
		{"http://rs.example", "", -time.Second},
	}
	for _, tt := range tests {
		c, err := New(Config{BaseURL: tt.base, Timeout: tt.timeout})
		if tt.want == "" {
			if err == nil {
				t.Errorf("New(%q) succeeded, want error", tt.base)
			} else if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("New(%q) error leaks credentials: %v", tt.base, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%q): %v", tt.base, err)
			continue
		}
		if got := c.BaseURL(); got != tt.want {
			t.Errorf("New(%q).BaseURL() = %q, want %q", tt.base, got, tt.want)
		}
	}
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "grant-a"})
		_, _ = w.Write([]byte(okBody))
	})
	c := newTestClient(t, srv.URL, func(c *Config) { c.PDPPVersion = "2026-04-06"; c.UserAgent = "pdpp-mcp/test" })
	if _, _, err := c.Records(t.Context(), testBearer, RecordsQuery{Stream: "messages"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Records(t.Context(), "other-grant-token", RecordsQuery{Stream: "messages"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ProtectedResourceMetadata(t.Context()); err != nil {
		t.Fatal(err)
	}
	type seen struct{ Method, Auth, Accept, UA, Version, Cookie string }
	var got []seen
	for _, r := range srv.requests() {
		got = append(got, seen{r.Method, r.Header.Get("Authorization"), r.Header.Get("Accept"),
			r.Header.Get("User-Agent"), r.Header.Get("PDPP-Version"), r.Header.Get("Cookie")})
	}
	want := []seen{
		{"GET", "Bearer " + testBearer, "application/json", "pdpp-mcp/test", "2026-04-06", ""},
		{"GET", "Bearer other-grant-token", "application/json", "pdpp-mcp/test", "2026-04-06", ""}, // no cookie carried across grants
		{"GET", "", "application/json", "pdpp-mcp/test", "2026-04-06", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	def := newTestClient(t, srv.URL)
	if _, _, err := def.Streams(t.Context(), testBearer, StreamsQuery{}); err != nil {
		t.Fatal(err)
	}
	last := srv.requests()[3]
	if ua, v := last.Header.Get("User-Agent"), last.Header.Values("PDPP-Version"); ua != DefaultUserAgent || len(v) != 0 {
		t.Errorf("defaults: User-Agent %q, PDPP-Version %q; want %q and none", ua, v, DefaultUserAgent)
	}
}

func TestBearerRefusedWithoutRequest(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(okBody)) })
	c := newTestClient(t, srv.URL)
	tests := []struct {
		bearer string
		want   error
	}{
		{"", ErrNoBearer},
		{"abc def", ErrInvalidBearer},
		{"abc\r\nX-Evil: 1", ErrInvalidBearer},
		{"tökén", ErrInvalidBearer},
	}
	for _, tt := range tests {
		_, resp, err := c.Streams(t.Context(), tt.bearer, StreamsQuery{})
		if !errors.Is(err, tt.want) || resp != nil {
			t.Errorf("bearer %q: err = %v, resp = %v; want %v, nil", tt.bearer, err, resp, tt.want)
		}
		if tt.bearer != "" && strings.Contains(err.Error(), tt.bearer) {
			t.Errorf("error %q quotes the bearer", err)
		}
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests made, want 0", n)
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"Request-Id", http.Header{"Request-Id": {"req_0123456789abcdef"}}, "req_0123456789abcdef"},
		{"x-request-id is not the RS header", http.Header{"X-Request-Id": {"req_x"}}, ""},
		{"none", http.Header{}, ""},
	}
	for _, tt := range tests {
		srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
			for k, v := range tt.header {
				w.Header()[k] = v
			}
			_, _ = w.Write([]byte(okBody))
		})
		_, resp, err := newTestClient(t, srv.URL).Streams(t.Context(), testBearer, StreamsQuery{})
		if err != nil || resp.RequestID != tt.want {
			t.Errorf("%s: RequestID = %q, %v; want %q", tt.name, resp.RequestID, err, tt.want)
		}
	}
}

func TestErrorAnswerThroughClient(t *testing.T) {
	t.Parallel()
	capt := loadCapture(t, "rs-raw-no-token")
	srv := newRecorder(t, serveCapture(capt))
	_, resp, err := newTestClient(t, srv.URL).Records(t.Context(), testBearer, RecordsQuery{Stream: "top_artists"})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if e.Status != 401 || e.Code != "authentication_error" || e.RequestID != "req_18280f52695d35ac" || string(e.Envelope) != string(innerError(t, capt.body)) {
		t.Errorf("Error = %+v", e)
	}
	if resp == nil || resp.Status != 401 || !bytes.Equal(resp.Body, capt.body) || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("Response = %+v, want the 401 answer with its headers and body", resp)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retries)", n)
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	const limit = 1024
	body := func(n int) []byte { // a valid JSON list padded to exactly n bytes
		b := []byte(`{"data":[],"pad":"`)
		b = append(b, bytes.Repeat([]byte("x"), n-len(b)-2)...)
		return append(b, '"', '}')
	}
	tests := []struct {
		name    string
		status  int
		size    int
		wantErr bool
	}{
		{"at limit", 200, limit, false},
		{"one over", 200, limit + 1, true},
		{"error body over", 500, limit + 1, true},
		{"far over", 200, 8 << 20, true},
	}
	for _, tt := range tests {
		srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tt.status)
			_, _ = w.Write(body(tt.size))
		})
		c := newTestClient(t, srv.URL, func(c *Config) { c.MaxBodyBytes = limit })
		list, resp, err := c.Streams(t.Context(), testBearer, StreamsQuery{})
		if !tt.wantErr {
			if err != nil || list == nil || len(resp.Body) != limit {
				t.Errorf("%s: %v, %d bytes", tt.name, err, len(resp.Body))
			}
			continue
		}
		var te *TransportError
		if !errors.As(err, &te) || te.Code != CodeResponseTooLarge {
			t.Errorf("%s: err = %v, want %s", tt.name, err, CodeResponseTooLarge)
			continue
		}
		if list != nil || resp == nil || resp.Status != tt.status || resp.Body != nil {
			t.Errorf("%s: list %v, resp %+v; want nil list, status kept, no body", tt.name, list, resp)
		}
	}
}

// blockingServer answers only after release (or the client gives up).
func blockingServer(t *testing.T) *recorder {
	release := make(chan struct{})
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	return srv
}

func TestDeadlines(t *testing.T) {
	t.Parallel()
	srv := blockingServer(t)
	short := newTestClient(t, srv.URL, func(c *Config) { c.Timeout = 50 * time.Millisecond })
	long := newTestClient(t, srv.URL, func(c *Config) { c.Timeout = time.Minute })
	ctxDeadline, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	canceled, cancelNow := context.WithCancel(t.Context())
	cancelNow()
	tests := []struct {
		name     string
		c        *Client
		ctx      context.Context
		wantCode string
		wantIs   error
	}{
		{"config timeout", short, t.Context(), CodeTimeout, context.DeadlineExceeded},
		{"context deadline earlier", long, ctxDeadline, CodeTimeout, context.DeadlineExceeded},
		{"caller canceled", long, canceled, CodeUnavailable, context.Canceled},
	}
	for _, tt := range tests {
		start := time.Now()
		_, resp, err := tt.c.Streams(tt.ctx, testBearer, StreamsQuery{})
		var te *TransportError
		if !errors.As(err, &te) || te.Code != tt.wantCode || !errors.Is(err, tt.wantIs) || resp != nil {
			t.Errorf("%s: err = %v, resp = %v; want %s wrapping %v", tt.name, err, resp, tt.wantCode, tt.wantIs)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", tt.name, d)
		}
	}
}

func TestUnavailable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	ln.Close()
	reset := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // RST instead of FIN
			}
			conn.Close()
		}
	})
	for _, base := range []string{"http://" + closedAddr, reset.URL} {
		_, resp, err := newTestClient(t, base).Streams(t.Context(), testBearer, StreamsQuery{})
		var te *TransportError
		if !errors.As(err, &te) || te.Code != CodeUnavailable || resp != nil {
			t.Errorf("%s: err = %v, want %s", base, err, CodeUnavailable)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: unavailable reported as a deadline", base)
		}
	}
	if n := len(reset.requests()); n != 1 {
		t.Errorf("reset server saw %d requests, want 1 (no retries)", n)
	}
}

func TestRedirectsNotFollowed(t *testing.T) {
	t.Parallel()
	other := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(okBody)) })
	var location string
	rs := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", location)
		w.Header().Set("Request-Id", "req_redirect")
		w.WriteHeader(http.StatusFound)
	})
	tests := []struct {
		location string
		offsite  bool
	}{
		{other.URL + "/v1/streams", true},
		{"//" + strings.TrimPrefix(other.URL, "http://") + "/v1/streams", true},
		{strings.Replace(rs.URL, "http://", "https://", 1) + "/v1/streams", true},
		{rs.URL + "/v1/streams?page=2", false},
		{"/v1/streams?page=2", false},
	}
	for _, tt := range tests {
		location = tt.location
		c := newTestClient(t, rs.URL)
		_, resp, err := c.Streams(t.Context(), testBearer, StreamsQuery{})
		var te *TransportError
		var e *Error
		switch {
		case tt.offsite && !(errors.As(err, &te) && te.Code == CodeOffOrigin):
			t.Errorf("%s: err = %v, want %s", tt.location, err, CodeOffOrigin)
		case !tt.offsite && !(errors.As(err, &e) && e.Status == http.StatusFound && e.RequestID == "req_redirect"):
			t.Errorf("%s: err = %v, want *Error 302", tt.location, err)
		}
		if resp == nil || resp.Status != http.StatusFound {
			t.Errorf("%s: resp = %+v, want the 302", tt.location, resp)
		}
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("redirect target received %d requests", n)
	}
	if n := len(rs.requests()); n != len(tests) {
		t.Errorf("RS received %d requests, want %d (redirects not followed)", n, len(tests))
	}
}

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
	ok := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Request-Id", "req_ok")
		_, _ = w.Write([]byte(okBody))
	})
	text := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "upstream said %s", r.Header.Get("Authorization"))
	})
	big := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(bytes.Repeat([]byte("x"), 4096)) })
	slow := blockingServer(t)
	mk := func(base string) *Client {
		return newTestClient(t, base, func(c *Config) {
			c.Logger, c.MaxBodyBytes, c.Timeout = logger, 1024, 100*time.Millisecond
		})
	}
	var produced []string
	calls := 0
	for _, c := range []*Client{mk(echo.URL), mk(ok.URL), mk(text.URL), mk(big.URL), mk(slow.URL), mk("http://127.0.0.1:1")} {
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
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
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
