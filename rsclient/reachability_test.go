package rsclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// closedURL is the URL of a loopback port nothing listens on any more.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// silentURL is a loopback listener that accepts connections and never
// answers, closed when the test ends.
func silentURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// noDNSTransport resolves every name with a resolver that has no server
// to ask, so the lookup fails as a real one does (a *net.DNSError).
func noDNSTransport() http.RoundTripper {
	resolver := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS server here")
	}}
	dialer := &net.Dialer{Resolver: resolver}
	return &http.Transport{DialContext: dialer.DialContext}
}

// TestUnreachableCauses: each way of failing to reach an RS is named in a
// person's words, and an answer of any status is not "unreachable".
func TestUnreachableCauses(t *testing.T) {
	t.Parallel()
	tlsRS := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsRS.Close)
	plainRS := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(plainRS.Close)
	tests := []struct {
		name      string
		cfg       rsclient.Config
		wantCause string // "" : not unreachable
	}{
		{"connection refused", rsclient.Config{BaseURL: closedURL(t)}, "connection refused"},
		{"DNS failure", rsclient.Config{BaseURL: "http://rs.example.invalid", Transport: noDNSTransport()}, "DNS lookup failed"},
		{"untrusted TLS certificate", rsclient.Config{BaseURL: tlsRS.URL}, "TLS certificate not accepted: x509: certificate signed by unknown authority"},
		{"https to a plain HTTP server", rsclient.Config{BaseURL: strings.Replace(plainRS.URL, "http:", "https:", 1)},
			"TLS handshake failed: the server did not answer in TLS (an http:// server behind an https:// URL?)"},
		{"no answer", rsclient.Config{BaseURL: silentURL(t), Timeout: 200 * time.Millisecond}, "no answer in time"},
		{"a 503 is an answer", rsclient.Config{BaseURL: plainRS.URL}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := rsclient.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = c.ProtectedResourceMetadata(t.Context())
			if err == nil {
				t.Fatal("the call succeeded")
			}
			cause, ok := rsclient.Unreachable(err)
			if ok != (tt.wantCause != "") || cause != tt.wantCause {
				t.Errorf("Unreachable(%v) = %q, %v; want %q", err, cause, ok, tt.wantCause)
			}
			if host := strings.TrimPrefix(strings.TrimPrefix(tt.cfg.BaseURL, "http://"), "https://"); strings.Contains(cause, host) {
				t.Errorf("cause %q names the RS address", cause)
			}
			if got := c.Reachability(); got.Reachable != (tt.wantCause == "") {
				t.Errorf("Reachability() = %+v after %v", got, err)
			}
		})
	}
}

// A caller that cancels or gives itself less time than the client's own
// deadline learns nothing about the RS: the state stays reachable.
func TestReachabilityIgnoresTheCallersDeadline(t *testing.T) {
	t.Parallel()
	c, err := rsclient.New(rsclient.Config{BaseURL: silentURL(t), Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := c.ProtectedResourceMetadata(ctx); err == nil {
		t.Fatal("a silent RS answered")
	}
	if got := c.Reachability(); !got.Reachable {
		t.Errorf("Reachability() = %+v after the caller's own deadline", got)
	}
}

// TestReachabilityLogsEachChangeOnce: calls to a refusing RS log one Warn
// naming the RS and the cause, however many fail; once it answers again,
// one Info; no line repeats while the state holds.
func TestReachabilityLogsEachChangeOnce(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // refused from now on, until the RS below listens again
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, err := rsclient.New(rsclient.Config{BaseURL: "http://" + addr, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := c.ProtectedResourceMetadata(t.Context()); err == nil {
			t.Fatal("a closed port answered")
		}
	}
	if got := c.Reachability(); got.Reachable || got.Cause != "connection refused" || got.Since.IsZero() {
		t.Errorf("while refused: Reachability() = %+v", got)
	}

	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port %s was taken meanwhile: %v", addr, err)
	}
	rs := httptest.NewUnstartedServer(http.NotFoundHandler())
	rs.Listener.Close()
	rs.Listener = ln
	rs.Start()
	t.Cleanup(rs.Close)
	for range 3 {
		_, _, _ = c.ProtectedResourceMetadata(t.Context()) // a 404 is an answer
	}
	if got := c.Reachability(); !got.Reachable || got.Cause != "" {
		t.Errorf("after answers: Reachability() = %+v", got)
	}

	type line struct{ Level, Msg, RS, Cause string }
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec line
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		got = append(got, rec)
	}
	want := []line{
		{"WARN", "resource server unreachable", "http://" + addr, "connection refused"},
		{"INFO", "resource server reachable again", "http://" + addr, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s\nlog:\n%s", diff, logs.String())
	}
}
