//go:build soak

package soak

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// Soak shape; SOAK_DURATION and SOAK_CLIENTS override the defaults (a
// short run to try the harness, never to publish figures).
const (
	defaultDuration = 60 * time.Second
	defaultClients  = 64
	// callTimeout is the client's patience: past it a call counts as hung.
	// The adapter's own RS deadline is 15 s (rsclient.DefaultTimeout).
	callTimeout = 40 * time.Second
)

// faultPhase is the RS fault switched on for one slice of the fault phase:
// every other request under /v1/ fails this way (EveryN 2), so healthy and
// failing answers interleave as they do in a real partial outage.
var faultPhase = []struct {
	name   string
	faults rstest.Faults
}{
	// First, so the calls it holds for the adapter's 15 s RS deadline are
	// answered well before the run ends.
	{"never answers", rstest.Faults{Latency: time.Minute}},
	{"5xx", rstest.Faults{Status5xx: http.StatusServiceUnavailable}},
	{"reset", rstest.Faults{Reset: true}},
	{"malformed", rstest.Faults{MalformedJSON: true}},
	{"oversized 9 MiB", rstest.Faults{OversizedBytes: 9 << 20}},
}

// soakCall is one entry of the tool mix.
type soakCall struct {
	tool   string
	bearer string
	args   map[string]any
}

func toolMix() []soakCall {
	work := demodata.GmailWorkConnectionID
	long := work + "/message_bodies:" + demodata.LongBodyMessageID
	gm, sl := demodata.GmailToken, demodata.SlackToken
	return []soakCall{
		{"schema", gm, map[string]any{}},
		{"schema", gm, map[string]any{"stream": "messages"}},
		{"query_records", gm, map[string]any{"stream": "messages", "connection_id": work, "limit": 10}},
		{"aggregate", gm, map[string]any{"stream": "messages", "metric": "count", "connection_id": work}},
		{"search", gm, map[string]any{"q": "invoice", "limit": 5}},
		{"fetch", gm, map[string]any{"id": long}},
		{"read_record_field", gm, map[string]any{"id": long, "field_path": "body_text"}},
		{"search", sl, map[string]any{"q": "roadmap", "limit": 5}},
		{"query_records", sl, map[string]any{"stream": "messages", "limit": 5}},
		{"schema", sl, map[string]any{}},
	}
}

// outcome is one call as the client saw it.
type outcome struct {
	phase   int  // when it began: 0 before, 1 fault, 2 after
	healthy bool // began and ended before the faults started
	code    string
	latency time.Duration
}

// TestSoak drives the built binary (SOAK_BIN, else built here) with
// concurrent MCP clients and reports calls, errors by code, latency
// percentiles, the adapter's RSS and goroutines. It fails on a hung call,
// an untyped answer, an error in a call over before the faults started, or
// goroutines left.
func TestSoak(t *testing.T) {
	duration := envDuration(t, "SOAK_DURATION", defaultDuration)
	clients := envInt(t, "SOAK_CLIENTS", defaultClients)
	ds, err := demodata.Build(demodata.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := rstest.NewServer(ds)
	defer rs.Close()
	ad := startAdapter(t, rs.URL, duration)

	hc := &http.Client{Timeout: callTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	for _, c := range toolMix() { // warm: schemas and token verdicts cached
		if code, _ := callTool(hc, ad.mcpURL, c, 0); code != "ok" {
			t.Fatalf("warm-up %s: %s", c.tool, code)
		}
	}
	// waits for the spawned adapter to close the warm-up's connections and
	// end its detached fetches before the baseline: it signals neither.
	time.Sleep(time.Second)
	gBefore := ad.goroutines(t)
	rssBefore := ad.status(t)["VmRSS"]

	start := time.Now()
	faultStart, faultEnd := duration*3/8, duration*5/8
	phaseOf := func(at time.Time) int {
		switch d := at.Sub(start); {
		case d < faultStart:
			return 0
		case d < faultEnd:
			return 1
		}
		return 2
	}
	stopFaults := switchFaults(rs.Server, faultStart, faultEnd)
	defer stopFaults()
	stopRSS, peakRSS := ad.sampleRSS(t)

	var mu sync.Mutex
	var results []outcome
	var untyped []string
	var id atomic.Int64
	var wg sync.WaitGroup
	mix := toolMix()
	for w := range clients {
		wg.Go(func() {
			for i := w; time.Since(start) < duration; i++ {
				c := mix[i%len(mix)]
				began := time.Now()
				code, raw := callTool(hc, ad.mcpURL, c, id.Add(1))
				o := outcome{phase: phaseOf(began), healthy: time.Since(start) < faultStart, code: code, latency: time.Since(began)}
				mu.Lock()
				results = append(results, o)
				if strings.HasPrefix(code, "untyped") && len(untyped) < 5 {
					untyped = append(untyped, c.tool+": "+raw)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopRSS()
	hc.CloseIdleConnections()
	gAfter := ad.settledGoroutines(t, gBefore)
	st := ad.status(t)

	report := summarize(results, elapsed, clients, duration)
	report += fmt.Sprintf("adapter RSS: %s before load, %s peak sampled, %s end, VmHWM %s\n",
		rssBefore, kib(peakRSS()), st["VmRSS"], st["VmHWM"])
	report += fmt.Sprintf("adapter goroutines: %d before load, %d after (idle connections closed)\n", gBefore, gAfter)
	t.Log("\n" + report)
	if path := os.Getenv("SOAK_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			t.Error(err)
		}
	}

	for _, u := range untyped {
		t.Errorf("untyped answer: %s", u)
	}
	for _, o := range results {
		switch {
		case o.code == "hung":
			t.Errorf("a call got no answer within %v", callTimeout)
		case o.healthy && o.code != "ok":
			t.Errorf("error %s before any fault", o.code)
		}
	}
	if gAfter > gBefore+8 {
		t.Errorf("adapter goroutines %d after the soak, %d before", gAfter, gBefore)
	}
}

// switchFaults turns the fault phase on at from and off at to, rotating
// through faultPhase in equal slices; the returned func stops it early.
func switchFaults(s *rstest.Server, from, to time.Duration) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer s.SetFaults(nil)
		slice := (to - from) / time.Duration(len(faultPhase))
		wait := from
		for _, f := range faultPhase {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			fc := f.faults
			fc.PathPrefix, fc.EveryN = "/v1/", 2
			s.SetFaults(&fc)
			wait = slice
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}()
	return func() { cancel(); <-done }
}

// callTool posts one tools/call and classifies the answer: "ok", the
// typed error code of an error result, "rpc_<code>" for a JSON-RPC error,
// "http_<status>" for a typed HTTP refusal, "hung" past callTimeout, or
// "untyped…" for anything else (raw returned for the report).
func callTool(hc *http.Client, url string, c soakCall, id int64) (code, raw string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": c.tool, "arguments": c.args}})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.bearer)
	resp, err := hc.Do(req)
	if err != nil {
		if strings.Contains(err.Error(), "Client.Timeout") {
			return "hung", err.Error()
		}
		return "untyped_transport", err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error.Code == "" {
			return "untyped_http_" + strconv.Itoa(resp.StatusCode), string(b)
		}
		return "http_" + strconv.Itoa(resp.StatusCode) + "_" + e.Error.Code, ""
	}
	var env struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return "untyped_body", string(b)
	}
	switch {
	case env.Error != nil:
		return "rpc_" + strconv.Itoa(env.Error.Code), ""
	case env.Result == nil:
		return "untyped_result", string(b)
	case !env.Result.IsError:
		return "ok", ""
	}
	var te struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if len(env.Result.Content) == 0 || json.Unmarshal([]byte(env.Result.Content[0].Text), &te) != nil || te.Error.Code == "" {
		return "untyped_error_result", string(b)
	}
	return te.Error.Code, ""
}

// summarize renders calls, errors by code per phase and latency
// percentiles.
func summarize(results []outcome, elapsed time.Duration, clients int, duration time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d clients for %v (faults from %v to %v): %d calls in %v, %.0f calls/s\n",
		clients, duration, duration*3/8, duration*5/8, len(results), elapsed.Round(time.Millisecond), float64(len(results))/elapsed.Seconds())
	names := []string{"before faults", "fault phase", "after faults"}
	for p, name := range names {
		var lat []time.Duration
		codes := map[string]int{}
		for _, o := range results {
			if o.phase == p {
				lat = append(lat, o.latency)
				codes[o.code]++
			}
		}
		slices.Sort(lat)
		fmt.Fprintf(&b, "  %-13s %6d calls, p50 %v, p99 %v, max %v; outcomes: %s\n", name, len(lat),
			pct(lat, 50), pct(lat, 99), pct(lat, 100), renderCodes(codes))
	}
	var all []time.Duration
	for _, o := range results {
		all = append(all, o.latency)
	}
	slices.Sort(all)
	fmt.Fprintf(&b, "  %-13s %6d calls, p50 %v, p99 %v, max %v\n", "all", len(all), pct(all, 50), pct(all, 99), pct(all, 100))
	return b.String()
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)].Round(100 * time.Microsecond)
}

func renderCodes(codes map[string]int) string {
	keys := make([]string, 0, len(codes))
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return codes[keys[i]] > codes[keys[j]] || codes[keys[i]] == codes[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, codes[k])
	}
	return strings.Join(parts, ", ")
}

// adapterProc is the running `pdpp-mcp serve`.
type adapterProc struct {
	pid        int
	mcpURL     string
	metricsURL string
}

var (
	servingLine = regexp.MustCompile(`^\{"mcp_url":"(http://127\.0\.0\.1:\d+/mcp)"`)
	metricsLine = regexp.MustCompile(`"metrics_url":"(http://127\.0\.0\.1:\d+/metrics)"`)
)

// startAdapter runs the binary on loopback, bounded to the soak's length
// plus a margin, its logs (warnings and up) kept in the test's temp dir.
func startAdapter(t *testing.T, rsURL string, duration time.Duration) *adapterProc {
	t.Helper()
	bin := os.Getenv("SOAK_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "pdpp-mcp")
		build := exec.Command("go", "build", "-o", bin, "./cmd/pdpp-mcp")
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), duration+2*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "serve", "--provider-url", rsURL, "--addr", "127.0.0.1:0",
		"--metrics-addr", freeLoopbackAddr(t), "--log-level", "warn")
	logf, err := os.Create(filepath.Join(t.TempDir(), "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		_ = logf.Close()
	})
	p := &adapterProc{pid: cmd.Process.Pid}
	sc := bufio.NewScanner(stdout)
	for (p.mcpURL == "" || p.metricsURL == "") && sc.Scan() {
		if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
			p.mcpURL = m[1]
		}
		if m := metricsLine.FindStringSubmatch(sc.Text()); m != nil {
			p.metricsURL = m[1]
		}
	}
	if p.mcpURL == "" || p.metricsURL == "" {
		t.Fatalf("serve printed no ready lines (mcp %q, metrics %q)", p.mcpURL, p.metricsURL)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p
}

// freeLoopbackAddr is a loopback address free a moment ago: serve refuses
// a --metrics-addr equal to --addr, so both cannot be 127.0.0.1:0.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// status reads /proc/<pid>/status (VmRSS, VmHWM, …).
func (p *adapterProc) status(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// sampleRSS polls VmRSS every 250 ms until stopped; peak reports the
// highest sample in KiB.
func (p *adapterProc) sampleRSS(t *testing.T) (stop func(), peak func() int64) {
	var max atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb := parseKiB(p.status(t)["VmRSS"]); kb > max.Load() {
				max.Store(kb)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }, max.Load
}

// goroutines is go_goroutines from the adapter's metrics listener.
func (p *adapterProc) goroutines(t *testing.T) int {
	t.Helper()
	resp, err := http.Get(p.metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return int(n)
		}
	}
	t.Fatal("no go_goroutines in the metrics")
	return 0
}

// settledGoroutines waits up to 10 s for the count to come back to the
// baseline (server connections closing, detached fetches ending) and
// returns the last reading.
func (p *adapterProc) settledGoroutines(t *testing.T, baseline int) int {
	t.Helper()
	n := p.goroutines(t)
	for deadline := time.Now().Add(10 * time.Second); n > baseline && time.Now().Before(deadline); n = p.goroutines(t) {
		// waits for the spawned adapter's goroutines to end: a count read
		// from its metrics is the only sign it gives.
		time.Sleep(250 * time.Millisecond)
	}
	return n
}

func parseKiB(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	return n
}

func kib(n int64) string { return fmt.Sprintf("%d kB", n) }

func envDuration(t *testing.T, key string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive duration", key, v)
	}
	return d
}

func envInt(t *testing.T, key string, def int) int {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", key, v)
	}
	return n
}
