package rsclient

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pdpp/pdpp-mcp/internal/golden"
)

// testBearer is a realistic 64-hex client token; tests grep every output
// for it.
const testBearer = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

// capture is one recorded RS answer from testdata/captures.
type capture struct {
	status int
	header http.Header
	body   []byte
}

// loadCapture parses <name>.headers (raw HTTP/1.1 head) + <name>.json.
func loadCapture(t testing.TB, name string) capture {
	t.Helper()
	head, err := os.ReadFile(filepath.Join("testdata", "captures", name+".headers"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join("testdata", "captures", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(head), bytes.NewReader(body))), nil)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return capture{status: resp.StatusCode, header: resp.Header, body: got}
}

// recorder is an httptest server that replays a handler and records every
// request it saw.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newRecorder(t testing.TB, h http.HandlerFunc) *recorder {
	t.Helper()
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Clone(req.Context()))
		r.mu.Unlock()
		h(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.reqs...)
}

// serveCapture answers every request with the capture's status, headers
// and body.
func serveCapture(c capture) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, vs := range c.header {
			if k == "Content-Length" || k == "Connection" {
				continue
			}
			w.Header()[k] = vs
		}
		w.WriteHeader(c.status)
		_, _ = w.Write(c.body)
	}
}

func newTestClient(t testing.TB, base string, mod ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: base}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkGolden compares got with testdata/<name>; -update rewrites it. A
// missing golden file fails.
func checkGolden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	return golden.Read(t, path, got)
}

func intp(n int) *int { return &n }
