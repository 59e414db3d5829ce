package e2e

import (
	"bufio"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The demo in the real authorization server's posture (issue 22): `demo
// --real-auth` gives a generic sign-in a grant-package token the mock's /v1
// refuses as the real RS does, and puts the adapter's header-free sign-in
// front before it, which adds both Gmail connections to the sign-in. The
// tests here drive real clients through it, through the same RS without
// the front (a plain `serve`), across token expiry and across a restart.

// realDemo is one `pdpp-mcp demo --real-auth` whose ports, cache and token
// lifetime stay the same across restarts, as a person's demo does.
type realDemo struct {
	t     *testing.T
	args  []string
	home  string
	cmd   *exec.Cmd
	ready demoReadyJSON
	// log is the demo's stderr across every run: the adapter's access log
	// (JSON, one line per request with its status).
	log *syncBuffer
}

// demoReadyJSON is the part of `demo --json`'s line the tests read.
type demoReadyJSON struct {
	MCPURL string          `json:"mcp_url"`
	RSURL  string          `json:"rs_url"`
	SignIn json.RawMessage `json:"sign_in_authorization_details"`
}

// freeLoopbackAddr is a loopback address no one listens on right now, for
// servers that must come back on the same port after a restart.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// startRealDemo runs `demo --real-auth` (client tokens living ttl; 0:
// forever) on fixed free loopback ports with its own cache root and the
// access log on.
func startRealDemo(t *testing.T, ttl time.Duration) *realDemo {
	t.Helper()
	home := t.TempDir()
	d := &realDemo{t: t, home: home, log: &syncBuffer{}, args: []string{"demo", "--real-auth", "--json",
		"--addr", freeLoopbackAddr(t), "--rs-addr", freeLoopbackAddr(t), "--cache-root", filepath.Join(home, "cache"),
		"--token-ttl", ttl.String(), "--log-level", "info", "--log-format", "json"}}
	d.start()
	if len(d.ready.SignIn) == 0 {
		t.Fatalf("demo --real-auth names no sign-in selection: %+v", d.ready)
	}
	return d
}

// start runs the demo and waits for its ready line.
func (d *realDemo) start() {
	t := d.t
	t.Helper()
	cmd := exec.Command(binPath, d.args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + d.home, "XDG_CACHE_HOME=" + filepath.Join(d.home, ".cache")}
	cmd.Stderr = teeWriter{d.log, &testLogWriter{t: t, prefix: "demo: "}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBounded(t, cmd)
	line, err := readLine(out, 30*time.Second)
	if err != nil {
		t.Fatalf("demo --real-auth: %v", err)
	}
	var r demoReadyJSON
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.MCPURL == "" {
		t.Fatalf("demo ready line %q: %v", line, err)
	}
	if d.ready.MCPURL != "" && (r.MCPURL != d.ready.MCPURL || r.RSURL != d.ready.RSURL) {
		t.Fatalf("the restarted demo moved: %s %s, was %s %s", r.MCPURL, r.RSURL, d.ready.MCPURL, d.ready.RSURL)
	}
	d.ready, d.cmd = r, cmd
}

// restart stops the demo as Ctrl-C does and starts it again with the same
// flags: everything in memory is gone, the cache directory remains.
func (d *realDemo) restart() {
	d.t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		d.t.Logf("demo stopped (%v); starting it again", err)
	case <-time.After(15 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
		d.t.Log("demo did not stop within 15s of SIGINT; killed it")
	}
	d.start()
}

// teeWriter writes to both writers.
type teeWriter struct {
	a, b interface{ Write([]byte) (int, error) }
}

func (w teeWriter) Write(p []byte) (int, error) {
	_, _ = w.a.Write(p)
	return w.b.Write(p)
}

// accessLine is one access-log line of the adapter.
type accessLine struct {
	Msg    string `json:"msg"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// mcpStatuses are the statuses the adapter answered on /mcp, in order,
// read from a JSON log.
func mcpStatuses(log string) []int {
	var out []int
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l accessLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "http request" && l.Path == "/mcp" {
			out = append(out, l.Status)
		}
	}
	return out
}

// countStatus counts status in statuses.
func countStatus(statuses []int, status int) int {
	n := 0
	for _, s := range statuses {
		if s == status {
			n++
		}
	}
	return n
}

// startBareServe runs `serve` against rsURL without the sign-in front (no
// --sign-in-details): a generic sign-in there reaches the RS's AS as is.
// It returns the MCP URL and the access log.
func startBareServe(t *testing.T, rsURL string) (string, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	cmd := exec.Command(binPath, "serve", "--provider-url", rsURL, "--addr", "127.0.0.1:0", "--log-level", "info", "--log-format", "json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cmd.Stderr = teeWriter{log, &testLogWriter{t: t, prefix: "serve: "}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBounded(t, cmd)
	line, err := readLine(out, 30*time.Second)
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	m := serveReady.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serve ready line %q does not match %v", line, serveReady)
	}
	return m[1], log
}

// TestTypeScriptSDKRealAuth: the official TypeScript SDK client signs in
// header-free against the demo in the real AS's posture. Through the
// adapter's sign-in front it gets a grant over both Gmail connections and
// reads records of both, before and after its token expires (the mock
// answers the expired token 403 grant_expired like the real RS; the adapter
// turns that into a 401 challenge, the SDK refreshes and carries on).
// Pointed at an adapter over the same RS without the front, the same
// sign-in yields a grant-package token, and the client ends in a 401 that
// says what the token is and how to get one: never data, never 503.
func TestTypeScriptSDKRealAuth(t *testing.T) {
	t.Parallel()
	modules := requireNodeModules(t)
	demo := startRealDemo(t, oauthTokenTTL)
	t.Run("front", func(t *testing.T) {
		t.Parallel()
		s := runOAuthScenario(t, modules, demo.ready.MCPURL, "both")
		want := map[string]oauthStep{
			"signed_in":              {OK: true, RegisteredClient: true, HasRefreshToken: true},
			"read_both":              {OK: true, HasWork: true, HasPersonal: true},
			"read_both_after_expiry": {OK: true, HasWork: true, HasPersonal: true, TokenChanged: true},
		}
		if diff := cmp.Diff(want, s.Steps); diff != "" {
			t.Errorf("sign-in through the front (-want +got):\n%s", diff)
		}
		w := s.Wire
		// The browser went to the adapter's authorize endpoint first, which
		// sent it on to the RS's AS, which sent it back to the client.
		adapter, rs := origin(demo.ready.MCPURL), origin(demo.ready.RSURL)
		if len(w.AuthorizeHops) != 2 || w.AuthorizeHops[0] != rs || s.Redirects != 1 {
			t.Errorf("authorize hops %q after %d authorize redirects; want one sign-in, sent from the adapter (%s) to the RS's AS (%s) and back", w.AuthorizeHops, s.Redirects, adapter, rs)
		}
		// One 401 to start the sign-in, one for the expired token (403
		// grant_expired at the RS), healed by one refresh.
		if w.MCP401 != 2 || w.Register != 1 || w.CodeExchange != 1 || w.RefreshOK != 1 || w.RefreshFailed != 0 {
			t.Errorf("wire: %+v; want 2 /mcp 401s, 1 registration, 1 code exchange, 1 refresh", w)
		}
		if len(w.Challenges) == 2 && w.Challenges[1].Error != "invalid_token" {
			t.Errorf("the expired token's challenge is %+v; want error=\"invalid_token\"", w.Challenges[1])
		}
		if n := countStatus(w.MCPStatuses, 503); n > 0 {
			t.Errorf("%d answers 503 on /mcp: %v", n, w.MCPStatuses)
		}
	})
	t.Run("no_front", func(t *testing.T) {
		t.Parallel()
		bare, log := startBareServe(t, demo.ready.RSURL)
		s := runOAuthScenario(t, modules, bare, "package")
		if st := s.Steps["sign_in"]; st.OK || !st.TokenIssued || st.HasWork || st.HasPersonal {
			t.Errorf("sign-in without the front: %+v; want a token issued and then refused, no data", st)
		}
		w := s.Wire
		if len(w.Challenges) < 2 {
			t.Fatalf("challenges %+v; want the sign-in's and the package token's", w.Challenges)
		}
		last := w.Challenges[len(w.Challenges)-1]
		for _, part := range []string{"grant-package token", "grant-scoped client tokens", "--sign-in-details", "pdpp connect"} {
			if !strings.Contains(last.ErrorDescription, part) {
				t.Errorf("the package token's challenge says %q; want it to name %q", last.ErrorDescription, part)
			}
		}
		if last.Error != "invalid_token" {
			t.Errorf("the package token's challenge error is %q, want invalid_token", last.Error)
		}
		statuses := mcpStatuses(log.String())
		if countStatus(w.MCPStatuses, 503)+countStatus(statuses, 503) > 0 || w.MCPOK > 0 {
			t.Errorf("/mcp answers: client saw %v, adapter logged %v; want 401s only, never 503 or data", w.MCPStatuses, statuses)
		}
	})
}

// origin is a URL's scheme://host:port.
func origin(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	return parsed.Scheme + "://" + parsed.Host
}
