package contract

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recordingTB captures Errorf calls so a test can assert that the wrappers
// report violations, without failing itself.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// captureHandler answers like the reference RS did for the records capture,
// with drop removed from the headers.
func captureHandler(t *testing.T, drop string, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range rsHeaders() {
			if !strings.EqualFold(k, drop) {
				w.Header()[k] = vs
			}
		}
		if body == nil {
			return // writes nothing: net/http sends 200 with an empty body
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

func TestWrappersReportViolations(t *testing.T) {
	t.Parallel()
	_, _, records := readCapture(t, "rs-raw-records.headers", "rs-raw-records.json")
	const target = "/v1/streams/top_artists/records?limit=1&count=exact"
	cases := []struct {
		name     string
		drop     string
		body     []byte
		path     string
		wantErrs []string // substrings, one per expected report
	}{
		{name: "conforming", body: records, path: target},
		{name: "no Request-Id", drop: "Request-Id", body: records, path: target,
			wantErrs: []string{"GET " + target + " -> 200: response has no Request-Id header"}},
		{name: "empty body", body: nil, path: target,
			wantErrs: []string{"GET " + target + " -> 200"}},
		{name: "undeclared route", body: records, path: "/v1/connectors",
			wantErrs: []string{"GET /v1/connectors -> 200: route not declared"}},
	}
	for _, tc := range cases {
		for _, side := range []string{"server", "client"} {
			t.Run(tc.name+"/"+side, func(t *testing.T) {
				t.Parallel()
				rec := &recordingTB{TB: t}
				handler := captureHandler(t, tc.drop, tc.body)
				client := http.DefaultClient
				if side == "server" {
					handler = Middleware(rec, handler)
				}
				srv := httptest.NewServer(handler)
				defer srv.Close()
				if side == "client" {
					client = &http.Client{Transport: RoundTripper(rec, srv.Client().Transport)}
				}
				resp, err := client.Get(srv.URL + tc.path)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				// The wrappers observe; the client sees the response untouched.
				if diff := cmp.Diff(string(tc.body), string(got)); diff != "" {
					t.Errorf("body changed in transit (-want +got):\n%s", diff)
				}
				srv.Close() // waits for the handler, hence for Middleware's report
				errs := rec.errors()
				if len(errs) != len(tc.wantErrs) {
					t.Fatalf("reports = %q, want %d", errs, len(tc.wantErrs))
				}
				for i, want := range tc.wantErrs {
					if !strings.Contains(errs[i], want) {
						t.Errorf("report %q does not contain %q", errs[i], want)
					}
				}
			})
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type failingBody struct{ io.Reader }

func (failingBody) Close() error { return nil }

// TestRoundTripperPassesTransportFailures: resets and truncated bodies are
// the caller's to handle, not contract violations.
func TestRoundTripperPassesTransportFailures(t *testing.T) {
	t.Parallel()
	errReset := errors.New("connection reset")
	cases := []struct {
		name string
		base roundTripFunc
	}{
		{"round trip fails", func(*http.Request) (*http.Response, error) { return nil, errReset }},
		{"body read fails", func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: rsHeaders(), Request: r,
				Body: failingBody{io.MultiReader(strings.NewReader(`{"obj`), errReader{errReset})}}, nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recordingTB{TB: t}
			client := &http.Client{Transport: RoundTripper(rec, tc.base)}
			resp, err := client.Get("http://rs.test/v1/streams")
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				_ = resp.Body.Close()
			}
			if !errors.Is(err, errReset) {
				t.Errorf("error = %v, want %v", err, errReset)
			}
			if errs := rec.errors(); len(errs) != 0 {
				t.Errorf("transport failure reported as contract violation: %q", errs)
			}
		})
	}
}
