package contract

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// RoundTripper wraps base (http.DefaultTransport when nil) so that every
// response the client receives is validated against openapi.yaml; each
// invalid one is reported with t.Errorf naming method, path, status and the
// mismatch. The body is read in full and handed back unchanged. Transport
// failures pass through unvalidated: they are not contract questions.
func RoundTripper(t testing.TB, base http.RoundTripper) http.RoundTripper {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("contract: %v", err)
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{t: t, v: v, base: base}
}

type roundTripper struct {
	t    testing.TB
	v    *Validator
	base http.RoundTripper
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, readErr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if readErr != nil {
		// A broken body (reset, truncation) is the caller's to see, at the
		// same point it would have seen it without this wrapper.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{readErr}))
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := rt.v.ValidateExchange(req, resp.StatusCode, resp.Header, body); err != nil {
		rt.t.Errorf("contract violation: %v", err)
	}
	return resp, nil
}

// errReader replays a read error after the bytes that did arrive.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
