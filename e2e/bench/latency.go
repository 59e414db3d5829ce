package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// The latency mode (-latency 20ms,50ms) measures what a user of a remote
// RS feels: round trips. A proxy between the adapter and the mock RS
// holds every RS request for a fixed delay before passing it on; each
// tool is called through the hosted adapter and, as "direct", the REST
// request that answers it is sent through the same proxy. A call's RS
// requests are counted in the mock RS's request log.
//
// Three ways of calling each tool, each on a freshly minted token (the
// adapter's caches are per token, so a fresh token is a first call):
//   - new bearer: the very first call of the token (the hosted door
//     verifies it, then the call);
//   - first: the token's first call of this tool, after one schema() call
//     (door and schema known; a search's titles, a stream's capability
//     probe not yet);
//   - repeat: the same call again.

// delayProxy forwards to the RS after holding each request for delay.
type delayProxy struct {
	delay atomic.Int64 // nanoseconds
	srv   *http.Server
	url   string
}

func startDelayProxy(target string) (*delayProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &delayProxy{url: "http://" + ln.Addr().String()}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = newHTTPClient().Transport
	p.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The emulated network: a fixed wait per request (not a wait for
		// our own code).
		select {
		case <-time.After(time.Duration(p.delay.Load())):
		case <-r.Context().Done():
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *delayProxy) close() { _ = p.srv.Close() }

// latencyMix is the fixed mix plus a
// fan-in page (no connection_id: both mailboxes).
func latencyMix() []*toolCall {
	m := mix()
	fan := &toolCall{label: "query_records(messages, 25, fan-in)", name: "query_records",
		args: map[string]any{"stream": "messages", "limit": 25}}
	fan.build()
	return append(m, fan)
}

// latencyRun prints one table per delay.
func latencyRun(bin string, delays []time.Duration, samples int) error {
	b, done, err := newBench(bin)
	if err != nil {
		return err
	}
	defer done()
	b.mix = latencyMix()
	fmt.Printf("bench-e2e latency: %s; load average at start %s\n", cpuModel(), loadAvg())
	if err := b.startRS(); err != nil {
		return err
	}
	proxy, err := startDelayProxy(b.rs.RSURL)
	if err != nil {
		return err
	}
	defer proxy.close()
	if err := b.startHostedAt(proxy.url); err != nil {
		return err
	}
	if err := b.calibrate(); err != nil { // the warm requests of each call: the direct call
		return err
	}
	grantID := ""
	for _, g := range b.rs.Grants {
		if g.Bearer == b.bearer {
			grantID = g.GrantID
		}
	}
	for _, d := range delays {
		proxy.delay.Store(int64(d))
		if err := b.latencyTable(d, proxy.url, grantID, samples); err != nil {
			return err
		}
	}
	fmt.Printf("\nload average at end %s\n", loadAvg())
	return nil
}

// latencyRow is one call's figures at one delay.
type latencyRow struct {
	newBearer, first, repeat, direct []time.Duration
	// directWave is the first call's own RS requests sent directly: the
	// first, then all the others at once (what the adapter's first call
	// does at best).
	directWave                  []time.Duration
	reqNew, reqFirst, reqRepeat []int
	pending                     int // hit titles marked pending on first calls
}

func (b *bench) latencyTable(d time.Duration, proxyURL, grantID string, samples int) error {
	rows := make([]latencyRow, len(b.mix))
	direct := &directClient{http: b.httpc, rsURL: proxyURL, bearer: b.bearer}
	for range samples {
		for i := range b.mix {
			if err := b.latencySample(i, &rows[i], direct, grantID); err != nil {
				return err
			}
		}
	}
	b.printLatencyTable(d, samples, rows)
	return nil
}

// latencySample adds one sample of each way of calling mix call i to r.
func (b *bench) latencySample(i int, r *latencyRow, direct *directClient, grantID string) error {
	ctx, c := context.Background(), b.mix[i]
	// new bearer: the token's very first call.
	h, err := b.freshClient(grantID)
	if err != nil {
		return err
	}
	dt, n, err := b.timed(func() error { return h.call(ctx, c) })
	if err != nil {
		return err
	}
	r.newBearer, r.reqNew = append(r.newBearer, dt), append(r.reqNew, n)
	// first: another fresh token, known to the door and its schema read
	// (one schema() call), then this call.
	if h, err = b.freshClient(grantID); err != nil {
		return err
	}
	if err := h.call(ctx, b.mix[0]); err != nil {
		return err
	}
	before := len(logLines(b.rsLog))
	var text string
	if dt, n, err = b.timed(func() error { text, err = h.callText(ctx, c); return err }); err != nil {
		return err
	}
	r.first, r.reqFirst = append(r.first, dt), append(r.reqFirst, n)
	r.pending += strings.Count(text, "(title pending)")
	firstReqs := logLines(b.rsLog)[before:]
	if dt, n, err = b.timed(func() error { return h.call(ctx, c) }); err != nil {
		return err
	}
	r.repeat, r.reqRepeat = append(r.repeat, dt), append(r.reqRepeat, n)
	t0 := time.Now()
	if err := direct.call(ctx, c.label, b.rest[i][:1]); err != nil {
		return err
	}
	r.direct = append(r.direct, time.Since(t0))
	if len(firstReqs) > 1 {
		own := &directClient{http: direct.http, rsURL: direct.rsURL, bearer: h.bearer}
		t0 = time.Now()
		if err := own.wave(ctx, c.label, firstReqs); err != nil {
			return err
		}
		r.directWave = append(r.directWave, time.Since(t0))
	}
	return nil
}

// freshClient is a hosted client with a newly minted token of grantID.
func (b *bench) freshClient(grantID string) (*hostedClient, error) {
	tok, err := b.mint(grantID)
	if err != nil {
		return nil, err
	}
	return &hostedClient{http: b.httpc, url: b.hostedURL, bearer: tok}, nil
}

// printLatencyTable prints one delay's table.
func (b *bench) printLatencyTable(d time.Duration, samples int, rows []latencyRow) {
	fmt.Printf("\n%s per RS request (proxy), hosted adapter, p50 of %d calls each on fresh tokens; load avg %s\n", d, samples, loadAvg())
	fmt.Println("| call | new bearer ms (RS req) | first ms (RS req) | repeat ms (RS req) | direct ms (1 req) | first − direct | repeat − direct | direct, first call's requests in one wave ms |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	for i, c := range b.mix {
		r := rows[i]
		first, firstOver, wave := "—", "—", "—"
		if i > 0 { // schema() is the warm-up of "first"
			first = fmt.Sprintf("%s (%d)", ms(pct(r.first, .5)), medianInt(r.reqFirst))
			firstOver = fmt.Sprintf("%+.1f", float64(pct(r.first, .5)-pct(r.direct, .5))/1e6)
		}
		if len(r.directWave) > 0 {
			wave = ms(pct(r.directWave, .5))
		}
		if r.pending > 0 {
			first += fmt.Sprintf(", %d titles pending", r.pending)
		}
		fmt.Printf("| %s | %s (%d) | %s | %s (%d) | %s | %s | %+.1f | %s |\n", c.label,
			ms(pct(r.newBearer, .5)), medianInt(r.reqNew), first, ms(pct(r.repeat, .5)), medianInt(r.reqRepeat),
			ms(pct(r.direct, .5)), firstOver, float64(pct(r.repeat, .5)-pct(r.direct, .5))/1e6, wave)
	}
}

// timed runs f and returns its duration and the RS requests it made
// (mock RS log lines added meanwhile).
func (b *bench) timed(f func() error) (time.Duration, int, error) {
	before := len(logLines(b.rsLog))
	t0 := time.Now()
	err := f()
	dt := time.Since(t0)
	return dt, len(logLines(b.rsLog)) - before, err
}

func medianInt(v []int) int {
	if len(v) == 0 {
		return 0
	}
	d := make([]time.Duration, len(v))
	for i, x := range v {
		d[i] = time.Duration(x)
	}
	return int(pct(d, .5))
}

// startHostedAt starts the hosted adapter over rsURL (the proxy) with
// verification limits high enough for a fresh token per call.
func (b *bench) startHostedAt(rsURL string) error {
	return b.startServe(rsURL, "--verify-rate", "10000", "--verify-burst", "10000")
}

// parseDelays reads -latency's comma-separated durations.
func parseDelays(s string) ([]time.Duration, error) {
	var out []time.Duration
	for f := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("-latency %q: want durations such as 20ms,50ms", s)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("-latency: no delay given")
	}
	return out, nil
}

// firstSearchRun measures a first search against any RS (the reference
// RS, say): per sample a fresh hosted adapter (empty caches), one
// schema() call (the door's verification and the grant's schema), then
// search(q, 25) — the first — and the same search again; direct is the
// RS's own search with the same token. Nothing is started at the RS.
func firstSearchRun(bin, rsURL, bearer, q string, samples int) error {
	b, done, err := newBench(bin)
	if err != nil {
		return err
	}
	defer done()
	b.bearer = bearer
	search := &toolCall{label: "search(" + q + ", 25)", name: "search", args: map[string]any{"q": q, "limit": 25}}
	search.build()
	schema := &toolCall{label: "schema()", name: "schema", args: map[string]any{}}
	schema.build()
	direct := &directClient{http: b.httpc, rsURL: rsURL, bearer: bearer}
	restSearch := []restCall{{Method: http.MethodGet, Path: "/v1/search", Query: "q=" + url.QueryEscape(q) + "&limit=25"}}
	fmt.Printf("bench-e2e first search against %s: %s; load average at start %s\n", rsURL, cpuModel(), loadAvg())
	var first, again, own []time.Duration
	pending := 0
	ctx := context.Background()
	for range samples {
		if err := b.startHostedAt(rsURL); err != nil {
			return err
		}
		h := b.hostedClient()
		if err := h.call(ctx, schema); err != nil {
			return err
		}
		t0 := time.Now()
		text, err := h.callText(ctx, search)
		if err != nil {
			return err
		}
		first = append(first, time.Since(t0))
		pending += strings.Count(text, "(title pending)")
		t0 = time.Now()
		if err := h.call(ctx, search); err != nil {
			return err
		}
		again = append(again, time.Since(t0))
		b.hosted.stop()
		t0 = time.Now()
		if err := direct.call(ctx, search.label, restSearch); err != nil {
			return err
		}
		own = append(own, time.Since(t0))
	}
	fmt.Println("| call | p50 ms | ÷ the RS's own search |")
	fmt.Println("|---|---:|---:|")
	fmt.Printf("| %s first (fresh adapter; %d titles pending over %d calls) | %s | %.1f× |\n", search.label, pending, samples, ms(pct(first, .5)), float64(pct(first, .5))/float64(pct(own, .5)))
	fmt.Printf("| %s repeated | %s | %.1f× |\n", search.label, ms(pct(again, .5)), float64(pct(again, .5))/float64(pct(own, .5)))
	fmt.Printf("| the RS's own GET /v1/search, same token | %s | 1.0× |\n", ms(pct(own, .5)))
	fmt.Printf("load average at end %s\n", loadAvg())
	return nil
}
