package hosted

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A token the RS refused after it was vouched for is charged again: the
// vouch is forgotten with the refusal.
func TestRefusedTokenIsNoLongerVouched(t *testing.T) {
	t.Parallel()
	l := newVerifyLimiter(5, 30, 0, time.Now)
	l.vouch("k")
	if !l.isVouched("k") {
		t.Fatal("a vouched token is not vouched")
	}
	l.unvouch("k")
	if l.isVouched("k") {
		t.Error("a refused token is still vouched: its re-checks would skip the budget")
	}
}

// noWait is a context already done: a check that would wait for others
// to end is refused at once (counted as refused, which a real request
// waiting up to checkWait need not be), so these tests never block.
var noWait = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// fakeClock is a clock tests advance by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func ipv6In64(prefix string, i int) string {
	return fmt.Sprintf("%s:%x:%x:%x:%x", prefix, i>>12, i&0xfff, i*7, i*13)
}
func ipv4Flooder(i int) string { return fmt.Sprintf("198.51.100.%d", i+1) }

// floodOutcome counts what a flood and a newcomer's valid tokens got.
type floodOutcome struct {
	NewAdmitted int // of 12 new valid tokens from another client
	FloodChecks int // failed checks the flood got admitted (authority calls)
}

// runFlood floods from addrs (each bearer fails), while another client
// brings 12 new valid tokens, one after every flood round; each round the
// clock moves 100 ms. With inflight, flood checks are left under way (a
// slow authority) instead of failing at once, up to the per-client burst
// each.
func runFlood(l *verifyLimiter, clock *fakeClock, addrs []string, newcomer string, inflight bool) floodOutcome {
	var out floodOutcome
	var pending []func(bool)
	for round := range 12 {
		for _, a := range addrs {
			for range 40 { // more than any one budget holds
				done, ok := l.begin(noWait, a)
				if !ok {
					break
				}
				out.FloodChecks++
				if inflight && len(pending) < 30*len(addrs) {
					pending = append(pending, done)
					continue
				}
				done(false)
			}
		}
		if done, ok := l.begin(noWait, newcomer); ok {
			out.NewAdmitted++
			done(true)
		}
		_ = round
		clock.add(100 * time.Millisecond)
	}
	for _, done := range pending {
		done(false)
	}
	return out
}

// A flood from many clients cannot lock out new clients: during a flood
// from 40 IPv4 addresses, and one from 1,000 addresses of one IPv6 /64,
// at least 11 of 12 new valid tokens from another client are admitted,
// and the flood's authority calls stay within the global budget (burst +
// rate × time). The clock is injected: the outcome is counts only.
func TestFloodLeavesNewClientsTheReserve(t *testing.T) {
	t.Parallel()
	var v4, v6 []string
	for i := range 40 {
		v4 = append(v4, ipv4Flooder(i))
	}
	for i := range 1000 {
		v6 = append(v6, ipv6In64("2001:db8:7:9", i))
	}
	cases := []struct {
		name     string
		addrs    []string
		newcomer string
		inflight bool
	}{
		{"40 IPv4 addresses", v4, "203.0.113.50", false},
		{"40 IPv4 addresses, checks under way", v4, "203.0.113.50", true},
		{"one IPv6 /64", v6, "2001:db8:ffff::1", false},
		{"both at once, a new IPv6 client", append(slices.Clone(v4), v6...), "2001:db8:ffff::1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			l := newVerifyLimiter(defaultVerifyRate, defaultVerifyBurst, 0, clock.now)
			got := runFlood(l, clock, tc.addrs, tc.newcomer, tc.inflight)
			// 12 rounds of 100 ms: the global budget's burst plus 1.2 s of its rate.
			bound := defaultVerifyBurst*globalBurstFactor + int(1.2*defaultVerifyRate*globalRateFactor) + 1
			t.Logf("%s: %+v (global bound %d)", tc.name, got, bound)
			if got.NewAdmitted < 11 || got.FloodChecks > bound {
				t.Errorf("got %+v; want ≥ 11 of 12 new tokens admitted and ≤ %d flood checks", got, bound)
			}
		})
	}
}

// IPv6 clients are keyed by their prefix (default /64), IPv4 ones whole.
func TestClientKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		prefix int
		addr   string
		want   string
	}{
		{0, "2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"},
		{0, "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{0, "2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{48, "2001:db8:1:3::1", "2001:db8:1::/48"},
		{128, "2001:db8:1:3::1", "2001:db8:1:3::1/128"},
		{0, "fe80::1%eth0", "fe80::/64"},
		{0, "198.51.100.7", "198.51.100.7"},
		{0, "::ffff:198.51.100.7", "::ffff:198.51.100.7"},
		{0, "not-an-ip", "not-an-ip"},
	}
	for _, tc := range cases {
		l := newVerifyLimiter(0, 0, tc.prefix, nil)
		if got := l.clientKey(tc.addr); got != tc.want {
			t.Errorf("clientKey(%q) with /%d = %q, want %q", tc.addr, tc.prefix, got, tc.want)
		}
	}
}

// A client that failed recently cannot spend the reserve; one the RS
// served may spend it on several checks at once; one never seen, on one
// check at a time. The clock stands still: nothing refills.
func TestReserveStanding(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newVerifyLimiter(1, 2, 0, clock.now)
	l.global.tokens = l.reserve // the shared part is spent; the reserve is whole
	begin := func(addr string) (func(bool), bool) { return l.begin(noWait, addr) }
	type standing struct{ Failed, Served, NewFirst, NewSecond bool }
	var got standing

	const failed, served, fresh = "192.0.2.1", "192.0.2.2", "192.0.2.3"
	if done, ok := begin(failed); ok {
		done(false)
	}
	_, got.Failed = begin(failed)

	if done, ok := begin(served); ok {
		done(true)
	}
	d1, ok1 := begin(served)
	d2, ok2 := begin(served)
	got.Served = ok1 && ok2

	n1, nok := begin(fresh)
	got.NewFirst = nok
	_, got.NewSecond = begin(fresh)
	if diff := cmp.Diff(standing{Failed: false, Served: true, NewFirst: true, NewSecond: false}, got); diff != "" {
		t.Errorf("reserve admissions (-want +got):\n%s", diff)
	}
	for _, d := range []func(bool){d1, d2, n1} {
		if d != nil {
			d(true)
		}
	}
}

// A new client's second bearer, waiting while its first is checked (it
// may spend the reserve one check at a time), is admitted once the first
// turns out to be a client token: the wait asks the client's standing
// again when a check ends.
func TestWaitingCheckSeesTheClientServed(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		l := newVerifyLimiter(1, 2, 0, clock.now)
		l.global.tokens = l.reserve // the shared part is spent
		first, ok := l.begin(context.Background(), "192.0.2.9")
		if !ok {
			t.Fatal("the first bearer was refused")
		}
		second := make(chan bool, 1)
		go func() {
			done, ok := l.begin(context.Background(), "192.0.2.9")
			if ok {
				done(true)
			}
			second <- ok
		}()
		synctest.Wait() // the second waits on the first
		first(true)
		if !<-second {
			t.Error("the second bearer was refused after the first was served")
		}
	})
}

// A flood from ever-new addresses (one bearer from each of 1,000 fresh
// IPv6 /64s every 100 ms, more clients in all than the door keeps: each client is new until its check fails) may
// not drain the reserve a host the RS already served needs for its
// refreshed token: every round that host's new bearer is admitted. The
// clock is injected: the outcome is counts only.
func TestFreshAddressFloodLeavesServedHostsTheReserve(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newVerifyLimiter(defaultVerifyRate, defaultVerifyBurst, 0, clock.now)
	const host = "198.51.100.77"
	done, ok := l.begin(noWait, host)
	if !ok {
		t.Fatal("the host's first bearer was refused before any flood")
	}
	done(true) // the RS served it: its next bearer is a refreshed token
	admitted, flood, next := 0, 0, 0
	for range 12 {
		for range 1000 {
			addr := fmt.Sprintf("2001:db8:%x:%x::1", next>>16, next&0xffff)
			next++
			if d, ok := l.begin(noWait, addr); ok {
				flood++
				d(false)
			}
		}
		if d, ok := l.begin(noWait, host); ok {
			admitted++
			d(true)
		}
		clock.add(100 * time.Millisecond)
	}
	t.Logf("fresh-address flood: %d of 12 refreshed tokens admitted, %d flood checks", admitted, flood)
	if admitted < 11 {
		t.Errorf("%d of 12 refreshed tokens of a served host admitted during a fresh-address flood, want ≥ 11", admitted)
	}
}
