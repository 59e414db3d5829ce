package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// requireNginx returns the nginx binary. Without one the test skips with
// how to install it — or fails under CI=true, where .ci/setup-nginx has run.
func requireNginx(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	msg := "nginx is not installed; run .ci/setup-nginx (Debian package nginx)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " — CI=true, so this is a failure, not a skip")
	}
	t.Skip(msg)
	return ""
}

// upstreamHeader names, on every response, the replica(s) nginx sent the
// request to ($upstream_addr: "A" or, after a retry, "A, B").
const upstreamHeader = "X-Pdpp-Upstream"

// nginxConf is a loopback-only round-robin proxy in front of the replicas:
// one foreground process (no daemon, no master/worker split, so killing it
// by PID stops it all), every path under the test's directory, and no
// upstream keepalive, so each request picks its replica afresh. Host is
// passed through: replicas listening on loopback refuse any Host that is not
// loopback (the Go SDK's DNS-rebinding guard), and nginx would send "pdpp".
const nginxConf = `daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 256; }
http {
  log_format upstreams '$status "$upstream_addr" "$upstream_status"';
  access_log %[1]s/access.log upstreams;
  client_body_temp_path %[1]s/client_body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  upstream pdpp {
%[2]s  }
  server {
    listen 127.0.0.1:%[3]d;
    location / {
      proxy_pass http://pdpp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
      add_header ` + upstreamHeader + ` $upstream_addr always;
    }
  }
}
`

// startNginx runs nginx in front of the replicas' host:port addresses and
// returns its /mcp URL and its directory (access.log is there).
func startNginx(t *testing.T, nginx string, replicas []string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close() // nginx takes the port over; a race with another listener fails the start, loudly
	var servers strings.Builder
	for _, r := range replicas {
		// After one failure nginx skips a replica for fail_timeout, then
		// tries it again; 1s (default 10s) lets the load see that retry.
		fmt.Fprintf(&servers, "    server %s max_fails=1 fail_timeout=1s;\n", r)
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, nginxConf, dir, servers.String(), port), 0o600); err != nil {
		t.Fatal(err)
	}
	// -e: the error log before the config is read (else /var/log/nginx).
	cmd := exec.Command(nginx, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	cmd.Stderr = &testLogWriter{t: t, prefix: "nginx: "}
	startBounded(t, cmd)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(15 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx does not listen on %s: %v\n%s", addr, err, errLog)
		}
		// waits for nginx to listen: it signals nothing a test can await.
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		if errLog, _ := os.ReadFile(filepath.Join(dir, "error.log")); len(errLog) > 0 {
			t.Logf("nginx error.log:\n%s", errLog)
		}
	})
	return "http://" + addr + "/mcp", dir
}

// routeRecorder adds the bearer to each request and remembers, per
// response, which replica nginx chose. A session's calls run one at a
// time, so the last route is the last call's.
type routeRecorder struct {
	bearer string
	mu     sync.Mutex
	routes []string
}

func (r *routeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+r.bearer)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost {
		r.mu.Lock()
		r.routes = append(r.routes, resp.Header.Get(upstreamHeader))
		r.mu.Unlock()
	}
	return resp, err
}

// snapshot is every route so far, oldest first.
func (r *routeRecorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.routes)
}

// last is the route of the most recent POST.
func (r *routeRecorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.routes) == 0 {
		return ""
	}
	return r.routes[len(r.routes)-1]
}

// recordedSession is a Go SDK session through a routeRecorder.
func recordedSession(t *testing.T, mcpURL, bearer string) (*goSession, *routeRecorder) {
	t.Helper()
	rec := &routeRecorder{bearer: bearer}
	tr := &mcp.StreamableClientTransport{Endpoint: mcpURL, HTTPClient: &http.Client{Transport: rec, Timeout: 30 * time.Second},
		MaxRetries: -1, DisableStandaloneSSE: true}
	return connect(t, tr, defaultProtocol), rec
}

// TestScaleOut runs three `serve` replicas sharing one cursor secret
// behind a real nginx, round robin with no affinity: continuation cursors
// (query_records next_cursor, read_record_field next) minted on one replica
// are redeemed on the others; a replica with another secret refuses them;
// and killing one replica under load loses only calls in flight at the kill.
//
// It takes about 6 s (measured alone), on purpose: the kill subtest keeps
// load on for 2.5 s before the kill and 2.5 s after it, so calls run
// before, across and after the kill even on a loaded machine.
func TestScaleOut(t *testing.T) {
	t.Parallel()
	nginx := requireNginx(t)
	secret := randomHex(t, 32)
	var replicas []string
	var procs []*exec.Cmd
	for i := range 3 {
		u, cmd := startServeEnv(t, fmt.Sprintf("replica %d: ", i), []string{"PDPP_MCP_CURSOR_SECRET=" + secret})
		replicas = append(replicas, hostPort(t, u))
		procs = append(procs, cmd)
	}
	lbURL, lbDir := startNginx(t, nginx, replicas)
	bearer := mockRS.bearer(t, demodata.GmailGrantID)

	t.Run("query_records_cursor_chain", func(t *testing.T) {
		s, rec := recordedSession(t, lbURL, bearer)
		args := map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID, "limit": 2}
		seen := map[string]bool{}
		var routes []string
		for page := 1; ; page++ {
			if page > 50 {
				t.Fatal("more than 50 pages: the cursor does not advance")
			}
			r := ok(t, s.call("query_records", args), fmt.Sprintf("query_records page %d", page))
			routes = append(routes, rec.last())
			for _, m := range reRecordLine.FindAllStringSubmatch(r.Text, -1) {
				if seen[m[1]] {
					t.Errorf("page %d repeats %s", page, m[1])
				}
				seen[m[1]] = true
			}
			m := reNextCursor.FindStringSubmatch(r.Text)
			if m == nil {
				break
			}
			args["cursor"] = m[1]
		}
		t.Logf("%d pages, %d records; replica per page: %v", len(routes), len(seen), routes)
		requireCrossReplica(t, routes, replicas)
	})

	t.Run("read_record_field_cursor_chain", func(t *testing.T) {
		s, rec := recordedSession(t, lbURL, bearer)
		before := len(rec.snapshot())
		journeyEvidence(t, s)               // search, then every window of the field through `next`
		routes := rec.snapshot()[before+1:] // the read_record_field calls, after the search
		t.Logf("%d read_record_field calls; replica per call: %v", len(routes), routes)
		requireCrossReplica(t, routes, replicas)
	})

	t.Run("other_secret_refuses", func(t *testing.T) {
		// The control: the same cursor on a replica with another secret.
		lb, _ := recordedSession(t, lbURL, bearer)
		oddURL, _ := startServeEnv(t, "odd replica: ", []string{"PDPP_MCP_CURSOR_SECRET=" + randomHex(t, 32)})
		odd := connectHTTP(t, oddURL, bearer, defaultProtocol)
		hits := ok(t, lb.call("search", map[string]any{"q": demodata.LongBodyTerm}), "search")
		id, field := match(t, reFirstFetchID, hits.Text), match(t, reFirstHitField, hits.Text)
		h, _ := splitWindow(t, ok(t, lb.call("read_record_field", map[string]any{"id": id, "field_path": field}), "read_record_field").Text)
		if h.Next == nil || h.Next.Args["cursor"] == nil {
			t.Fatalf("the first window has no next cursor: %+v", h)
		}
		if r := odd.call("read_record_field", h.Next.Args); !r.IsError || !strings.Contains(r.Text, "cursor") {
			t.Errorf("a replica with another secret took the cursor: isError=%v\n%s", r.IsError, r.Text)
		}
		ok(t, lb.call("read_record_field", h.Next.Args), "the same cursor through nginx")
	})

	t.Run("kill_one_replica_under_load", func(t *testing.T) {
		killUnderLoad(t, lbURL, lbDir, bearer, replicas[1], procs[1])
	})
}

// callRecord is one call of the load: when it ran, where nginx sent it,
// and whether it failed (a client error or an isError result).
type callRecord struct {
	start, end time.Time
	route      string
	err        string
}

// killUnderLoad keeps workers calling query_records through nginx, kills
// the victim replica (SIGKILL, then reaped) half way, and checks that every
// failed call was in flight at the kill and was routed to the victim.
func killUnderLoad(t *testing.T, lbURL, lbDir, bearer, victimAddr string, victim *exec.Cmd) {
	const workers = 6
	const warmCalls = 8 * workers         // calls answered before the kill
	const phase = 2500 * time.Millisecond // load after the kill: past nginx's fail_timeout (1s)
	args := map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID, "limit": 2}
	client := mcp.NewClient(&mcp.Implementation{Name: "pdpp-mcp-e2e-load", Version: "1"}, nil)
	open := func(rec *routeRecorder) (*mcp.ClientSession, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tr := &mcp.StreamableClientTransport{Endpoint: lbURL, HTTPClient: &http.Client{Transport: rec, Timeout: 10 * time.Second},
			MaxRetries: -1, DisableStandaloneSSE: true}
		return client.Connect(ctx, tr, nil)
	}

	stop, warm := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var calls []callRecord
	warmed := false
	var wg sync.WaitGroup
	for range workers {
		rec := &routeRecorder{bearer: bearer}
		cs, err := open(rec)
		if err != nil {
			t.Fatalf("connect through nginx: %v", err)
		}
		wg.Go(func() {
			defer func() { _ = cs.Close() }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c := callRecord{start: time.Now()}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query_records", Arguments: args})
				cancel()
				c.end, c.route = time.Now(), rec.last()
				switch {
				case err != nil:
					c.err = err.Error()
				case res.IsError:
					c.err = "isError result"
				}
				mu.Lock()
				calls = append(calls, c)
				if !warmed && len(calls) >= warmCalls {
					warmed = true
					close(warm)
				}
				mu.Unlock()
				if err != nil {
					// A real client opens a new session after a transport
					// error; the old one may be unusable.
					_ = cs.Close()
					if cs, err = open(rec); err != nil {
						mu.Lock()
						calls = append(calls, callRecord{start: c.end, end: time.Now(), err: "reconnect: " + err.Error()})
						mu.Unlock()
						return
					}
				}
			}
		})
	}
	select {
	case <-warm:
	case <-time.After(time.Minute):
		close(stop)
		wg.Wait()
		t.Fatalf("%d of %d calls answered through nginx in a minute", len(calls), warmCalls)
	}
	killStart := time.Now()
	_ = victim.Process.Kill()
	_, _ = victim.Process.Wait() // reaped: its sockets are closed
	killDone := time.Now()
	// waits for nginx's fail_timeout to pass under load, so the calls meet
	// its retry of the killed replica: nginx signals nothing to await.
	time.Sleep(phase)
	close(stop)
	wg.Wait()

	var before, after, inFlight, lost int
	var failures []string
	for _, c := range calls {
		active := c.start.Before(killDone) && c.end.After(killStart)
		switch {
		case active:
			inFlight++
		case c.end.Before(killStart):
			before++
		default:
			after++
		}
		if c.err == "" {
			if c.start.After(killDone) && c.route == victimAddr {
				t.Errorf("a call started %v after the kill was answered by the killed replica alone",
					c.start.Sub(killDone).Round(time.Millisecond))
			}
			continue
		}
		switch {
		case !active:
			t.Errorf("a call failed that was not in flight at the kill (started %v after the kill began): %s",
				c.start.Sub(killStart).Round(time.Millisecond), c.err)
		case !strings.Contains(c.route, victimAddr):
			t.Errorf("a call in flight at the kill failed on another replica (%q): %s", c.route, c.err)
		default:
			lost++
		}
		failures = append(failures, fmt.Sprintf("%s via %q", c.err, c.route))
	}
	retried, statuses := nginxRetries(t, lbDir)
	t.Logf("load: %d workers, %d calls (%d finished before the kill, %d in flight at it, %d started after it); "+
		"failed: %d, all in flight at the kill and routed to the killed replica %s; kill took %v; "+
		"nginx: %d requests retried on another replica, response statuses %v",
		workers, len(calls), before, inFlight, after, lost, victimAddr, killDone.Sub(killStart).Round(time.Microsecond), retried, statuses)
	for _, f := range failures {
		t.Logf("failed call: %s", f)
	}
	if before == 0 || after == 0 {
		t.Errorf("too little load to judge: %d calls before the kill, %d after", before, after)
	}
	if lost > inFlight {
		t.Errorf("%d calls lost, more than the %d in flight at the kill", lost, inFlight)
	}
}

// nginxRetries reads nginx's access log: how many requests went to more
// than one replica (nginx retries a request on the next replica when the
// connection fails before the request was sent), and the count of each
// response status.
func nginxRetries(t *testing.T, dir string) (int, map[string]int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "access.log"))
	if err != nil {
		t.Fatalf("nginx access log: %v", err)
	}
	retried, statuses := 0, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		status, rest, _ := strings.Cut(line, " ")
		statuses[status]++
		if addrs, _, _ := strings.Cut(strings.TrimPrefix(rest, `"`), `"`); strings.Contains(addrs, ",") {
			retried++
		}
	}
	return retried, statuses
}

// requireCrossReplica fails unless a chain's calls were spread over every
// replica — round robin with no affinity sends consecutive calls to
// different replicas, so each cursor is redeemed where it was not minted.
func requireCrossReplica(t *testing.T, routes, replicas []string) {
	t.Helper()
	if len(routes) < len(replicas) {
		t.Fatalf("%d chained calls; need at least %d to cross every replica", len(routes), len(replicas))
	}
	got := slices.Clone(routes)
	slices.Sort(got)
	got = slices.Compact(got)
	want := slices.Sorted(slices.Values(replicas))
	if !slices.Equal(got, want) {
		t.Errorf("chained calls went to %v, want every replica %v", got, want)
	}
	for i := 1; i < len(routes); i++ {
		if routes[i] == routes[i-1] {
			t.Errorf("calls %d and %d both went to %s: not round robin", i, i+1, routes[i])
		}
	}
}

// hostPort is the host:port of an http URL.
func hostPort(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// randomHex is n random bytes, hex-encoded.
func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
