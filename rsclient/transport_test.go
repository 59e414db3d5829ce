package rsclient

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

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
		{"caller canceled", long, canceled, CodeCancelled, context.Canceled},
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
	other := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(okBody(r))) })
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
