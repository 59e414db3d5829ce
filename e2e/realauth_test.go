package e2e

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// The demo in the real authorization server's posture: `demo
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
	log *testenv.Output
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
	d := &realDemo{t: t, home: home, log: &testenv.Output{}, args: []string{"demo", "--real-auth", "--json",
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
	line := startReady(t, cmd, "demo --real-auth")
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
// flags but the client tokens' lifetime ttl: everything in memory is gone,
// the cache directory remains.
func (d *realDemo) restart(ttl time.Duration) {
	d.t.Helper()
	for i, a := range d.args {
		if a == "--token-ttl" {
			d.args[i+1] = ttl.String()
		}
	}
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
// read from a JSON log; method "" is every method.
func mcpStatuses(log, method string) []int {
	var out []int
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l accessLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "http request" && l.Path == "/mcp" && (method == "" || l.Method == method) {
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

// serveLogged runs `serve` against rsURL with extra flags and the JSON
// access log, and returns its MCP URL and the log. Without extra flags
// there is no sign-in front (no --sign-in-details): a generic sign-in
// there reaches the RS's AS as is.
func serveLogged(t *testing.T, rsURL string, extra ...string) (string, *testenv.Output) {
	t.Helper()
	log := &testenv.Output{}
	cmd := exec.Command(binPath, append([]string{"serve", "--provider-url", rsURL, "--addr", "127.0.0.1:0",
		"--log-level", "info", "--log-format", "json"}, extra...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cmd.Stderr = teeWriter{log, &testLogWriter{t: t, prefix: "serve: "}}
	line := startReady(t, cmd, "serve")
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
// It takes ~6 s: the journey waits out a real token lifetime in the demo
// (oauthTokenTTL) and runs Node processes.
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
		bare, log := serveLogged(t, demo.ready.RSURL)
		s := runOAuthScenario(t, modules, bare, "package")
		if st := s.Steps["sign_in"]; st.OK || !st.TokenIssued || st.HasWork || st.HasPersonal {
			t.Errorf("sign-in without the front: %+v; want a token issued and then refused, no data", st)
		}
		w := s.Wire
		if len(w.Challenges) < 2 {
			t.Fatalf("challenges %+v; want the sign-in's and the package token's", w.Challenges)
		}
		last := w.Challenges[len(w.Challenges)-1]
		for _, part := range []string{"grant-package token", "grant-scoped client tokens", "--sign-in-details", "pdpp-mcp connect"} {
			if !strings.Contains(last.ErrorDescription, part) {
				t.Errorf("the package token's challenge says %q; want it to name %q", last.ErrorDescription, part)
			}
		}
		if last.Error != "invalid_token" {
			t.Errorf("the package token's challenge error is %q, want invalid_token", last.Error)
		}
		statuses := mcpStatuses(log.String(), "")
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

// hostTokenTTL is the client tokens' lifetime once the host journey's
// demo restarts: long enough for a host to start and make its first call
// on the token it signed in with, short enough that the test waits it out
// (each journey runs ~hostTokenTTL + 10 s).
const hostTokenTTL = 15 * time.Second

// hostSignInTTL is the lifetime the host is told at sign-in (expires_in).
// It outlives the journey, so a host that refreshes ahead of expiry has no
// reason to: only the RS's refusal (403 grant_expired, the adapter's 401)
// can make it refresh, which is the path under test.
const hostSignInTTL = time.Hour

// realAuthHost drives one host (Claude Code or Codex) through the sign-in
// and a scripted model turn, with one HOME for all of it.
type realAuthHost struct {
	name string
	// signIn registers the adapter at mcpURL under hostedServerKey and
	// signs in (the test plays the browser).
	signIn func(t *testing.T, h *hostRun, mcpURL string)
	// turn runs one model turn against h.model.
	turn func(t *testing.T, h *hostRun) (string, error)
}

// hostRun is one host's HOME, working directory and model endpoint.
type hostRun struct {
	env   []string
	dir   string
	model *scriptedModel
}

// realAuthHosts are the two hosts, set up as in host_captures_test.go.
func realAuthHosts() []realAuthHost {
	return []realAuthHost{{
		name: "claude",
		signIn: func(t *testing.T, h *hostRun, mcpURL string) {
			if out, err := runHost(t, h.dir, h.env, "claude mcp add --transport http "+hostedServerKey+" "+mcpURL); err != nil {
				t.Fatalf("claude mcp add: %v\n%s", err, out)
			}
			claudeSignIn(t, h.dir, h.env)
		},
		turn: func(t *testing.T, h *hostRun) (string, error) {
			return runHost(t, h.dir, h.env, "claude -p 'Use the pdpp tools.' --allowedTools mcp__"+hostedServerKey+" --output-format json </dev/null")
		},
	}, {
		name: "codex",
		signIn: func(t *testing.T, h *hostRun, mcpURL string) {
			codexSignIn(t, h.env, "codex mcp add "+hostedServerKey+" --url "+mcpURL)
		},
		turn: func(t *testing.T, h *hostRun) (string, error) {
			return runHost(t, h.dir, h.env, "codex exec --skip-git-repo-check --json 'Use the pdpp tools.' </dev/null")
		},
	}}
}

// newHostRun prepares a host's HOME with its model endpoint: Claude Code
// through ANTHROPIC_BASE_URL, Codex through a custom provider.
func newHostRun(t *testing.T, host string, steps []scriptStep) *hostRun {
	t.Helper()
	bins := hostBins(t)
	h := &hostRun{dir: t.TempDir(), model: newScriptedModel(t, hostedServerKey, steps)}
	if host == "claude" {
		h.env = hostEnv(t, bins, newOfflineProxy(t), "ENABLE_TOOL_SEARCH=false",
			"ANTHROPIC_BASE_URL="+h.model.url, "ANTHROPIC_API_KEY=sk-ant-e2e-scripted-model-no-key")
		return h
	}
	h.env = hostEnv(t, bins, newOfflineProxy(t))
	config := `model = "scripted"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted model"
base_url = "` + h.model.url + `/v1"
wire_api = "responses"
requires_openai_auth = false

[features]
plugins = false

[analytics]
enabled = false
`
	if err := os.WriteFile(filepath.Join(envValue(h.env, "CODEX_HOME"), "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// readBothStep reads Gmail messages across the grant: a page of records of
// both connections. wait, when set, runs before the call is handed to the
// host (while the model "thinks").
func readBothStep(wait func()) scriptStep {
	return scriptStep{tool: "query_records", args: func([]hostCapture) map[string]any {
		if wait != nil {
			wait()
		}
		return map[string]any{"stream": "messages", "limit": 10}
	}}
}

// checkReadBoth: the host handed the model records of both connections.
func checkReadBoth(t *testing.T, what string, c hostCapture) {
	t.Helper()
	for _, conn := range []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID} {
		if c.isError || !strings.Contains(c.model, conn) {
			t.Errorf("%s: the model got no record of %s (error %t):\n%.800s", what, conn, c.isError, c.model)
		}
	}
}

// TestHostsRealAuth: Claude Code and Codex sign in header-free through
// the sign-in front of `demo --real-auth` (both Gmail connections); the
// demo restarts between sign-in and use (with a shorter token lifetime than
// the host was told, so the RS, not the host's clock, ends the token); then
// one model turn reads records of both connections, waits until the token
// has expired at the RS (403 grant_expired, the adapter's 401 challenge)
// and reads again: the host refreshes by itself, without a new sign-in or
// `logout`. It takes ~20 s per host: the host starts, signs in, and the
// turn waits out hostTokenTTL on the real clock.
func TestHostsRealAuth(t *testing.T) {
	t.Parallel()
	for _, host := range realAuthHosts() {
		t.Run(host.name, func(t *testing.T) {
			t.Parallel()
			demo := startRealDemo(t, hostSignInTTL)
			var firstCall time.Time
			var once sync.Once
			// The second read waits until the token the host signed in
			// with has expired at the RS.
			var signedIn time.Time
			waitPastExpiry := func() {
				once.Do(func() {
					firstCall = time.Now()
					// waits for the demo's real clock to end the host's token
					// at the RS: the spawned demo has no clock a test can move.
					time.Sleep(time.Until(signedIn.Add(hostTokenTTL + 2*time.Second)))
				})
			}
			h := newHostRun(t, host.name, []scriptStep{readBothStep(nil), readBothStep(waitPastExpiry)})
			host.signIn(t, h, demo.ready.MCPURL)
			signedIn = time.Now()
			demo.restart(hostTokenTTL)
			restartedAt := len(demo.log.String())
			out, err := host.turn(t, h)
			checkScriptRan(t, host.name, h.model, out, err)
			caps, _, _, _ := h.model.recorded()
			if len(caps) != 2 {
				t.Fatalf("%d of 2 tool results reached the model:\n%s", len(caps), out)
			}
			checkReadBoth(t, "before expiry", caps[0])
			checkReadBoth(t, "after expiry", caps[1])
			after := demo.log.String()[restartedAt:]
			statuses, posts := mcpStatuses(after, ""), mcpStatuses(after, http.MethodPost)
			t.Logf("%s: first call %.1fs after sign-in (token ttl %s); after the restart /mcp answered POSTs %v, all %v; RS refused an expired token: %t",
				host.name, firstCall.Sub(signedIn).Seconds(), hostTokenTTL, posts, statuses, strings.Contains(after, `"error_code":"grant_expired"`))
			if n := countStatus(statuses, 503); n > 0 {
				t.Errorf("%d answers 503 on /mcp after the restart: %v", n, statuses)
			}
			if firstCall.After(signedIn.Add(hostTokenTTL)) {
				t.Errorf("the first call came %s after sign-in, after the token expired: nothing was read before expiry", firstCall.Sub(signedIn))
			}
			if !strings.Contains(after, `"error_code":"grant_expired"`) || countStatus(posts, http.StatusUnauthorized) == 0 {
				t.Error("the RS never refused an expired token with 403 grant_expired, or the adapter never challenged it: the journey did not cross an expiry")
			}
			if strings.Contains(after, `"path":"/oauth/authorize"`) {
				t.Error("the host went through the browser sign-in again after the restart")
			}
		})
	}
}

// TestHostsPackageToken: Claude Code and Codex sign in header-free at an
// adapter without the sign-in front, over the RS in the real AS's posture.
// The sign-in itself succeeds (the AS issues a grant-package token); the
// adapter must then answer that token with its 401 explanation — never
// 503, never data — and the host must not loop on it. It takes ~5 s: a
// real host's sign-in and one turn, in subprocesses.
func TestHostsPackageToken(t *testing.T) {
	t.Parallel()
	demo := startRealDemo(t, 0)
	for _, host := range realAuthHosts() {
		t.Run(host.name, func(t *testing.T) {
			t.Parallel()
			bare, log := serveLogged(t, demo.ready.RSURL)
			h := newHostRun(t, host.name, []scriptStep{readBothStep(nil)})
			host.signIn(t, h, bare)
			out, err := host.turn(t, h)
			caps, offered, requests, _ := h.model.recorded()
			t.Logf("%s turn (%v); model endpoint requests %q, tools offered %q:\n%.3000s", host.name, err, requests, offered, out)
			if len(caps) > 0 {
				t.Errorf("the host read data with a package token: %q", caps[0].model)
			}
			got := log.String()
			all, posts := mcpStatuses(got, ""), mcpStatuses(got, http.MethodPost)
			t.Logf("%s: the adapter answered /mcp POSTs %v, all %v; the host's output names the grant-package token: %t",
				host.name, posts, all, strings.Contains(out, "grant-package token"))
			if !strings.Contains(got, `"msg":"token the RS does not serve to this adapter"`) || !strings.Contains(got, `"package":true`) {
				t.Error("the adapter never saw the package token: the host did not present it")
			}
			if n := countStatus(all, 503); n > 0 || countStatus(posts, 200) > 0 || countStatus(posts, 401) == 0 {
				t.Errorf("/mcp answers %v; want 401s (the explanation), no 200 and never 503", all)
			}
			// A host that gives up after the refused token sends a handful;
			// a loop sends many.
			if len(all) > 30 {
				t.Errorf("the host sent %d /mcp requests: it loops on the refusal", len(all))
			}
		})
	}
}
