package main

import (
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
