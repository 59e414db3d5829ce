package rstest

import (
	"encoding/json"
	"github.com/pdpp/pdpp-mcp/internal/contract"
	"github.com/pdpp/pdpp-mcp/internal/golden"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Test bearers.
const (
	ownerTok   = "0000000000000000000000000000000000000000000000000000000000000001"
	gmailTok   = "1111111111111111111111111111111111111111111111111111111111111111"
	slackTok   = "2222222222222222222222222222222222222222222222222222222222222222"
	revokedTok = "3333333333333333333333333333333333333333333333333333333333333333"
	expiredGr  = "4444444444444444444444444444444444444444444444444444444444444444"
	invalidGr  = "5555555555555555555555555555555555555555555555555555555555555555"
	staleTok   = "6666666666666666666666666666666666666666666666666666666666666666"
	unknownTok = "7777777777777777777777777777777777777777777777777777777777777777"
	spotifyTok = "8888888888888888888888888888888888888888888888888888888888888888"
	connA      = "cin_3f9a1c0e5b7d2a4c6e8f0a1b"
	connB      = "cin_7b2e4d6f8a0c1e3a5b7d9f0c"
	connSlack  = "cin_5c0e1a2b3d4f5a6b7c8d9e0f"
	connSpot   = "cin_59226620542ff12acd3c7699"
)

// newTestServer is the single place tests build a server, so response
// validation middleware can be wired in once.
func newTestServer(t *testing.T, ds *Dataset, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(ds, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	// Every response is validated against openapi.yaml, except under fault
	// injection, whose malformed bodies are the point.
	var h http.Handler = s
	if opts.Faults == nil {
		h = contract.Middleware(t, s)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return s, ts
}

// resp is a decoded response.
type resp struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// get performs a GET with an optional bearer.
func get(t *testing.T, base, path, tok string) resp {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return do(t, req)
}

// do sends a request and decodes its JSON body.
func do(t *testing.T, req *http.Request) resp {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := resp{status: res.StatusCode, header: res.Header, raw: raw}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			t.Fatalf("%s: body is not JSON: %v: %s", req.URL, err, raw)
		}
	}
	return r
}

// errCode extracts error.code and error.param.
func (r resp) errCode() (string, string) {
	e, _ := r.body["error"].(map[string]any)
	code, _ := e["code"].(string)
	param, _ := e["param"].(string)
	return code, param
}

// at walks a decoded body by keys and indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// jsonGolden compares got with testdata/<name>, rewriting it under -update.
// A missing golden file fails.
func jsonGolden(t *testing.T, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	want := golden.Read(t, path, append(b, '\n'))
	var w, g any
	_ = json.Unmarshal(want, &w)
	_ = json.Unmarshal(b, &g)
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

// statusCase is one request and the status, error code and param it must
// get back (code and param empty on success).
type statusCase struct {
	name, path, tok string
	status          int
	code, param     string
}

// checkStatusCases runs each case as a parallel subtest against url.
func checkStatusCases(t *testing.T, url string, tests []statusCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := get(t, url, tc.path, tc.tok)
			code, param := r.errCode()
			if r.status != tc.status || code != tc.code || param != tc.param {
				t.Errorf("got %d %s/%s, want %d %s/%s: %s", r.status, code, param, tc.status, tc.code, tc.param, r.raw)
			}
		})
	}
}
