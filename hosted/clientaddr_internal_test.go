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
