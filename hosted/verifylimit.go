package hosted

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
)

// Defaults for verifying never-seen bearers per client. A known token (its
// verdict cached) costs nothing and is never limited; each unknown one may
// cost an authority call (the RS schema probe, introspection), so a client
// sending fresh random bearers gets a small budget, then 429.
const (
	defaultVerifyRate  = 5 // unknown bearers per second per client
	defaultVerifyBurst = 30
	// verifyClients bounds the per-client limiters held; the oldest go
	// first, so the map cannot grow with the number of addresses seen.
	verifyClients   = 10000
	verifyClientTTL = 10 * time.Minute
)

// verifyLimiter is the per-client budget for verifying unknown bearers.
type verifyLimiter struct {
	limit rate.Limit
	burst int
	byKey *softcache.Cache[*rate.Limiter]
}

func newVerifyLimiter(perSecond float64, burst int, now func() time.Time) *verifyLimiter {
	if perSecond <= 0 {
		perSecond = defaultVerifyRate
	}
	if burst <= 0 {
		burst = defaultVerifyBurst
	}
	return &verifyLimiter{limit: rate.Limit(perSecond), burst: burst,
		byKey: softcache.New[*rate.Limiter](softcache.Options{TTL: verifyClientTTL, MaxEntries: verifyClients, Now: now})}
}

// allow spends one unit of client's budget; false means over budget.
func (l *verifyLimiter) allow(client string) bool {
	lim, err := l.byKey.Get(context.Background(), client, func(context.Context) (*rate.Limiter, time.Time, error) {
		return rate.NewLimiter(l.limit, l.burst), time.Time{}, nil
	})
	return err == nil && lim.Allow()
}

// clientAddr is the address a request is charged to: the peer, or behind a
// trusted proxy the right-most X-Forwarded-For hop that is not itself a
// trusted proxy (left-most entries are whatever the client chose to send).
func (h *hosted) clientAddr(r *http.Request) string {
	peer, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		peer = r.RemoteAddr
	}
	if !h.fromTrustedProxy(r) {
		return peer
	}
	// Right to left, at most maxForwardHops: the header is the client's to
	// make long, and only the last few hops are the proxies'.
	vals, seen := r.Header.Values("X-Forwarded-For"), 0
	for v := len(vals) - 1; v >= 0; v-- {
		for rest, more := vals[v], true; more; {
			hop := rest
			if i := strings.LastIndexByte(rest, ','); i >= 0 {
				hop, rest = rest[i+1:], rest[:i]
			} else {
				more = false
			}
			if seen++; seen > maxForwardHops {
				return peer
			}
			ip, err := netip.ParseAddr(strings.TrimSpace(hop))
			if err != nil {
				return peer // a hop we cannot read: charge the proxy itself
			}
			if !h.trusted(ip.Unmap()) {
				return ip.Unmap().String()
			}
		}
	}
	return peer
}

// maxForwardHops bounds the X-Forwarded-For hops read per request.
const maxForwardHops = 16

// trusted reports whether ip is inside a configured proxy network.
func (h *hosted) trusted(ip netip.Addr) bool {
	for _, p := range h.opts.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
