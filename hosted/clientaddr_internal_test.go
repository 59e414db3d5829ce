package hosted

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestClientAddr: behind a trusted proxy a request is charged to the
// right-most untrusted X-Forwarded-For hop, read right to left over
// repeated headers, and at most maxForwardHops deep (past that, or at an
// unreadable hop, the proxy itself is charged).
func TestClientAddr(t *testing.T) {
	t.Parallel()
	h := &hosted{opts: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	deep := strings.TrimSuffix(strings.Repeat("10.0.0.9,", maxForwardHops), ",")
	cases := []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"untrusted peer: its own address", "192.0.2.7:5000", []string{"198.51.100.1"}, "192.0.2.7"},
		{"one hop", "10.1.2.3:5000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"trusted hops skipped", "10.1.2.3:5000", []string{"203.0.113.9, 198.51.100.1, 10.0.0.2"}, "198.51.100.1"},
		{"repeated headers, last first", "10.1.2.3:5000", []string{"203.0.113.9", "198.51.100.1, 10.0.0.2"}, "198.51.100.1"},
		{"unreadable hop", "10.1.2.3:5000", []string{"198.51.100.1, bogus"}, "10.1.2.3"},
		{"empty hop", "10.1.2.3:5000", []string{"198.51.100.1,"}, "10.1.2.3"},
		{"within the hop bound", "10.1.2.3:5000", []string{"198.51.100.1, " + strings.TrimSuffix(strings.Repeat("10.0.0.9,", maxForwardHops-1), ",")}, "198.51.100.1"},
		{"past the hop bound", "10.1.2.3:5000", []string{"198.51.100.1, " + deep}, "10.1.2.3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("POST", "http://mcp.internal/mcp", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := h.clientAddr(r); got != tc.want {
				t.Errorf("clientAddr = %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzForwardedHost: whatever the forwarded headers, the host read is ""
// or one X-Forwarded-Host entry, never one further left than the trusted
// hops allow.
func FuzzForwardedHost(f *testing.F) {
	f.Add("evil.example, mcp.example.org", "198.51.100.1")
	f.Add("a,b,c", "198.51.100.1, 10.0.0.2, 10.0.0.3")
	f.Add("", "")
	f.Add(strings.Repeat("x,", 40), "bogus")
	h := &hosted{opts: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	f.Fuzz(func(t *testing.T, xfh, xff string) {
		r := httptest.NewRequest("POST", "http://mcp.internal/mcp", nil)
		r.RemoteAddr = "10.1.2.3:5000"
		r.Header.Set("X-Forwarded-Host", xfh)
		r.Header.Set("X-Forwarded-For", xff)
		got := h.forwardedHost(r)
		entries := strings.Split(xfh, ",")
		if got == "" {
			return
		}
		hops := h.trustedForwardHops(r)
		for i := len(entries) - 1; i >= 0 && i >= len(entries)-1-hops; i-- {
			if got == strings.ToLower(strings.TrimSpace(entries[i])) {
				return
			}
		}
		t.Fatalf("X-Forwarded-Host %q, X-Forwarded-For %q: read %q, not an entry the proxies wrote", xfh, xff, got)
	})
}
