package testenv

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync"
)

// ReplayOnce wraps an RS handler (Options.Raw) so that each distinct
// request (method, URL, bearer) reaches it once and is replayed byte for
// byte afterwards. Benchmarks use it to measure the adapter and the
// loopback exchange, not the mock building and encoding a page. The key
// ignores request bodies (the RS API is GET only) and replays share the
// recorded header values: for benchmarks, not for tests that mutate.
func ReplayOnce(next http.Handler) http.Handler {
	type answer struct {
		status int
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	seen := map[string]answer{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.String() + " " + r.Header.Get("Authorization")
		mu.Lock()
		a, ok := seen[key]
		mu.Unlock()
		if !ok {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			a = answer{status: rec.Code, header: rec.Header().Clone(), body: bytes.Clone(rec.Body.Bytes())}
			mu.Lock()
			seen[key] = a
			mu.Unlock()
		}
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	})
}
