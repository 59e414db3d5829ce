package hosted_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// newHandler is the hosted handler over a mock RS, for in-process requests
// whose RemoteAddr and Host the test chooses.
func newHandler(t *testing.T, opts hosted.Options) (http.Handler, *testenv.RS) {
	t.Helper()
	rs := testenv.StartRS(t, testenv.Options{})
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return hosted.New(srv, opts), rs
}

// countingReader counts the bytes a handler pulled from a request body.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestHostedRequestChecks: Origin, method, media types and size are
// checked before the bearer is even looked at, and none of them lets a
// request reach the RS.
func TestHostedRequestChecks(t *testing.T) {
	t.Parallel()
	h, rs := newHandler(t, hosted.Options{PublicURL: publicURL, AllowedOrigins: []string{"https://app.example.test/"}, MaxBodyBytes: 4096})
	good := "Bearer " + demodata.GmailToken
	cases := []struct {
		name       string
		method     string
		hdr        map[string]string
		body       string
		wantStatus int
		wantCode   string
	}{
		{"no Origin (non-browser client)", "POST", nil, toolsList, 200, ""},
		{"public origin", "POST", map[string]string{"Origin": publicURL}, toolsList, 200, ""},
		{"allowlisted origin", "POST", map[string]string{"Origin": "https://app.example.test"}, toolsList, 200, ""},
		{"foreign origin", "POST", map[string]string{"Origin": "https://evil.example"}, toolsList, 403, "forbidden_origin"},
		{"foreign origin, no token", "POST", map[string]string{"Origin": "https://evil.example", "Authorization": ""}, toolsList, 403, "forbidden_origin"},
		{"opaque origin", "POST", map[string]string{"Origin": "null"}, toolsList, 403, "forbidden_origin"},
		{"public host, other scheme", "POST", map[string]string{"Origin": "http://mcp.example.test"}, toolsList, 403, "forbidden_origin"},
		{"GET (no SSE stream in stateless mode)", "GET", nil, "", 405, "method_not_allowed"},
		{"GET without a bearer: 401 first", "GET", map[string]string{"Authorization": ""}, "", 401, "authentication_error"},
		{"text/plain without a bearer: 401 first", "POST", map[string]string{"Content-Type": "text/plain", "Authorization": ""}, toolsList, 401, "authentication_error"},
		{"DELETE", "DELETE", nil, "", 405, "method_not_allowed"},
		{"text/plain body", "POST", map[string]string{"Content-Type": "text/plain"}, toolsList, 415, "unsupported_media_type"},
		{"JSON with charset", "POST", map[string]string{"Content-Type": "application/json; charset=utf-8"}, toolsList, 200, ""},
		{"Accept SSE only", "POST", map[string]string{"Accept": "text/event-stream"}, toolsList, 406, "not_acceptable"},
		{"Accept JSON refused by q=0", "POST", map[string]string{"Accept": "application/json;q=0, text/event-stream"}, toolsList, 406, "not_acceptable"},
		{"Accept */*", "POST", map[string]string{"Accept": "*/*"}, toolsList, 200, ""},
		{"no Accept", "POST", map[string]string{"Accept": ""}, toolsList, 200, ""},
		{"oversized declared body", "POST", nil, `{"x":"` + strings.Repeat("a", 5000) + `"}`, 413, "request_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequestWithContext(t.Context(), tc.method, "http://127.0.0.1/mcp", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", good)
			for k, v := range tc.hdr {
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			got := struct {
				Status int
				Code   string
			}{rec.Code, ""}
			if rec.Code != 200 {
				var env struct {
					Error struct{ Code string } `json:"error"`
				}
				_ = json.Unmarshal(rec.Body.Bytes(), &env)
				got.Code = env.Error.Code
			}
			want := struct {
				Status int
				Code   string
			}{tc.wantStatus, tc.wantCode}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nbody: %s", diff, rec.Body)
			}
			if tc.wantStatus == http.StatusMethodNotAllowed {
				if a := rec.Header().Get("Allow"); a != "POST" {
					t.Errorf("Allow = %q, want POST", a)
				}
			}
		})
	}
	// tools/list never needs RS data; only the kind probe may have run.
	for _, r := range rs.Server.Requests() {
		if r.Path != "/v1/schema" {
			t.Errorf("unexpected RS request %s %s", r.Method, r.Path)
		}
	}
}

// TestHostedBodyCap: an oversized body is refused with 413 after reading
// at most the cap (+1 byte), whether or not its length was declared.
func TestHostedBodyCap(t *testing.T) {
	t.Parallel()
	const limit = 1024
	h, _ := newHandler(t, hosted.Options{PublicURL: publicURL, MaxBodyBytes: limit})
	cases := []struct {
		name     string
		declared bool
		maxRead  int64
	}{
		{"declared Content-Length", true, 0},
		{"chunked (undeclared)", false, limit + 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const size = 10 << 20
			body := &countingReader{r: io.LimitReader(zeroReader{}, size)}
			req := httptest.NewRequestWithContext(t.Context(), "POST", "http://127.0.0.1/mcp", body)
			req.ContentLength = -1
			if tc.declared {
				req.ContentLength = size
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+demodata.GmailToken)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d, want 413: %s", rec.Code, rec.Body)
			}
			if n := body.n.Load(); n > tc.maxRead {
				t.Errorf("handler read %d bytes of a %d-byte body; want ≤ %d", n, size, tc.maxRead)
			}
		})
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestHostedOriginWithoutPublicURL: with no configured origin, the derived
// origin is trusted for browsers only on loopback (a rebinding page picks
// the Host header elsewhere), and forwarded headers only from trusted
// proxies.
func TestHostedOriginWithoutPublicURL(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, hosted.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	loopback := netip.MustParseAddrPort("127.0.0.1:7670")
	private := netip.MustParseAddrPort("10.0.0.5:8080")
	cases := []struct {
		name          string
		listener      netip.AddrPort // the address the connection arrived on
		remote, host  string
		fwd           map[string]string
		origin        string
		wantStatus    int
		wantChallenge string
	}{
		{"loopback same origin", loopback, "127.0.0.1:5000", "127.0.0.1:7670", nil, "http://127.0.0.1:7670", 401,
			`Bearer resource_metadata="http://127.0.0.1:7670/.well-known/oauth-protected-resource/mcp"`},
		{"localhost origin on the listener's port", loopback, "127.0.0.1:5000", "localhost:7670", nil, "http://localhost:7670", 401,
			`Bearer resource_metadata="http://127.0.0.1:7670/.well-known/oauth-protected-resource/mcp"`},
		{"loopback origin on another port", loopback, "127.0.0.1:5000", "localhost:7670", nil, "http://localhost:3000", 403, ""},
		// The Host header is never reflected into challenges or
		// metadata; the listener's address is named instead.
		{"Host header not reflected", loopback, "127.0.0.1:5000", "evil.example", nil, "", 401,
			`Bearer resource_metadata="http://127.0.0.1:7670/.well-known/oauth-protected-resource/mcp"`},
		{"rebinding: Origin matches a non-loopback Host", private, "192.0.2.7:5000", "evil.example", nil, "http://evil.example", 403, ""},
		{"untrusted peer's forwarded headers ignored", private, "192.0.2.7:5000", "mcp.internal:8080",
			map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"}, "", 401,
			`Bearer resource_metadata="http://10.0.0.5:8080/.well-known/oauth-protected-resource/mcp"`},
		{"trusted proxy's forwarded headers used", private, "10.1.2.3:5000", "mcp.internal:8080",
			map[string]string{"X-Forwarded-Proto": "https, http", "X-Forwarded-Host": "mcp.example.org"}, "", 401,
			`Bearer resource_metadata="https://mcp.example.org/.well-known/oauth-protected-resource/mcp"`},
		{"an appending proxy: the client's own X-Forwarded-Host is not reflected", private, "10.1.2.3:5000", "mcp.internal:8080",
			map[string]string{"X-Forwarded-For": "198.51.100.1", "X-Forwarded-Host": "evil.example, mcp.example.org"}, "", 401,
			`Bearer resource_metadata="http://mcp.example.org/.well-known/oauth-protected-resource/mcp"`},
		{"two appending proxies: the outer one's entry", private, "10.1.2.3:5000", "mcp.internal:8080",
			map[string]string{"X-Forwarded-For": "198.51.100.1, 10.0.0.2", "X-Forwarded-Host": "evil.example, mcp.example.org, inner.internal:8080"}, "", 401,
			`Bearer resource_metadata="http://mcp.example.org/.well-known/oauth-protected-resource/mcp"`},
		{"a proxy that sets the header: its one entry", private, "10.1.2.3:5000", "mcp.internal:8080",
			map[string]string{"X-Forwarded-For": "198.51.100.1, 10.0.0.2", "X-Forwarded-Host": "mcp.example.org"}, "", 401,
			`Bearer resource_metadata="http://mcp.example.org/.well-known/oauth-protected-resource/mcp"`},
		{"trusted proxy, injected quote ignored", private, "10.1.2.3:5000", "mcp.internal:8080",
			map[string]string{"X-Forwarded-Host": `evil"x`}, "", 401,
			`Bearer resource_metadata="http://10.0.0.5:8080/.well-known/oauth-protected-resource/mcp"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.WithValue(t.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(tc.listener))
			req := httptest.NewRequestWithContext(ctx, "POST", "http://"+tc.host+"/mcp", strings.NewReader(toolsList))
			req.RemoteAddr, req.Host = tc.remote, tc.host
			req.Header.Set("Content-Type", "application/json")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			for k, v := range tc.fwd {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			got := []any{rec.Code, rec.Header().Get("WWW-Authenticate")}
			if diff := cmp.Diff([]any{tc.wantStatus, tc.wantChallenge}, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nbody: %s", diff, rec.Body)
			}
		})
	}
}

// TestHostedRebindingHost: an authorised request that arrived on a
// loopback listener must name a loopback Host (mcp-go's DNS-rebinding
// check, which the door makes before handing the call to mcp-go);
// elsewhere the Host is not checked.
func TestHostedRebindingHost(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, hosted.Options{})
	loopback := netip.MustParseAddrPort("127.0.0.1:7670")
	loopback6 := netip.MustParseAddrPort("[::1]:7670")
	private := netip.MustParseAddrPort("10.0.0.5:8080")
	cases := []struct {
		name       string
		listener   netip.AddrPort
		host       string
		wantStatus int
		wantBody   string // prefix
	}{
		{"loopback listener, loopback Host", loopback, "127.0.0.1:7670", 200, `{"jsonrpc":"2.0"`},
		{"loopback listener, localhost", loopback, "LOCALHOST:7670", 200, `{"jsonrpc":"2.0"`},
		{"IPv6 loopback listener, [::1]", loopback6, "[::1]:7670", 200, `{"jsonrpc":"2.0"`},
		{"loopback listener, foreign Host", loopback, "evil.example", 403, `Forbidden: invalid Host header "evil.example"`},
		{"IPv6 loopback listener, foreign Host", loopback6, "evil.example:7670", 403, `Forbidden: invalid Host header "evil.example:7670"`},
		{"non-loopback listener, any Host", private, "mcp.internal:8080", 200, `{"jsonrpc":"2.0"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.WithValue(t.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(tc.listener))
			req := httptest.NewRequestWithContext(ctx, "POST", "http://"+tc.host+"/mcp", strings.NewReader(toolsList))
			req.RemoteAddr, req.Host = "127.0.0.1:5000", tc.host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+demodata.GmailToken)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != tc.wantStatus || !strings.HasPrefix(body, tc.wantBody) {
				t.Errorf("%d %.120s; want %d %s…", rec.Code, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

// TestHostedMetadata pins the RFC 9728 documents: resource is the MCP
// URL, client tokens only, one endpoint, no profile vocabulary.
func TestHostedMetadata(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		opts    hosted.Options
		wantAS  []string
		pathSfx string
	}{
		{"configured servers, MCP path", hosted.Options{PublicURL: publicURL + "/", AuthorizationServers: []string{"https://as.example.test"}}, []string{"https://as.example.test"}, "/mcp"},
		{"configured servers, root document", hosted.Options{PublicURL: publicURL, AuthorizationServers: []string{"https://as.example.test"}}, []string{"https://as.example.test"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, _ := newHandler(t, tc.opts)
			req := httptest.NewRequestWithContext(t.Context(), "GET", "http://127.0.0.1/.well-known/oauth-protected-resource"+tc.pathSfx, nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("status %d, body %s: %v", rec.Code, rec.Body, err)
			}
			want := map[string]any{
				"resource":                   publicURL + "/mcp",
				"resource_name":              "PDPP MCP adapter",
				"authorization_servers":      []any{tc.wantAS[0]},
				"bearer_methods_supported":   []any{"header"},
				"pdpp_token_kinds_supported": []any{"client"},
				"mcp_endpoint":               publicURL + "/mcp",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
			if strings.Contains(strings.ToLower(rec.Body.String()), "profile") {
				t.Errorf("metadata mentions profiles: %s", rec.Body)
			}
		})
	}
	t.Run("authorization servers from the RS", func(t *testing.T) {
		t.Parallel()
		h, rs := newHandler(t, hosted.Options{PublicURL: publicURL})
		rc, _ := rsclient.New(rsclient.Config{BaseURL: rs.URL})
		prm, _, err := rc.ProtectedResourceMetadata(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), "GET", "http://127.0.0.1/.well-known/oauth-protected-resource/mcp", nil))
		var got struct {
			AS []string `json:"authorization_servers"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &got)
		if diff := cmp.Diff(prm.AuthorizationServers, got.AS); diff != "" || len(got.AS) == 0 {
			t.Errorf("authorization_servers (-rs +adapter):\n%s", diff)
		}
	})
}

// TestKindCheckCost measures the RS calls the kind check costs: one token
// sending 100 requests spread over one minute of (fake) time.
func TestKindCheckCost(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL}, adapter.Config{})
	for range 100 {
		if res := post(t, env.url, "Bearer "+demodata.GmailToken, toolsList, nil); res.Status != 200 {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		env.clock.Advance(600 * time.Millisecond)
	}
	calls := len(rsRequestsWith(env.rs, demodata.GmailToken))
	t.Logf("kind check: %d RS schema calls for 100 requests from one token over 60s", calls)
	if calls < 1 || calls > 2 {
		t.Errorf("kind check made %d RS calls per token-minute; want 1..2 (30s TTL)", calls)
	}
}

// TestHostedAnswersDeclareLength: small and large answers go out with
// their length, never chunked (a chunked answer costs a framing write and
// a final chunk of its own).
func TestHostedAnswersDeclareLength(t *testing.T) {
	t.Parallel()
	env := startHosted(t, hosted.Options{PublicURL: publicURL}, adapter.Config{})
	for _, body := range []string{toolsCallSchema, toolsList} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, env.url+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+demodata.GmailToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		type framing struct {
			Status        int
			ContentLength int64
			Chunked       []string
		}
		if diff := cmp.Diff(framing{200, int64(len(got)), nil}, framing{resp.StatusCode, resp.ContentLength, resp.TransferEncoding}); diff != "" {
			t.Errorf("%.50s: %d-byte answer (-want +got):\n%s", body, len(got), diff)
		}
	}
}

// TestHostedRebindingCostsNoVerification: a rebound request (loopback
// listener, foreign Host) is refused before its bearer is verified, so an
// attacker's page cannot make the adapter probe the RS with tokens.
func TestHostedRebindingCostsNoVerification(t *testing.T) {
	t.Parallel()
	h, rs := newHandler(t, hosted.Options{})
	const unseen = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	ctx := context.WithValue(t.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:7670")))
	req := httptest.NewRequestWithContext(ctx, "POST", "http://evil.example/mcp", strings.NewReader(toolsList))
	req.RemoteAddr, req.Host = "127.0.0.1:5000", "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+unseen)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	for _, r := range rs.Server.Requests() {
		if r.Bearer == unseen {
			t.Errorf("the rebound request's bearer reached the RS: %s %s", r.Method, r.Path)
		}
	}
}
