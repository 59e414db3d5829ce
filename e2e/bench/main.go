// Command bench is `make bench-e2e`: the adapter measured against its limit,
// the RS itself. It starts the mock RS (`pdpp-mcp mockrs`), the hosted
// adapter (`pdpp-mcp serve`) and the stdio adapter (`pdpp-mcp` with a
// credential cache) as separate processes, runs a fixed mix of all six tools
// through each adapter and — interleaved in short rounds, so machine noise
// hits both — the very REST requests the adapter made for each call directly
// against the RS, and prints calls/s, latency, adapter CPU and allocations
// per call, RSS and adapter÷direct ratios. Loopback only, bounded in time;
// every process it starts is stopped by its PID.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

func main() {
	bin := flag.String("bin", "bin/pdpp-mcp", "the pdpp-mcp binary")
	roundDur := flag.Duration("round", 1500*time.Millisecond, "length of one measuring round")
	pairs := flag.Int("pairs", 3, "adapter/direct round pairs per concurrency level")
	spawns := flag.Int("spawns", 20, "stdio spawns for the spawn → tools/list median")
	soak := flag.Duration("soak", 0, "instead of the tables: run the hosted fair mix this long (for a profiler attached to the printed pid)")
	soakClients := flag.Int("soak-clients", 1, "clients of the -soak run")
	latency := flag.String("latency", "", "instead of the tables: per-tool latency through a proxy delaying every RS request by each of these durations (e.g. 20ms,50ms)")
	samples := flag.Int("samples", 5, "calls per tool and way of calling in the -latency mode")
	firstSearchRS := flag.String("first-search-rs", "", "instead of the tables: first search(q, 25) through a fresh hosted adapter against this RS (e.g. the reference RS), against the RS's own search; needs -bearer")
	bearer := flag.String("bearer", "", "client token for -first-search-rs (or PDPP_BENCH_BEARER)")
	q := flag.String("q", "the", "search words of -first-search-rs")
	flag.Parse()
	var err error
	if *firstSearchRS != "" {
		tok := *bearer
		if tok == "" {
			tok = os.Getenv("PDPP_BENCH_BEARER")
		}
		err = firstSearchRun(*bin, *firstSearchRS, tok, *q, *samples)
	} else if *latency != "" {
		var delays []time.Duration
		if delays, err = parseDelays(*latency); err == nil {
			err = latencyRun(*bin, delays, *samples)
		}
	} else if *soak > 0 {
		err = soakRun(*bin, *soak, *soakClients)
	} else {
		err = run(*bin, *roundDur, *pairs, *spawns)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-e2e:", err)
		os.Exit(1)
	}
}

// mix is the fixed workload: schema ×2, query_records ×2, aggregate ×2,
// search, fetch, read_record_field, on the full Gmail grant (both
// mailboxes, every field), reading the work mailbox.
func mix() []*toolCall {
	work := demodata.GmailWorkConnectionID
	long := work + "/message_bodies:" + demodata.LongBodyMessageID
	m := []*toolCall{
		{label: "schema()", name: "schema", args: map[string]any{}},
		{label: "schema(messages)", name: "schema", args: map[string]any{"stream": "messages", "connection_id": work}},
		{label: "query_records(25 full gmail bodies)", name: "query_records", args: map[string]any{"stream": "message_bodies", "limit": 25, "connection_id": work}},
		{label: "query_records(messages, 25)", name: "query_records", args: map[string]any{"stream": "messages", "limit": 25, "connection_id": work}},
		{label: "aggregate(count)", name: "aggregate", args: map[string]any{"stream": "messages", "metric": "count", "connection_id": work}},
		{label: "aggregate(count by month)", name: "aggregate", args: map[string]any{"stream": "messages", "metric": "count", "group_by_time": "received_at", "granularity": "month", "connection_id": work}},
		{label: "search(invoice, 25)", name: "search", args: map[string]any{"q": "invoice", "limit": 25}},
		{label: "fetch(50,000-char body)", name: "fetch", args: map[string]any{"id": long}},
		{label: "read_record_field(around a term)", name: "read_record_field", args: map[string]any{"id": long, "field_path": "body_text", "q": demodata.LongBodyTerm}},
	}
	for _, c := range m {
		c.build()
	}
	return m
}

// bench holds the running processes and clients.
type bench struct {
	bin, dir   string
	rs         rsSummary
	rsProc     *proc
	rsLog      string
	hosted     *proc
	hostedURL  string
	bearer     string
	httpc      *http.Client
	mix        []*toolCall
	rest       [][]restCall
	cached     []bool
	scrapeCost float64
	started    []*proc
}

func run(bin string, roundDur time.Duration, pairs, spawns int) error {
	b, done, err := newBench(bin)
	if err != nil {
		return err
	}
	defer done()
	t0 := time.Now()
	fmt.Printf("bench-e2e: %d CPUs (GOMAXPROCS %d), %s, %s; load average at start %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), cpuModel(), runtime.Version(), loadAvg())
	if err := b.startCalibrated(); err != nil {
		return err
	}
	if err := b.hostedLevels(roundDur, pairs); err != nil {
		return err
	}
	if err := b.rssUnderLoad(64, 3*time.Second); err != nil {
		return err
	}
	if err := b.stdio(roundDur, pairs, spawns); err != nil {
		return err
	}
	if err := b.fanOut([]int{1, 4, 16}, 2*time.Second); err != nil {
		return err
	}
	fmt.Printf("\nload average at end %s; total %.0f s\n", loadAvg(), time.Since(t0).Seconds())
	return nil
}

// soakRun starts the RS and the hosted adapter, prints the adapter's pid,
// waits two seconds (time to attach a profiler), then runs the fair mix
// for d at the given clients and prints calls/s and CPU per call.
func soakRun(bin string, d time.Duration, clients int) error {
	b, done, err := newBench(bin)
	if err != nil {
		return err
	}
	defer done()
	if err := b.startCalibrated(); err != nil {
		return err
	}
	pid := b.hosted.pid()
	fmt.Printf("soak: hosted pid %d; fair mix at %d clients for %s starts in 2 s\n", pid, clients, d)
	time.Sleep(2 * time.Second)
	h := b.hostedClient()
	calls := b.fairCalls()
	c0, _ := cpuTime(pid)
	s := round(clients, len(calls), d, over(calls, func(ctx context.Context, i int) error { return h.call(ctx, b.mix[i]) }))
	c1, _ := cpuTime(pid)
	if s.err != nil {
		return s.err
	}
	fmt.Printf("soak: %d calls, %.0f calls/s, adapter CPU/call %s ms, VmRSS %.1f MB, VmHWM %.1f MB, load avg %s\n", s.calls, s.rate(),
		ms((c1-c0)/time.Duration(max(s.calls, 1))), float64(statusKB(pid, "VmRSS"))/1024, float64(statusKB(pid, "VmHWM"))/1024, loadAvg())
	if keep := os.Getenv("BENCH_KEEP_STDERR"); keep != "" {
		// The adapter's stderr (e.g. GODEBUG=gctrace=1 lines) for reading after.
		if out, err := os.ReadFile(filepath.Join(b.dir, "serve.stderr")); err == nil {
			_ = os.WriteFile(keep, out, 0o600)
		}
	}
	return nil
}

// newBench is a bench in a fresh temporary directory; done stops every
// process it started and removes the directory.
func newBench(bin string) (*bench, func(), error) {
	dir, err := os.MkdirTemp("", "pdpp-bench-e2e-")
	if err != nil {
		return nil, nil, err
	}
	b := &bench{bin: bin, dir: dir, httpc: newHTTPClient(), mix: mix()}
	return b, func() { b.stopAll(); _ = os.RemoveAll(dir) }, nil
}

// startCalibrated starts the mock RS and the hosted adapter and learns
// the REST requests of each mix call.
func (b *bench) startCalibrated() error {
	if err := b.startRS(); err != nil {
		return err
	}
	if err := b.startHosted(); err != nil {
		return err
	}
	return b.calibrate()
}

func (b *bench) stopAll() {
	for _, p := range slices.Backward(b.started) {
		p.stop()
	}
}

func (b *bench) start(name string, args []string, env []string) (*proc, io.ReadCloser, io.WriteCloser, error) {
	p, out, in, err := startProc(name, b.bin, b.dir, args, env)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	b.started = append(b.started, p)
	return p, out, in, nil
}

func (b *bench) startRS() error {
	b.rsLog = filepath.Join(b.dir, "rs-requests.jsonl")
	p, out, _, err := b.start("mockrs", []string{"mockrs", "--json", "--addr", "127.0.0.1:0", "--request-log", b.rsLog}, nil)
	if err != nil {
		return err
	}
	line, err := firstLine(context.Background(), out, 60*time.Second)
	if err != nil {
		return fmt.Errorf("mock RS: %w", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if b.rs, err = parseSummary(line); err != nil {
		return fmt.Errorf("mock RS summary: %w", err)
	}
	b.rsProc = p
	for _, g := range b.rs.Grants {
		if g.ConnectorKey == "gmail" && len(g.ConnectionIDs) == 2 {
			b.bearer = g.Bearer
		}
	}
	if b.bearer == "" {
		return errors.New("mock RS has no Gmail grant over both mailboxes")
	}
	return nil
}

func (b *bench) startHosted() error { return b.startServe(b.rs.RSURL) }

// startServe starts the hosted adapter over rsURL with extra flags and
// waits for its ready line.
func (b *bench) startServe(rsURL string, extra ...string) error {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	p, out, _, err := b.start("serve", append([]string{"serve", "--provider-url", rsURL, "--addr", "127.0.0.1:0"}, extra...),
		[]string{"PDPP_MCP_CURSOR_SECRET=" + hex.EncodeToString(secret)})
	if err != nil {
		return err
	}
	line, err := firstLine(context.Background(), out, 30*time.Second)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	var ready struct {
		MCPURL string `json:"mcp_url"` // {"mcp_url":"http://HOST:PORT/mcp","rs_url":…}
	}
	if err := json.Unmarshal([]byte(line), &ready); err != nil || !strings.HasSuffix(ready.MCPURL, "/mcp") {
		return fmt.Errorf("serve: unexpected ready line %q", line)
	}
	b.hosted, b.hostedURL = p, ready.MCPURL
	return nil
}

func (b *bench) hostedClient() *hostedClient {
	return &hostedClient{http: b.httpc, url: b.hostedURL, bearer: b.bearer}
}

func (b *bench) directClient() *directClient {
	return &directClient{http: b.httpc, rsURL: b.rs.RSURL, bearer: b.bearer}
}

// calibrate calls each tool warm through the hosted adapter and records the
// RS requests it made (the mock RS request log): that is the direct mix.
func (b *bench) calibrate() error {
	h := b.hostedClient()
	ctx := context.Background()
	b.cached = make([]bool, len(b.mix))
	for i, c := range b.mix {
		if err := h.call(ctx, c); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		if err := h.call(ctx, c); err != nil {
			return err
		}
		before := logLines(b.rsLog)
		if err := h.call(ctx, c); err != nil {
			return err
		}
		reqs := logLines(b.rsLog)[len(before):]
		if len(reqs) == 0 {
			// Served from the adapter's cache: the direct call is still the
			// REST request that answers it.
			// The schema tools are answered from GET /v1/schema.
			b.cached[i] = true
			reqs = []restCall{{Method: http.MethodGet, Path: "/v1/schema"}}
		}
		if len(reqs) == 0 {
			return fmt.Errorf("%s made no RS request", c.label)
		}
		b.rest = append(b.rest, reqs)
	}
	fmt.Printf("\nmix (one Gmail grant; RS requests each call makes when warm, replayed as the direct call):\n")
	for i, c := range b.mix {
		var paths []string
		for _, r := range b.rest[i] {
			paths = append(paths, r.Method+" "+r.Path)
		}
		note := ""
		if b.cached[i] {
			note = " (adapter answers from its cache when warm; direct replays this request)"
		}
		fmt.Printf("  %-36s %s%s\n", c.label, strings.Join(paths, ", "), note)
	}
	d := b.directClient()
	for i, c := range b.mix {
		if err := d.call(ctx, c.label, b.rest[i]); err != nil {
			return err
		}
	}
	m0, _ := b.mallocs()
	m1, _ := b.mallocs()
	b.scrapeCost = m1 - m0
	return nil
}

// logLines reads the mock RS request log, leaving out its control routes.
func logLines(path string) []restCall {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []restCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r restCall
		if json.Unmarshal(sc.Bytes(), &r) == nil && !strings.HasPrefix(r.Path, "/_mockrs") {
			out = append(out, r)
		}
	}
	return out
}

// mallocs is go_memstats_mallocs_total of the hosted adapter.
func (b *bench) mallocs() (float64, error) {
	resp, err := b.httpc.Get(strings.TrimSuffix(b.hostedURL, "/mcp") + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_mallocs_total "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, errors.New("no go_memstats_mallocs_total in /metrics")
}

// measured is one side of a level: merged rounds plus adapter CPU/allocs.
type measured struct {
	s       sample
	cpu     time.Duration
	mallocs float64
}

func (m measured) cpuPerCall() time.Duration {
	if m.s.calls == 0 {
		return 0
	}
	return m.cpu / time.Duration(m.s.calls)
}

// allCalls is every call of the mix, by index.
func (b *bench) allCalls() []int {
	out := make([]int, len(b.mix))
	for i := range out {
		out[i] = i
	}
	return out
}

// fairCalls is the mix without the calls the adapter answers from its
// cache (the two schema calls): the direct side replays GET /v1/schema for
// those, which flatters every mix ratio.
func (b *bench) fairCalls() []int {
	var out []int
	for i := range b.mix {
		if !b.cached[i] {
			out = append(out, i)
		}
	}
	return out
}

// over runs f on calls[k] for the k-th call of a round's walk, so that a
// round over a subset keeps perCall keyed by the mix index.
func over(calls []int, f callFunc) callFunc {
	return func(ctx context.Context, k int) error { return f(ctx, calls[k]) }
}

// interleave alternates adapter and direct rounds over the mix calls
// listed, measuring the adapter process's CPU (and allocations when alloc
// is set) around its rounds only.
func (b *bench) interleave(clients, pairs int, d time.Duration, pid int, calls []int, adapterCall callFunc, alloc bool) (measured, measured, error) {
	var ad, di measured
	direct := b.directClient()
	directCall := over(calls, func(ctx context.Context, i int) error { return direct.call(ctx, b.mix[i].label, b.rest[i]) })
	adapterCall = over(calls, adapterCall)
	for range pairs {
		c0, _ := cpuTime(pid)
		var m0, m1 float64
		if alloc {
			m0, _ = b.mallocs()
		}
		s := round(clients, len(calls), d, adapterCall)
		if alloc {
			m1, _ = b.mallocs()
			ad.mallocs += m1 - m0 - b.scrapeCost
		}
		c1, _ := cpuTime(pid)
		ad.cpu += c1 - c0
		ad.s.merge(s)
		di.s.merge(round(clients, len(calls), d, directCall))
		if ad.s.err != nil || di.s.err != nil {
			return ad, di, errors.Join(ad.s.err, di.s.err)
		}
	}
	return ad, di, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }

// hostedLevels measures the whole mix, then the fair mix (without the
// cached schema calls) at the same levels.
func (b *bench) hostedLevels(d time.Duration, pairs int) error {
	fmt.Printf("\nhosted adapter (pdpp-mcp serve, pid %d) vs direct RS, %d × %s rounds each, interleaved\n", b.hosted.pid(), pairs, d)
	if err := b.hostedMix(d, pairs, b.allCalls(), true); err != nil {
		return err
	}
	fmt.Printf("\nfair mix: the same, without the calls the adapter answers from its cache (%d of %d calls)\n", len(b.fairCalls()), len(b.mix))
	return b.hostedMix(d, pairs, b.fairCalls(), false)
}

// hostedMix prints one table of levels over the calls listed; perTool
// prints the per-call p50s of the 1-client level.
func (b *bench) hostedMix(d time.Duration, pairs int, calls []int, perTool bool) error {
	h := b.hostedClient()
	call := func(ctx context.Context, i int) error { return h.call(ctx, b.mix[i]) }
	fmt.Println("| clients | hosted calls/s | direct calls/s | ratio | hosted p50 / p99 ms | direct p50 / p99 ms | p50 overhead ms | adapter CPU/call ms | allocs/call | RSS MB | 429s | load avg |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, n := range []int{1, 8, 32} {
		ad, di, err := b.interleave(n, pairs, d, b.hosted.pid(), calls, call, true)
		if err != nil {
			return err
		}
		fmt.Printf("| %d | %.0f | %.0f | %.2f | %s / %s | %s / %s | %+.2f | %s | %.0f | %.1f | %d | %s |\n", n,
			ad.s.rate(), di.s.rate(), ad.s.rate()/di.s.rate(),
			ms(pct(ad.s.lat, .5)), ms(pct(ad.s.lat, .99)), ms(pct(di.s.lat, .5)), ms(pct(di.s.lat, .99)),
			float64(pct(ad.s.lat, .5)-pct(di.s.lat, .5))/1e6, ms(ad.cpuPerCall()), ad.mallocs/float64(ad.s.calls),
			float64(statusKB(b.hosted.pid(), "VmRSS"))/1024, ad.s.limited, loadAvg())
		if n == 1 && perTool {
			b.perTool("hosted, 1 client", ad.s, di.s)
		}
	}
	return nil
}

// perTool prints each mix call's p50 through the adapter and direct.
func (b *bench) perTool(what string, ad, di sample) {
	fmt.Printf("\nper call, %s (p50 ms):\n", what)
	fmt.Println("| call | adapter p50 | direct p50 | overhead | samples |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for i, c := range b.mix {
		a, d := pct(ad.perCall[i], .5), pct(di.perCall[i], .5)
		fmt.Printf("| %s | %s | %s | %+.2f | %d |\n", c.label, ms(a), ms(d), float64(a-d)/1e6, len(ad.perCall[i]))
	}
	fmt.Println()
}

func (b *bench) rssUnderLoad(clients int, d time.Duration) error {
	h := b.hostedClient()
	stop := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var m int64
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				peak <- m
				return
			case <-t.C:
				m = max(m, statusKB(b.hosted.pid(), "VmRSS"))
			}
		}
	}()
	s := round(clients, len(b.mix), d, func(ctx context.Context, i int) error { return h.call(ctx, b.mix[i]) })
	close(stop)
	p := <-peak
	if s.err != nil {
		return s.err
	}
	fmt.Printf("hosted under %d clients for %s: %.0f calls/s, p50 %s ms, p99 %s ms, peak VmRSS %.1f MB (VmHWM since start %.1f MB), %d answers 429\n",
		clients, d, s.rate(), ms(pct(s.lat, .5)), ms(pct(s.lat, .99)), float64(p)/1024, float64(statusKB(b.hosted.pid(), "VmHWM"))/1024, s.limited)
	return nil
}

// writeCache writes a `pdpp connect` cache with these client tokens.
func (b *bench) writeCache(root string, tokens []cacheToken) error {
	path, err := credcache.CacheFilePath(root, b.rs.RSURL)
	if err != nil {
		return err
	}
	type credential struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		GrantID     string `json:"grant_id"`
		TokenKind   string `json:"pdpp_token_kind"`
	}
	file := struct {
		ProviderURL string       `json:"provider_url"`
		Credentials []credential `json:"credentials"`
	}{ProviderURL: b.rs.RSURL}
	for _, t := range tokens {
		file.Credentials = append(file.Credentials, credential{AccessToken: t.token, TokenType: "Bearer", GrantID: t.grantID, TokenKind: "client"})
	}
	raw, _ := json.Marshal(file)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o600)
}

type cacheToken struct{ token, grantID string }

// spawnStdio starts the stdio adapter on a cache root and completes the
// handshake; it returns the process and the client.
func (b *bench) spawnStdio(name, root string) (*proc, *stdioClient, time.Duration, error) {
	t0 := time.Now()
	p, out, in, err := b.start(name, []string{"--provider-url", b.rs.RSURL, "--cache-root", root}, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	c := newStdioClient(in, out)
	if err := c.handshake(); err != nil {
		return p, nil, 0, fmt.Errorf("%s handshake: %w (stderr in %s)", name, err, b.dir)
	}
	return p, c, time.Since(t0), nil
}

func (b *bench) stdio(d time.Duration, pairs, spawns int) error {
	root := filepath.Join(b.dir, "cache-1")
	grantID := ""
	for _, g := range b.rs.Grants {
		if g.Bearer == b.bearer {
			grantID = g.GrantID
		}
	}
	if err := b.writeCache(root, []cacheToken{{b.bearer, grantID}}); err != nil {
		return err
	}
	floor, err := spawnFloor(b.dir)
	if err != nil {
		return err
	}
	var lat, floors, rest []time.Duration
	for i := range spawns { // paired with the floor, so both see the same machine
		fl, err := floor()
		if err != nil {
			return fmt.Errorf("floor program: %w", err)
		}
		floors = append(floors, fl)
		p, _, dt, err := b.spawnStdio(fmt.Sprintf("stdio-spawn-%d", i), root)
		p.stop()
		if err != nil {
			return err
		}
		lat = append(lat, dt)
		rest = append(rest, dt-fl)
	}
	fmt.Printf("\nstdio spawn → initialize → tools/list answered: median %s ms, p90 %s ms over %d spawns (load avg %s)\n",
		ms(pct(lat, .5)), ms(pct(lat, .9)), len(lat), loadAvg())
	fmt.Printf("spawn floor, an empty static Go program run to exit on this machine: median %s ms; spawn minus floor, paired: median %s ms (the adapter, its dependencies' package inits, its handshake)\n",
		ms(pct(floors, .5)), ms(pct(rest, .5)))

	p, c, _, err := b.spawnStdio("stdio", root)
	if err != nil {
		return err
	}
	defer p.stop()
	ctx := context.Background()
	for _, tc := range b.mix {
		if err := c.call(ctx, tc); err != nil {
			return fmt.Errorf("stdio warm-up: %w", err)
		}
	}
	stdioCall := func(ctx context.Context, i int) error { return c.call(ctx, b.mix[i]) }
	fmt.Println("stdio adapter (pdpp-mcp over pipes, one client) vs direct RS, interleaved; the whole mix, then the fair mix (no cached schema calls)")
	fmt.Println("| mix | stdio calls/s | direct calls/s | ratio | stdio p50 / p99 ms | direct p50 / p99 ms | p50 overhead ms | adapter CPU/call ms | RSS MB | load avg |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	var whole, wholeDirect sample
	for _, m := range []struct {
		name  string
		calls []int
	}{{"whole", b.allCalls()}, {"fair", b.fairCalls()}} {
		ad, di, err := b.interleave(1, pairs, d, p.pid(), m.calls, stdioCall, false)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %.0f | %.0f | %.2f | %s / %s | %s / %s | %+.2f | %s | %.1f | %s |\n", m.name,
			ad.s.rate(), di.s.rate(), ad.s.rate()/di.s.rate(),
			ms(pct(ad.s.lat, .5)), ms(pct(ad.s.lat, .99)), ms(pct(di.s.lat, .5)), ms(pct(di.s.lat, .99)),
			float64(pct(ad.s.lat, .5)-pct(di.s.lat, .5))/1e6, ms(ad.cpuPerCall()), float64(statusKB(p.pid(), "VmRSS"))/1024, loadAvg())
		if m.name == "whole" {
			whole = ad.s
			wholeDirect = di.s
		}
	}
	b.perTool("stdio, 1 client", whole, wholeDirect)
	return nil
}

// mint asks the mock RS for another client token of a grant.
func (b *bench) mint(grantID string) (string, error) {
	req, _ := http.NewRequest(http.MethodPost, b.rs.RSURL+"/_mockrs/grants/"+grantID+"/token", nil)
	req.Header.Set("Authorization", "Bearer "+b.rs.OwnerBearer)
	resp, err := b.httpc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.AccessToken == "" {
		return "", fmt.Errorf("mint %s: HTTP %d", grantID, resp.StatusCode)
	}
	return v.AccessToken, nil
}

// fanOut measures search over stdio caches holding n credentials: the mock
// RS's grants in turn, each further round a freshly minted token of the
// same grant (the mock has only len(Grants) distinct grants).
func (b *bench) fanOut(ns []int, d time.Duration) error {
	search := &toolCall{label: "search(invoice, 25)", name: "search", args: map[string]any{"q": "invoice", "limit": 25}}
	search.build()
	fmt.Printf("search fan-out (stdio, one client, %s each; the mock RS has %d distinct grants, further credentials are fresh tokens of the same grants)\n", d, len(b.rs.Grants))
	fmt.Println("| credentials | calls/s | p50 ms | p99 ms | adapter CPU/call ms | CPU/call per credential ms | RS requests/call | RSS MB |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range ns {
		var toks []cacheToken
		for i := range n {
			g := b.rs.Grants[i%len(b.rs.Grants)]
			tok := g.Bearer
			if i >= len(b.rs.Grants) {
				var err error
				if tok, err = b.mint(g.GrantID); err != nil {
					return err
				}
			}
			toks = append(toks, cacheToken{tok, g.GrantID})
		}
		root := filepath.Join(b.dir, fmt.Sprintf("cache-fan-%d", n))
		if err := b.writeCache(root, toks); err != nil {
			return err
		}
		p, c, _, err := b.spawnStdio(fmt.Sprintf("stdio-fan-%d", n), root)
		if err != nil {
			return err
		}
		ctx := context.Background()
		for range 2 {
			if err := c.call(ctx, search); err != nil {
				p.stop()
				return fmt.Errorf("fan-out %d: %w", n, err)
			}
		}
		l0 := len(logLines(b.rsLog))
		c0, _ := cpuTime(p.pid())
		s := round(1, 1, d, func(ctx context.Context, _ int) error { return c.call(ctx, search) })
		c1, _ := cpuTime(p.pid())
		l1 := len(logLines(b.rsLog))
		rss := statusKB(p.pid(), "VmRSS")
		p.stop()
		if s.err != nil {
			return s.err
		}
		per := (c1 - c0) / time.Duration(max(1, s.calls))
		fmt.Printf("| %d | %.0f | %s | %s | %s | %.3f | %.1f | %.1f |\n", n, s.rate(), ms(pct(s.lat, .5)), ms(pct(s.lat, .99)),
			ms(per), float64(per)/1e6/float64(n), float64(l1-l0)/float64(max(1, s.calls)), float64(rss)/1024)
	}
	return nil
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range bytes.SplitSeq(raw, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.TrimSpace(string(k)) == "model name" {
			return strings.TrimSpace(string(v))
		}
	}
	return "unknown CPU"
}
