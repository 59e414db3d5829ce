package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/testenv"
)

// The real MCP hosts: Claude Code and Codex, pinned in node/package-lock.json
// (their npm packages ship native binaries in per-platform packages). Each
// runs with HOME and its config directory in a fresh temporary directory, so
// nothing reads or writes the user's real configuration, and with every
// proxy variable pointing at a loopback recorder that refuses everything, so
// any attempt to reach beyond loopback is seen and fails the test.

// hostBins returns a directory holding `claude`, `codex` and `pdpp-mcp` —
// the names the demo's printed commands use — linked to the pinned binaries.
func hostBins(t *testing.T) string {
	t.Helper()
	modules := requireNodeModules(t)
	plat, ok := map[string]string{"linux/amd64": "linux-x64", "linux/arm64": "linux-arm64",
		"darwin/amd64": "darwin-x64", "darwin/arm64": "darwin-arm64"}[runtime.GOOS+"/"+runtime.GOARCH]
	if !ok {
		t.Skipf("no Claude Code / Codex npm binaries for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	find := func(patterns ...string) string {
		for _, p := range patterns {
			if m, _ := filepath.Glob(filepath.Join(modules, p)); len(m) > 0 {
				return m[0]
			}
		}
		t.Fatalf("none of %v under %s; rerun .ci/setup-e2e", patterns, modules)
		return ""
	}
	dir := t.TempDir()
	for name, target := range map[string]string{
		// npm installs the glibc or the musl build, whichever fits the machine.
		"claude":   find("@anthropic-ai/claude-code-"+plat+"/claude", "@anthropic-ai/claude-code-"+plat+"-musl/claude"),
		"codex":    find("@openai/codex-" + plat + "/vendor/*/bin/codex"),
		"pdpp-mcp": binPath,
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// offlineProxy records every request a host sends through the proxy
// variables and refuses it; hosts reach loopback directly (NO_PROXY).
type offlineProxy struct {
	url  string
	mu   sync.Mutex
	seen []string
}

func newOfflineProxy(t *testing.T) *offlineProxy {
	p := &offlineProxy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.Host)
		p.mu.Unlock()
		http.Error(w, "e2e: no network beyond loopback", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.seen) > 0 {
			t.Errorf("a host tried to reach beyond loopback (refused): %q", p.seen)
		}
	})
	return p
}

// hostEnv is a host's whole environment: a fresh HOME with its config
// directories inside, the proxy recorder, and no telemetry, update checks or
// error reporting (Claude Code sends those to its API by default). extra
// holds further VAR=value pairs.
func hostEnv(t *testing.T, bins string, proxy *offlineProxy, extra ...string) []string {
	home := t.TempDir()
	env := []string{
		"PATH=" + bins + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"NO_COLOR=1",
		"TERM=dumb",
	}
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, v+"="+proxy.url)
	}
	env = append(env, "NO_PROXY=127.0.0.1,localhost,::1", "no_proxy=127.0.0.1,localhost,::1")
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	return append(env, extra...)
}

// envValue is the value of name in env (VAR=value pairs).
func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// runHost runs a shell script (printed setup lines, verbatim) in dir with
// env, bounded by processTimeout, and returns its combined output.
func runHost(t *testing.T, dir string, env []string, script string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// demoSetup is what `pdpp-mcp demo` printed, split into the lines a user
// copies: shell commands for each host and the mcpServers JSON blocks.
type demoSetup struct {
	mcpURL  string
	exports []string // `export VAR="…"` lines, run before every command
	claude  []string // `claude mcp …` commands
	codex   []string // `codex mcp …` commands
	mcpJSON []string // JSON objects with "mcpServers" (a .mcp.json block)
}

// demoReadyLine is the first line of the demo's human output.
var demoReadyLine = regexp.MustCompile(`(?m)^pdpp-mcp demo ready: (http://127\.0\.0\.1:\d+/mcp)\s*$`)

// parseDemoSetup picks the setup lines out of the demo's output by their
// leading command name, whatever headings and order surround them; a line
// ending in a backslash continues on the next, as in a shell.
func parseDemoSetup(t *testing.T, out string) demoSetup {
	t.Helper()
	var s demoSetup
	s.mcpURL = match(t, demoReadyLine, out)
	lines := strings.Split(strings.ReplaceAll(out, "\\\n", " "), "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "export "):
			s.exports = append(s.exports, l)
		case strings.HasPrefix(l, "claude mcp "):
			s.claude = append(s.claude, l)
		case strings.HasPrefix(l, "codex mcp "):
			s.codex = append(s.codex, l)
		case strings.HasPrefix(l, "{"):
			// A JSON block may span lines; decode from here on.
			var v struct {
				MCPServers map[string]json.RawMessage `json:"mcpServers"`
			}
			dec := json.NewDecoder(strings.NewReader(strings.Join(lines[i:], "\n")))
			if dec.Decode(&v) == nil && len(v.MCPServers) > 0 {
				raw, _ := json.Marshal(v)
				s.mcpJSON = append(s.mcpJSON, string(raw))
			}
		}
	}
	return s
}

// hosted tells a hosted (Streamable HTTP) host command from a stdio one:
// stdio commands name a program after `--` or in a JSON "command".
func hostedCommand(cmd string) bool {
	return !strings.Contains(cmd, " -- ") && !strings.Contains(cmd, `"command"`)
}

// startDemo runs `pdpp-mcp demo` on free loopback ports with HOME in a
// temporary directory and returns its printed setup once complete.
func startDemo(t *testing.T) demoSetup {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(binPath, "demo", "--addr", "127.0.0.1:0", "--rs-addr", "127.0.0.1:0")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")}
	cmd.Stderr = &testLogWriter{t: t, prefix: "demo: "}
	var out testenv.Output
	cmd.Stdout = &out
	startBounded(t, cmd)
	// The setup is printed in one write once both servers listen (a pipe
	// may hand it over in pieces); its last line is demoSetupEnd.
	complete := func(got string) bool {
		return demoReadyLine.MatchString(got) && strings.Contains(got, "claude mcp ") && strings.Contains(got, "codex mcp ") &&
			strings.Contains(got, demoSetupEnd)
	}
	if !out.Await(complete, 30*time.Second) {
		t.Fatalf("demo printed no complete setup within 30s:\n%s", out.String())
	}
	got := out.String()
	t.Logf("demo output:\n%s", got)
	return parseDemoSetup(t, got)
}

// demoSetupEnd is the last line of the demo's printed setup.
const demoSetupEnd = "Press Ctrl-C to stop.\n"

// claudeNeedsSignIn is the status `claude mcp list` shows (Claude Code
// 2.x, offline) for an HTTP server whose 401 challenge leads to an
// OAuth authorization server it has not signed in to yet.
const claudeNeedsSignIn = "! Needs authentication"

// claudeListLine is one server in `claude mcp list` (after its health check).
var claudeListLine = regexp.MustCompile(`(?m)^([\w.-]+): (.+) - (.+)$`)

// TestClaudeCode registers the demo in Claude Code with each command the
// demo prints for it, exactly as printed (run by sh), and requires `claude
// mcp list` to report the server connected: hosted over Streamable HTTP with
// the bearer header, and the stdio server. The header-free hosted command
// first lists as needing sign-in; after `claude mcp login` (OAuth against
// the demo's authorization server) it lists as connected. Each printed form gets a fresh
// HOME, so forms that reuse one server name do not collide.
func TestClaudeCode(t *testing.T) {
	t.Parallel()
	bins := hostBins(t)
	setup := startDemo(t)
	var hosted, stdio []string
	for _, c := range setup.claude {
		if hostedCommand(c) {
			hosted = append(hosted, c)
		} else {
			stdio = append(stdio, c)
		}
	}
	var checkStatus func(t *testing.T, script, dir, wantTarget, wantStatus string, env []string)
	check := func(t *testing.T, script, dir, wantTarget string, env []string) {
		t.Helper()
		checkStatus(t, script, dir, wantTarget, "Connected", env)
	}
	checkStatus = func(t *testing.T, script, dir, wantTarget, wantStatus string, env []string) {
		out, err := runHost(t, dir, env, script)
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		list, err := runHost(t, dir, env, "claude mcp list")
		if err != nil {
			t.Fatalf("claude mcp list: %v\n%s", err, list)
		}
		servers := claudeListLine.FindAllStringSubmatch(list, -1)
		if len(servers) != 1 || !strings.Contains(servers[0][2], wantTarget) || !strings.Contains(servers[0][3], wantStatus) {
			t.Fatalf("claude mcp list after %q: want one server %s, %q; got:\n%s", script, wantTarget, wantStatus, list)
		}
		t.Logf("%s → %s", script[strings.LastIndexByte(script, '\n')+1:], servers[0][0])
	}
	t.Run("hosted", func(t *testing.T) {
		if len(hosted) == 0 {
			t.Fatalf("the demo prints no hosted `claude mcp add` command: %q", setup.claude)
		}
		signIn := 0
		for _, c := range hosted {
			script := strings.Join(append(append([]string{}, setup.exports...), c), "\n")
			if strings.Contains(c, "--header") {
				check(t, script, t.TempDir(), setup.mcpURL, hostEnv(t, bins, newOfflineProxy(t)))
				continue
			}
			// Header-free: Claude Code follows the 401 challenge to the
			// demo's authorization server and reports that the server
			// needs sign-in (done in /mcp), not "Failed to connect".
			signIn++
			dir, env := t.TempDir(), hostEnv(t, bins, newOfflineProxy(t))
			checkStatus(t, script, dir, setup.mcpURL, claudeNeedsSignIn, env)
			// Then sign in as the demo says, and the server is connected.
			claudeSignIn(t, dir, env)
			checkStatus(t, "true", dir, setup.mcpURL, "Connected", env)
		}
		if signIn == 0 {
			t.Errorf("the demo prints no header-free (sign-in) `claude mcp add` command: %q", hosted)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		// The printed stdio forms: `claude mcp add … -- pdpp-mcp …` and
		// `claude mcp add-json` commands, and a .mcp.json block.
		if len(stdio)+len(setup.mcpJSON) == 0 {
			t.Fatal("the demo prints no stdio setup for Claude Code")
		}
		for _, c := range stdio {
			check(t, c, t.TempDir(), "pdpp-mcp", hostEnv(t, bins, newOfflineProxy(t)))
		}
		for _, block := range setup.mcpJSON {
			// The block, saved as the project's .mcp.json. Claude Code asks
			// before it starts a project's servers; the approval a user gives
			// (enabledMcpjsonServers) goes in the user settings, which Claude
			// Code honours for a project it has not been told to trust (it
			// ignores the project's own .claude/settings.local.json there).
			project := t.TempDir()
			var v struct {
				MCPServers map[string]json.RawMessage `json:"mcpServers"`
			}
			_ = json.Unmarshal([]byte(block), &v)
			var names []string
			for name := range v.MCPServers {
				names = append(names, name)
			}
			approve, _ := json.Marshal(map[string]any{"enabledMcpjsonServers": names})
			if err := os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(block), 0o600); err != nil {
				t.Fatal(err)
			}
			env := hostEnv(t, bins, newOfflineProxy(t))
			settings := filepath.Join(envValue(env, "HOME"), ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(settings, approve, 0o600); err != nil {
				t.Fatal(err)
			}
			check(t, "true", project, "pdpp-mcp", env)
		}
	})
}

// codexServer is one entry of `codex mcp list --json`.
type codexServer struct {
	Name      string `json:"name"`
	Enabled   bool   `json:"enabled"`
	Transport struct {
		Type              string   `json:"type"`
		URL               string   `json:"url"`
		BearerTokenEnvVar string   `json:"bearer_token_env_var"`
		Command           string   `json:"command"`
		Args              []string `json:"args"`
	} `json:"transport"`
	AuthStatus string `json:"auth_status"`
}

// TestCodex runs each `codex mcp add` command the demo prints, exactly as
// printed (after its export lines), and requires `codex mcp list` to list
// the server as printed: the hosted URL with the bearer read from the
// exported variable, or the stdio command. Codex does not connect to list.
func TestCodex(t *testing.T) {
	t.Parallel()
	bins := hostBins(t)
	setup := startDemo(t)
	if len(setup.codex) == 0 {
		t.Fatal("the demo prints no `codex mcp` command")
	}
	exported := map[string]bool{}
	for _, e := range setup.exports {
		exported[strings.SplitN(strings.TrimPrefix(e, "export "), "=", 2)[0]] = true
	}
	sawHosted, sawSignIn := false, false
	for _, c := range setup.codex {
		env := hostEnv(t, bins, newOfflineProxy(t))
		script := strings.Join(append(append([]string{}, setup.exports...), c), "\n")
		signIn := hostedCommand(c) && !strings.Contains(c, "--bearer-token-env-var")
		if signIn {
			codexSignIn(t, env, script)
		} else if out, err := runHost(t, t.TempDir(), env, script); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		out, err := runHost(t, t.TempDir(), env, "codex mcp list --json 2>/dev/null")
		if err != nil {
			t.Fatalf("codex mcp list: %v\n%s", err, out)
		}
		var list []codexServer
		if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
			t.Fatalf("codex mcp list --json after %q: want one server, got (%v):\n%s", c, err, out)
		}
		s := list[0]
		switch {
		case !s.Enabled:
			t.Errorf("%s: server %s is not enabled", c, s.Name)
		case signIn:
			sawSignIn = true
			if s.Transport.Type != "streamable_http" || s.Transport.URL != setup.mcpURL || s.AuthStatus != "o_auth" {
				t.Errorf("%s: listed as %+v, auth %q; want streamable_http %s signed in (o_auth)", c, s.Transport, s.AuthStatus, setup.mcpURL)
			}
		case hostedCommand(c):
			sawHosted = true
			if s.Transport.Type != "streamable_http" || s.Transport.URL != setup.mcpURL || !exported[s.Transport.BearerTokenEnvVar] {
				t.Errorf("%s: listed as %+v; want streamable_http %s with a bearer variable the demo exports (%v)", c, s.Transport, setup.mcpURL, setup.exports)
			}
		default:
			if got := filepath.Base(s.Transport.Command); got != "pdpp-mcp" {
				t.Errorf("%s: stdio command %q, want pdpp-mcp", c, s.Transport.Command)
			}
		}
		t.Logf("%s → %s %s", c, s.Name, s.Transport.Type)
	}
	if !sawHosted {
		t.Errorf("the demo prints no hosted `codex mcp add` command: %q", setup.codex)
	}
	if !sawSignIn {
		t.Errorf("the demo prints no header-free (sign-in) `codex mcp add` command: %q", setup.codex)
	}
}

// claudeSignIn runs `claude mcp login pdpp` (the sign-in the demo names)
// in dir. Claude Code only signs in on a terminal, so it runs under
// script(1)'s pseudo-terminal; the test plays the browser on the
// authorize URL Claude Code prints, whose redirect lands on Claude Code's
// loopback callback.
func claudeSignIn(t *testing.T, dir string, env []string) {
	t.Helper()
	claudeSignInWith(t, dir, env, followAuthorize)
}

// claudeSignInWith is claudeSignIn with browse as the browser.
func claudeSignInWith(t *testing.T, dir string, env []string, browse hostBrowser) {
	t.Helper()
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		msg := "no script(1) (util-linux) for a pseudo-terminal; skipping Claude Code's sign-in"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " — CI=true, so this is a failure")
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, scriptBin, "-qfc", "claude mcp login "+hostedServerKey, os.DevNull)
	cmd.Dir, cmd.Env = dir, env
	var out testenv.Output
	cmd.Stdout, cmd.Stderr = &out, &out
	playBrowser(t, cmd, &out, "claude mcp login", "Authenticated with", browse)
}

// hostBrowser is the browser a host's sign-in URL is opened in: it ends
// on the host's loopback callback and says how that answered.
type hostBrowser func(authorize string) (string, error)

// followAuthorize requests the authorize URL following redirects (the
// demo approves without a person, and the redirect lands on the host's
// loopback callback); loopback only, never through a proxy.
func followAuthorize(authorize string) (string, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Get(authorize)
	if err != nil {
		return "", err
	}
	_ = resp.Body.Close()
	return resp.Status, nil
}

// playBrowser starts cmd, waits for the authorize URL in its output,
// opens it with browse, and requires cmd to exit 0 with success in its
// output.
func playBrowser(t *testing.T, cmd *exec.Cmd, out *testenv.Output, what, success string, browse hostBrowser) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var authorize string
	for deadline := time.Now().Add(30 * time.Second); authorize == "" && time.Now().Before(deadline); {
		select {
		case err := <-done:
			t.Fatalf("%s ended before printing a sign-in URL (%v):\n%s", what, err, out.String())
		case <-time.After(100 * time.Millisecond):
			authorize = hostAuthorizeURL.FindString(out.String())
		}
	}
	if authorize == "" {
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s printed no authorize URL within 30s:\n%s", what, out.String())
	}
	status, err := browse(authorize)
	if err != nil {
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("browser step: %v", err)
	}
	if err := <-done; err != nil || !strings.Contains(out.String(), success) {
		t.Fatalf("%s after the browser step (HTTP %s): %v\n%s", what, status, err, out.String())
	}
	t.Logf("%s signed in through %s", what, authorize[:strings.Index(authorize, "?")])
}

// hostedServerKey is the name the demo's hosted commands register.
const hostedServerKey = "pdpp"

// hostAuthorizeURL is the sign-in URL a host prints for the user's
// browser: the demo authorization server's authorize endpoint, or the
// reference AS's, which names itself localhost (control characters end
// it: Claude Code wraps it in a terminal hyperlink).
var hostAuthorizeURL = regexp.MustCompile(`http://(?:127\.0\.0\.1|localhost):\d+/oauth/authorize\?[^\s[:cntrl:]]+`)

// codexSignIn runs a header-free `codex mcp add` as printed. Codex finds
// the authorization server from the adapter's 401 challenge, registers
// itself, prints the authorize URL and waits on its loopback callback;
// the test plays the browser (the demo approves without a person) by
// following that URL's redirects, and Codex must then report success.
func codexSignIn(t *testing.T, env []string, script string) {
	t.Helper()
	codexSignInWith(t, env, script, followAuthorize)
}

// codexSignInWith is codexSignIn with browse as the browser.
func codexSignInWith(t *testing.T, env []string, script string, browse hostBrowser) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir, cmd.Env = t.TempDir(), env
	var out testenv.Output
	cmd.Stdout, cmd.Stderr = &out, &out
	playBrowser(t, cmd, &out, "codex mcp add", "Successfully logged in", browse)
}
