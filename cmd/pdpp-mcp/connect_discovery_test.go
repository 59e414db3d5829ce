package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Discovery URLs put the well-known segment between host and path, and
// issuers differ only by loopback host names are one issuer (the
// reference RS names its AS localhost while the AS says 127.0.0.1).
func TestDiscoveryURLs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ base, want string }{
		{"http://127.0.0.1:17663", "http://127.0.0.1:17663/.well-known/oauth-protected-resource"},
		{"https://rs.example/tenant/", "https://rs.example/.well-known/oauth-protected-resource/tenant"},
	} {
		if got, err := wellKnownURL(tc.base, "oauth-protected-resource"); err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.base, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://localhost:17662", "http://127.0.0.1:17662", true},
		{"http://127.0.0.1:17662/", "http://127.0.0.1:17662", true},
		{"http://[::1]:17662", "http://localhost:17662", true},
		{"http://localhost:17662", "http://127.0.0.1:17663", false},
		{"https://localhost:17662", "http://localhost:17662", false},
		{"https://as.example", "https://evil.example", false},
		{"https://as.example", "http://127.0.0.1", false},
	} {
		if got := sameIssuer(tc.a, tc.b); got != tc.same {
			t.Errorf("sameIssuer(%q, %q) = %t", tc.a, tc.b, got)
		}
	}
}

// FuzzDiscoveryURLs: no input panics; a metadata URL is always on the
// base's own origin under /.well-known/; sameIssuer is symmetric.
func FuzzDiscoveryURLs(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:1", "https://a.example/p/", "http://localhost:2", "://", "http://[::1]:3/x?y#z"} {
		f.Add(s, "http://127.0.0.1:1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if u, err := wellKnownURL(a, "oauth-authorization-server"); err == nil && !strings.Contains(u, "/.well-known/oauth-authorization-server") {
			t.Errorf("wellKnownURL(%q) = %q", a, u)
		}
		if sameIssuer(a, b) != sameIssuer(b, a) {
			t.Errorf("sameIssuer(%q, %q) is not symmetric", a, b)
		}
		_ = secureEndpoint(a)
	})
}

// Discovery refuses what connect cannot sign in with, naming why: a
// metadata document for another resource, another issuer, no S256, no
// registration, a plain-http endpoint off loopback.
func TestDiscoveryRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		prm  func(rs, as string) string
		as   func(as string) string
		want string
	}{
		{"works", nil, nil, ""},
		{"another resource", func(_, as string) string {
			return `{"resource":"https://other.example","authorization_servers":["` + as + `"]}`
		}, nil, "names another resource"},
		{"no authorization server", func(rs, _ string) string { return `{"resource":"` + rs + `"}` }, nil, "names no authorization server"},
		{"another issuer", nil, func(as string) string {
			return strings.Replace(goodAS(as), `"issuer":"`+as+`"`, `"issuer":"https://evil.example"`, 1)
		}, "names issuer"},
		{"no S256", nil, func(as string) string { return strings.Replace(goodAS(as), `"S256"`, `"plain"`, 1) }, "PKCE S256"},
		{"no registration", nil, func(as string) string {
			return strings.Replace(goodAS(as), `"registration_endpoint":"`+as+`/register",`, "", 1)
		}, "no dynamic client registration"},
		{"plain http off loopback", nil, func(as string) string {
			return strings.Replace(goodAS(as), `"token_endpoint":"`+as+`/token"`, `"token_endpoint":"http://as.example/token"`, 1)
		}, "neither https nor"},
		{"plain-http authorization server off loopback", func(rs, _ string) string {
			return `{"resource":"` + rs + `","authorization_servers":["http://as.example"]}`
		}, nil, "connect signs in only over https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mux := http.NewServeMux()
			srv := httptest.NewServer(mux)
			defer srv.Close()
			rs, as := srv.URL, srv.URL+"/as"
			mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, _ *http.Request) {
				body := `{"resource":"` + rs + `","authorization_servers":["` + as + `"]}`
				if tc.prm != nil {
					body = tc.prm(rs, as)
				}
				io.WriteString(w, body)
			})
			mux.HandleFunc("/.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, _ *http.Request) {
				body := goodAS(as)
				if tc.as != nil {
					body = tc.as(as)
				}
				io.WriteString(w, body)
			})
			got, err := discoverAuthServer(t.Context(), srv.Client(), rs)
			switch {
			case tc.want == "" && (err != nil || got.TokenEndpoint != as+"/token"):
				t.Errorf("%v %+v", err, got)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// An https authorization server may not name a plain-http endpoint, not
// even on this machine: whatever listens on that loopback port would get
// the code and its verifier.
func TestDiscoveryRefusesHTTPEndpointOfHTTPSServer(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	rs, as := srv.URL, srv.URL+"/as"
	mux.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"resource":"`+rs+`","authorization_servers":["`+as+`"]}`)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, strings.Replace(goodAS(as), `"token_endpoint":"`+as+`/token"`, `"token_endpoint":"http://127.0.0.1:1/token"`, 1))
	})
	if _, err := discoverAuthServer(t.Context(), srv.Client(), rs); err == nil || !strings.Contains(err.Error(), "token_endpoint") {
		t.Errorf("error %v, want the plain-http token_endpoint refused", err)
	}
	good := http.NewServeMux()
	gs := httptest.NewTLSServer(good)
	defer gs.Close()
	good.HandleFunc("/.well-known/oauth-protected-resource", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"resource":"`+gs.URL+`","authorization_servers":["`+gs.URL+`/as"]}`)
	})
	good.HandleFunc("/.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, goodAS(gs.URL+"/as"))
	})
	if _, err := discoverAuthServer(t.Context(), gs.Client(), gs.URL); err != nil {
		t.Errorf("an https server with https endpoints: %v", err)
	}
}

func goodAS(as string) string {
	return `{"issuer":"` + as + `","authorization_endpoint":"` + as + `/authorize","token_endpoint":"` + as + `/token",` +
		`"registration_endpoint":"` + as + `/register","code_challenge_methods_supported":["S256"]}`
}
