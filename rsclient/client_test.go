package rsclient

import (
	"bytes"
	"errors"
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
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "grant-a"})
		_, _ = w.Write([]byte(okBody(r)))
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
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(okBody(r))) })
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
		srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			for k, v := range tt.header {
				w.Header()[k] = v
			}
			_, _ = w.Write([]byte(okBody(r)))
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
