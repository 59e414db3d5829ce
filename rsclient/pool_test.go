package rsclient

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// connCounter is an RS that counts the TCP connections its clients open.
// It answers in batches (see batchGate), so calls overlap by construction
// rather than by a handler slow enough for them to.
type connCounter struct {
	*httptest.Server
	opened atomic.Int32
	proto  atomic.Value // last request's protocol, e.g. "HTTP/2.0"
	gate   batchGate
}

// batchGate holds each request until size requests are held, then lets
// them all go: every call of a burst whose length is a multiple of size
// overlaps size-1 others, however fast the machine.
type batchGate struct {
	mu      sync.Mutex
	size    int
	held    int
	release chan struct{}
}

// setSize makes the next batches size requests long; call it between
// bursts.
func (g *batchGate) setSize(size int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.size, g.held, g.release = size, 0, make(chan struct{})
}

// hold waits for the request's batch to fill, or for the request to end.
func (g *batchGate) hold(r *http.Request) {
	g.mu.Lock()
	g.held++
	release := g.release
	if g.held >= g.size {
		close(g.release)
		g.held, g.release = 0, make(chan struct{})
	}
	g.mu.Unlock()
	select {
	case <-release:
	case <-r.Context().Done():
	}
}

func newConnCounter(t *testing.T, tls bool) *connCounter {
	t.Helper()
	cc := &connCounter{}
	cc.gate.setSize(1)
	cc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cc.proto.Store(r.Proto)
		cc.gate.hold(r)
		_, _ = w.Write([]byte(okBody(r)))
	}))
	cc.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cc.opened.Add(1)
		}
	}
	if tls {
		cc.EnableHTTP2 = true
		cc.StartTLS()
	} else {
		cc.Start()
	}
	t.Cleanup(cc.Close)
	return cc
}

// burst makes n concurrent calls and fails the test on any error.
func burst(t *testing.T, c *Client, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, _, err := c.Streams(t.Context(), testBearer, StreamsQuery{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestConnectionReuse: N concurrent calls open at most the pool size of
// TCP connections, and later bursts reuse them instead of opening new ones
// (Go's default transport kept 2 idle connections per host, so
// 32 concurrent calls kept opening new ones).
func TestConnectionReuse(t *testing.T) {
	t.Parallel()
	const pool = 8
	rs := newConnCounter(t, false)
	rs.gate.setSize(pool) // every call waits for the pool to be full
	c := newTestClient(t, rs.URL, func(c *Config) { c.MaxConnsPerHost = pool })
	for round := range 3 {
		burst(t, c, 64)
		if n := rs.opened.Load(); n > pool {
			t.Fatalf("after burst %d of 64 concurrent calls: %d connections opened, pool is %d", round+1, n, pool)
		}
	}
	t.Logf("3 bursts × 64 concurrent calls: %d TCP connections opened (pool %d)", rs.opened.Load(), pool)

	// The default pool is sized for the adapter's concurrency: 32
	// concurrent calls, twice, open at most 32 connections.
	rs2 := newConnCounter(t, false)
	rs2.gate.setSize(32)
	def := newTestClient(t, rs2.URL)
	burst(t, def, 32)
	burst(t, def, 32)
	if n := rs2.opened.Load(); n > 32 {
		t.Errorf("default pool: 2 bursts of 32 concurrent calls opened %d connections, want ≤ 32", n)
	}
}

// TestHTTP2OverTLS: against a TLS RS the pool speaks HTTP/2, so concurrent
// calls share one connection (one handshake).
func TestHTTP2OverTLS(t *testing.T) {
	t.Parallel()
	rs := newConnCounter(t, true)
	c := newTestClient(t, rs.URL)
	tr := c.http.Transport.(*http.Transport)
	tr.TLSClientConfig = rs.Client().Transport.(*http.Transport).TLSClientConfig.Clone() // trust the test certificate
	burst(t, c, 1)                                                                       // the first connection, then the rest share it
	rs.gate.setSize(32)
	burst(t, c, 32)
	if p, _ := rs.proto.Load().(string); p != "HTTP/2.0" {
		t.Errorf("protocol %q, want HTTP/2.0", p)
	}
	if n := rs.opened.Load(); n > 2 {
		t.Errorf("%d TLS connections for 33 calls over HTTP/2, want 1 (2 at most if the first raced)", n)
	}
}
