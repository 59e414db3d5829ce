package hosted

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
)

// Defaults for verifying never-seen bearers. A known token (its verdict
// cached, or a client token vouched for before) is never charged; each
// new one may cost an authority call (the RS schema probe, introspection).
// The budget is spent only by bearers that turn out not to be client
// tokens, per client and across all clients, so many people behind one
// address (a NAT, a hosted connector's egress) signing in are never
// refused while one of them flooding random bearers soon is.
//
// A client is an IPv4 address or an IPv6 prefix (/64 by default: one
// IPv6 host commonly holds a whole /64, so keying by the full address
// would give it 2^64 budgets). A flood from many clients cannot lock out
// everyone else: half of the global budget is reserved for clients
// without a recent failure, which a flooding client never is after its
// first failed check. A client whose bearers the RS served within
// vouchedTTL (a host whose token just rotated: a refresh is a new bearer)
// draws on the reserve freely; a client never seen draws on it one check
// at a time, so a crowd of fresh flooding addresses costs the reserve at
// most one check each before their failures shut them out of it.
const (
	defaultVerifyRate  = 5 // failed new bearers per second per client
	defaultVerifyBurst = 30
	// globalRateFactor and globalBurstFactor size the budget shared by
	// all addresses: many addresses flooding at once cost the authority at
	// most this many times one address's budget.
	globalRateFactor  = 10
	globalBurstFactor = 10
	// reserveShare is the part of the global budget only clients without
	// a recent failure may spend.
	reserveShare = 0.5
	// failureMemory is how long a failed check keeps its client out of
	// the reserve.
	failureMemory = time.Minute
	// DefaultVerifyIPv6Prefix is how many leading bits of an IPv6 address
	// make one client.
	DefaultVerifyIPv6Prefix = 64
	// verifyClients bounds the per-client budgets held; the oldest go
	// first, so the map cannot grow with the number of addresses seen.
	// verifyClientTTL keeps a client's standing (served, failed) past one
	// access-token lifetime (600 s at the reference AS), so the host
	// presenting its refreshed token is still known as served.
	verifyClients   = 10000
	verifyClientTTL = time.Hour
	// vouchedTTL is how long a token verified as a client token is known
	// here, past its 30 s verdict: its re-checks are never charged.
	// vouchedTokens bounds the set (hashes only).
	vouchedTTL    = time.Hour
	vouchedTokens = 1 << 16
	// checkWait bounds how long a new bearer waits for checks under way
	// to free its turn: a crowd of people behind one address signing in at
	// once queues briefly instead of being refused.
	checkWait = 5 * time.Second
)

// verifyLimiter is the budget for verifying new bearers.
type verifyLimiter struct {
	rate       float64
	burst      int
	ipv6Prefix int
	now        func() time.Time
	byKey      *softcache.Cache[*checkBudget]
	global     *checkBudget
	// reserve is how much of the global bucket only clients in good
	// standing may spend.
	reserve float64
	// vouched holds the hashes of tokens verified as client tokens.
	vouched *softcache.Cache[struct{}]
	// served holds the clients the RS served within vouchedTTL, apart
	// from byKey: a flood of ever-new addresses fills and evicts byKey,
	// and must not evict the standing of the hosts it would lock out.
	served *softcache.Cache[struct{}]
}

// checkBudget is one scope's budget: a token bucket of checks, one taken
// before each check (so a burst of new bearers cannot all pass before the
// first failure is counted) and given back when the bearer was a client
// token. While checks are under way a new bearer waits for them rather
// than failing: what they give back may be its turn. golang.org/x/time/rate
// has no exact give-back (Reservation.Cancel restores less once later
// reservations exist), hence this bucket.
type checkBudget struct {
	mu       sync.Mutex
	rate     float64 // tokens per second
	burst    float64
	tokens   float64
	last     time.Time
	inflight int
	// changed is closed (and replaced) whenever a check ends.
	changed chan struct{}
	// The client's standing (per-client budgets only): its last failed
	// and last served check, and its checks under way on the reserve.
	failedAt, servedAt time.Time
	onReserve          int
}

func newCheckBudget(perSecond float64, burst int, now time.Time) *checkBudget {
	return &checkBudget{rate: perSecond, burst: float64(burst), tokens: float64(burst), last: now,
		changed: make(chan struct{})}
}

// take spends one check: at once when the bucket holds one above floor(),
// else after waiting (until ctx ends) for checks under way to end, the
// floor asked again each time (an ended check may have changed the
// caller's standing). It fails at once when none is under way: the budget
// was spent by failures.
func (b *checkBudget) take(ctx context.Context, now func() time.Time, floor func() float64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		t := now()
		if d := t.Sub(b.last); d > 0 {
			b.tokens = min(b.burst, b.tokens+d.Seconds()*b.rate)
			b.last = t
		}
		if b.tokens >= floor()+1 {
			b.tokens--
			b.inflight++
			return true
		}
		if b.inflight == 0 {
			return false
		}
		changed := b.changed
		b.mu.Unlock()
		select {
		case <-changed:
			b.mu.Lock()
		case <-ctx.Done():
			b.mu.Lock()
			return false
		}
	}
}

// end finishes a check taken with take; a client token's check is given
// back.
func (b *checkBudget) end(served bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
	if served {
		b.tokens = min(b.burst, b.tokens+1)
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

func newVerifyLimiter(perSecond float64, burst, ipv6Prefix int, now func() time.Time) *verifyLimiter {
	if perSecond <= 0 {
		perSecond = defaultVerifyRate
	}
	if burst <= 0 {
		burst = defaultVerifyBurst
	}
	if ipv6Prefix <= 0 || ipv6Prefix > 128 {
		ipv6Prefix = DefaultVerifyIPv6Prefix
	}
	if now == nil {
		now = time.Now
	}
	globalBurst := burst * globalBurstFactor
	return &verifyLimiter{rate: perSecond, burst: burst, ipv6Prefix: ipv6Prefix, now: now,
		reserve: float64(globalBurst) * reserveShare,
		global:  newCheckBudget(perSecond*globalRateFactor, globalBurst, now()),
		byKey:   softcache.New[*checkBudget](softcache.Options{TTL: verifyClientTTL, MaxEntries: verifyClients, Now: now}),
		vouched: softcache.New[struct{}](softcache.Options{TTL: vouchedTTL, MaxEntries: vouchedTokens, Now: now}),
		served:  softcache.New[struct{}](softcache.Options{TTL: vouchedTTL, MaxEntries: verifyClients, Now: now})}
}

// isVouched reports whether the token with hash key was verified as a
// client token within vouchedTTL: its re-check costs no budget.
func (l *verifyLimiter) isVouched(key string) bool {
	_, err, ok := l.vouched.Peek(key)
	return ok && err == nil
}

// vouch remembers that the token with hash key is a client token.
func (l *verifyLimiter) vouch(key string) {
	_, _ = l.vouched.Get(context.Background(), key, func(context.Context) (struct{}, time.Time, error) {
		return struct{}{}, time.Time{}, nil
	})
}

// unvouch forgets that the token with hash key is a client token: the RS
// refused it since, so its next re-checks are charged like a stranger's.
func (l *verifyLimiter) unvouch(key string) { l.vouched.Forget(key) }

// begin admits one check of a new bearer from client (an address): false
// (answer 429) when the client or all clients together have no check
// left, and none under way frees one within ctx. Otherwise done must be
// called with whether the bearer was a client token, which gives the
// check back: only bearers that are not client tokens spend the budget.
func (l *verifyLimiter) begin(ctx context.Context, client string) (done func(served bool), ok bool) {
	b, err := l.byKey.Get(context.Background(), l.clientKey(client), func(context.Context) (*checkBudget, time.Time, error) {
		return newCheckBudget(l.rate, l.burst, l.now()), time.Time{}, nil
	})
	if err != nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, checkWait)
	defer cancel()
	if !b.take(ctx, l.now, noFloor) {
		return nil, false
	}
	key := l.clientKey(client)
	floor := func() float64 { return b.reserveFloor(l.now(), l.reserve, l.servedRecently(key)) }
	if !l.global.take(ctx, l.now, floor) {
		b.settle(checkNotRun, false, l.now())
		return nil, false
	}
	onReserve := b.joinReserve(l.now())
	return func(served bool) {
		outcome := checkFailed
		if served {
			outcome = checkServed
		}
		b.settle(outcome, onReserve, l.now())
		if served {
			l.markServed(key)
		}
		l.global.end(served)
	}, true
}

// noFloor lets a per-client bucket be spent to its last check.
func noFloor() float64 { return 0 }

// reserveFloor is how far this client's check may draw the global budget
// down: to empty when the RS served one of its bearers within vouchedTTL
// (a host whose token was just refreshed); to half the reserve for a client
// without a failure and no check on the reserve yet (never seen: a flood
// from ever-new addresses, each fresh until its check fails, can then
// empty no more than half the reserve, and the rest stays for hosts the
// RS served); not into the reserve at all after a failure within
// failureMemory, or while its one check on the reserve is under way.
func (b *checkBudget) reserveFloor(now time.Time, reserve float64, served bool) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.failedRecently(now):
		return reserve
	case served || (!b.servedAt.IsZero() && now.Sub(b.servedAt) < vouchedTTL):
		return 0
	case b.onReserve == 0:
		return reserve / 2
	}
	return reserve
}

// failedRecently reports a failed check within failureMemory.
func (b *checkBudget) failedRecently(now time.Time) bool {
	return !b.failedAt.IsZero() && now.Sub(b.failedAt) < failureMemory
}

// servedRecently reports whether the RS served a bearer of the client
// with key within vouchedTTL.
func (l *verifyLimiter) servedRecently(key string) bool {
	_, err, ok := l.served.Peek(key)
	return ok && err == nil
}

// markServed records that the RS served a bearer of the client with key.
func (l *verifyLimiter) markServed(key string) {
	l.served.Forget(key)
	_, _ = l.served.Get(context.Background(), key, func(context.Context) (struct{}, time.Time, error) {
		return struct{}{}, time.Time{}, nil
	})
}

func (b *checkBudget) standsForReserve(now time.Time) bool {
	switch {
	case !b.failedAt.IsZero() && now.Sub(b.failedAt) < failureMemory:
		return false
	case !b.servedAt.IsZero() && now.Sub(b.servedAt) < vouchedTTL:
		return true
	}
	return b.onReserve == 0
}

// joinReserve counts one more check of this client on the reserve when it
// may spend it (reserveFloor below the whole reserve), and reports
// whether it did.
func (b *checkBudget) joinReserve(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.standsForReserve(now) {
		return false
	}
	b.onReserve++
	return true
}

// checkOutcome is how a client's check ended.
type checkOutcome int

const (
	checkNotRun checkOutcome = iota // refused by the global budget: given back, no news
	checkServed
	checkFailed
)

// settle ends a client's check: its standing records the outcome, and
// end gives back a check that was served or never ran.
func (b *checkBudget) settle(outcome checkOutcome, onReserve bool, now time.Time) {
	b.mu.Lock()
	if onReserve {
		b.onReserve--
	}
	switch outcome {
	case checkServed:
		b.servedAt = now
	case checkFailed:
		b.failedAt = now
	}
	b.mu.Unlock()
	b.end(outcome != checkFailed)
}

// clientKey is the budget a client address is charged to: an IPv4
// address as it is, an IPv6 address by its leading ipv6Prefix bits.
func (l *verifyLimiter) clientKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil || !ip.Is6() || ip.Is4In6() {
		return addr
	}
	p, err := ip.WithZone("").Prefix(l.ipv6Prefix)
	if err != nil {
		return addr
	}
	return p.String()
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
