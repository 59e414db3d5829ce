package contract

import (
	"bytes"
	"net/http"
	"testing"
)

// Middleware wraps next (typically the mock RS) so that every response it
// writes is validated after the handler returns; each invalid one is
// reported with t.Errorf naming method, path, status and the mismatch. The
// response still reaches the client unchanged. Do not use it around fault
// injection that sends malformed bodies on purpose.
func Middleware(t testing.TB, next http.Handler) http.Handler {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatalf("contract: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Clone first: the URL the client asked for is what gets routed,
		// whatever the handler does to r afterwards.
		req := r.Clone(r.Context())
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if !rec.wroteHeader {
			// net/http answers 200 with no body when a handler writes nothing.
			rec.WriteHeader(http.StatusOK)
		}
		if err := v.ValidateExchange(req, rec.status, rec.header, rec.body.Bytes()); err != nil {
			t.Errorf("contract violation: %v", err)
		}
	})
}

// recorder passes a response through while keeping a copy of its status,
// headers (as of WriteHeader) and body.
type recorder struct {
	http.ResponseWriter
	wroteHeader bool
	status      int
	header      http.Header
	body        bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if r.wroteHeader {
		return
	}
	r.wroteHeader = true
	r.status = status
	r.header = r.ResponseWriter.Header().Clone()
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

// Flush keeps streaming handlers working behind the middleware.
func (r *recorder) Flush() {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
