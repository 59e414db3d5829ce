package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// demoProcess is a running `pdpp-mcp demo`; its stdout is read line by line.
type demoProcess struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *bytes.Buffer
	exited chan struct{}
	err    error
}

// startDemo runs the binary with a fresh home and cache directory (never
// the user's); t.Cleanup kills it by PID if the test did not stop it.
func startDemo(t *testing.T, bin string, args ...string) *demoProcess {
	t.Helper()
	return startDemoIn(t, bin, t.TempDir(), args...)
}

// startDemoIn is startDemo with HOME and the user cache directory under
// home, so two runs can share one.
func startDemoIn(t *testing.T, bin, home string, args ...string) *demoProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"demo"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"PDPP_MCP_ADDR="} // flags only, not the caller's environment
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &demoProcess{cmd: cmd, lines: make(chan string, 256), stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// line returns the next stdout line or fails after d.
func (p *demoProcess) line(t *testing.T, d time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatalf("demo exited before printing; stderr:\n%s", p.stderr)
		}
		return l
	case <-time.After(d):
		t.Fatalf("no output from demo within %s; stderr:\n%s", d, p.stderr)
	}
	return ""
}

// stop signals the process and asserts a clean exit 0 within a few seconds.
func (p *demoProcess) stop(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	for range p.lines { // drain so the reader can reach Wait
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("demo did not exit within 10s of %v", sig)
	}
	if p.err != nil {
		t.Fatalf("demo exit after %v: %v; stderr:\n%s", sig, p.err, p.stderr)
	}
}

// TestDemoJSON drives the real binary the way a script does: the ready
// line, the setup pages, an MCP session with the printed bearer, the
// printed stdio config, and a clean Ctrl-C.
func TestDemoJSON(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	start := time.Now()
	home := t.TempDir()
	p := startDemoIn(t, bin, home, "--addr", "127.0.0.1:0", "--rs-addr", "127.0.0.1:0", "--json")
	line := p.line(t, 60*time.Second)
	t.Logf("demo --json: first ready line after %s", time.Since(start).Round(time.Millisecond))

	var ready struct {
		MCPURL              string `json:"mcp_url"`
		RSURL               string `json:"rs_url"`
		AuthorizationServer string `json:"authorization_server"`
		Bearer              string `json:"bearer"`
		CacheRoot           string `json:"cache_root"`
		Grants              []struct {
			GrantID       string   `json:"grant_id"`
			ConnectorKey  string   `json:"connector_key"`
			Bearer        string   `json:"bearer"`
			ConnectionIDs []string `json:"connection_ids"`
		} `json:"grants"`
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ready); err != nil {
		t.Fatalf("ready line %q: %v", line, err)
	}
	if strings.Contains(line, demodata.OwnerToken) {
		t.Error("the ready line carries the owner token")
	}
	if !strings.HasPrefix(ready.MCPURL, "http://127.0.0.1:") || !strings.HasSuffix(ready.MCPURL, "/mcp") {
		t.Errorf("mcp_url = %q, want http://127.0.0.1:PORT/mcp", ready.MCPURL)
	}
	if !strings.HasPrefix(ready.RSURL, "http://127.0.0.1:") {
		t.Errorf("rs_url = %q, want loopback", ready.RSURL)
	}
	if want := ready.RSURL + "/.well-known/oauth-authorization-server"; ready.AuthorizationServer != want {
		t.Errorf("authorization_server = %q, want %q (the mock RS's own)", ready.AuthorizationServer, want)
	}
	checkDemoAuthServer(t, strings.TrimSuffix(ready.MCPURL, "/mcp"))
	if ready.Bearer != demodata.GmailToken {
		t.Errorf("bearer is not the Gmail grant's (two connections)")
	}
	var gotGrants []string
	for _, g := range ready.Grants {
		gotGrants = append(gotGrants, g.GrantID+" "+g.ConnectorKey+" "+strings.Join(g.ConnectionIDs, ","))
	}
	wantGrants := []string{
		demodata.GmailGrantID + " gmail " + demodata.GmailPersonalConnectionID + "," + demodata.GmailWorkConnectionID,
		demodata.GmailRestrictedGrantID + " gmail " + demodata.GmailWorkConnectionID,
		demodata.SlackGrantID + " slack " + demodata.SlackConnectionID,
		demodata.ChatGPTGrantID + " chatgpt " + demodata.ChatGPTConnectionID,
		demodata.GitHubGrantID + " github " + demodata.GitHubConnectionID,
		demodata.RevokedGrantID + " gmail " + demodata.GmailPersonalConnectionID,
	}
	if diff := cmp.Diff(wantGrants, gotGrants); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}

	// By default the cache lives under the user's cache directory, by
	// absolute path, and holds every usable, non-overlapping client grant.
	if !filepath.IsAbs(ready.CacheRoot) || !strings.HasPrefix(ready.CacheRoot, home+string(filepath.Separator)) ||
		!strings.HasSuffix(ready.CacheRoot, filepath.Join("pdpp-mcp", "demo")) {
		t.Errorf("cache_root = %q, want pdpp-mcp/demo in the user cache directory under %s", ready.CacheRoot, home)
	}
	toks, _, err := credcache.Load(ready.CacheRoot, ready.RSURL, time.Now())
	if err != nil {
		t.Fatalf("demo credential cache: %v", err)
	}
	var cached []string
	for _, tok := range toks {
		cached = append(cached, tok.Value)
	}
	if diff := cmp.Diff([]string{demodata.GmailToken, demodata.SlackToken, demodata.ChatGPTToken, demodata.GitHubToken}, cached); diff != "" {
		t.Errorf("cached bearers (-want +got):\n%s", diff)
	}

	origin := strings.TrimSuffix(ready.MCPURL, "/mcp")
	for _, tc := range []struct{ path, want string }{
		{"/connect", `value="` + ready.MCPURL + `"`},
		{"/llms.txt", "MCP URL: " + ready.MCPURL},
	} {
		status, body := demoGet(t, origin+tc.path)
		if status != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: status %d, want 200 containing %q", tc.path, status, tc.want)
		}
	}

	if status, _ := demoMCP(t, ready.MCPURL, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusUnauthorized {
		t.Errorf("tools/list without a bearer: status %d, want 401", status)
	}
	if status, body := demoMCP(t, ready.MCPURL, ready.Bearer, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo-test","version":"1"}}}`); status != http.StatusOK || !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("initialize: status %d body %s", status, body)
	}
	status, body := demoMCP(t, ready.MCPURL, ready.Bearer, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if status != http.StatusOK {
		t.Fatalf("tools/list: status %d body %s", status, body)
	}
	if diff := cmp.Diff(adapter.ToolNames(), toolNames(t, body)); diff != "" {
		t.Errorf("tools/list over the demo (-want +got):\n%s", diff)
	}

	// The printed stdio config works against the same RS and cache.
	stdio := exec.Command(bin, hosted.StdioArgs(ready.RSURL, ready.CacheRoot)...)
	stdio.Env = []string{"PATH=" + os.Getenv("PATH")}
	stdio.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo-test","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	out, err := runBounded(t, stdio, 20*time.Second)
	if err != nil {
		t.Fatalf("stdio adapter with the demo cache: %v", err)
	}
	var listLine string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(l, `"id":2`) {
			listLine = l
		}
	}
	if diff := cmp.Diff(adapter.ToolNames(), toolNames(t, listLine)); diff != "" {
		t.Errorf("stdio tools/list (-want +got):\n%s", diff)
	}

	p.stop(t, syscall.SIGINT)
	// The RS ran on port 0, so its setup was for this run only: the file
	// for that port goes with it; the cache root (and the authorization
	// server's state in it) stays.
	path, err := credcache.CacheFilePath(ready.CacheRoot, ready.RSURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the cache file for the port-0 RS outlived the demo: %s (%v)", path, err)
	}
	if _, err := os.Stat(ready.CacheRoot); err != nil {
		t.Errorf("the cache root went with the demo: %v", err)
	}
}

// TestDemoHumanOutput: the default output starts with the ready line and
// prints each host's command exactly; SIGTERM stops it cleanly.
func TestDemoHumanOutput(t *testing.T) {
	t.Parallel()
	cacheRoot := t.TempDir()
	bin := buildBinary(t)
	start := time.Now()
	p := startDemo(t, bin, "--addr", "127.0.0.1:0", "--rs-addr", "127.0.0.1:0", "--cache-root", cacheRoot)
	first := p.line(t, 60*time.Second)
	t.Logf("demo: first ready line after %s", time.Since(start).Round(time.Millisecond))
	var mcpURL string
	if _, err := fmt.Sscanf(first, "pdpp-mcp demo ready: %s", &mcpURL); err != nil || !strings.HasPrefix(mcpURL, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the ready line", first)
	}
	all := []string{first}
	for l := ""; l != "Press Ctrl-C to stop."; {
		l = p.line(t, 10*time.Second)
		all = append(all, l)
	}
	out := strings.Join(all, "\n")
	if strings.Contains(out, demodata.OwnerToken) {
		t.Error("the demo prints the owner token")
	}
	if strings.Contains(out, demodata.RevokedToken) {
		t.Error("the demo offers the revoked grant's bearer")
	}
	trimmed := map[string]bool{}
	for _, l := range all {
		trimmed[strings.TrimSpace(l)] = true
	}
	// Sign-in first (no token on the line), the bearer forms after them.
	signIn := []string{`claude mcp add --transport http pdpp ` + mcpURL, `codex mcp add pdpp --url ` + mcpURL}
	for _, want := range signIn {
		i, j := slices.Index(all, "  "+want), slices.IndexFunc(all, func(l string) bool { return strings.Contains(l, "--header") })
		if i < 0 || j < 0 || i > j {
			t.Errorf("want the sign-in line %q (at %d) before the first bearer line (at %d):\n%s", want, i, j, out)
		}
	}
	for _, want := range []string{
		`claude mcp add --transport http pdpp ` + mcpURL + ` --header "Authorization: Bearer ` + demodata.GmailToken + `"`,
		`export PDPP_BEARER="` + demodata.GmailToken + `"`,
		`codex mcp add pdpp --url ` + mcpURL + ` --bearer-token-env-var PDPP_BEARER`,
		mcpURL,
		demodata.SlackToken, demodata.ChatGPTToken, demodata.GitHubToken,
	} {
		if !trimmed[want] {
			t.Errorf("no output line is exactly %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "valid for this run only") {
		t.Errorf("with a random RS port (--rs-addr 127.0.0.1:0) the stdio heading must say the setup lasts one run:\n%s", out)
	}
	if !strings.Contains(out, `"--cache-root","`+cacheRoot+`"`) {
		t.Errorf("stdio config does not name the given cache root:\n%s", out)
	}
	if !strings.Contains(out, hosted.CodexBearerNote) {
		t.Errorf("the Codex bearer command comes without the note on its variable:\n%s", out)
	}
	checkDemoPagesStdio(t, strings.TrimSuffix(mcpURL, "/mcp"), all)
	checkDemoAuthServer(t, strings.TrimSuffix(mcpURL, "/mcp"))
	p.stop(t, syscall.SIGTERM)
	if _, err := os.Stat(cacheRoot); err != nil {
		t.Errorf("a caller-chosen cache root must stay: %v", err)
	}
}

// TestDemoRefusesNonLoopback: the demo prints working tokens, so it never
// listens beyond loopback.
func TestDemoRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr    string
		wantErr bool
	}{
		{"127.0.0.1:0", false},
		{"[::1]:7670", false},
		{"localhost:7670", false},
		{"0.0.0.0:7670", true},
		{"192.168.1.10:7670", true},
		{":7670", true},
		{"no-port", true},
	} {
		if err := requireLoopback(tc.addr); (err != nil) != tc.wantErr {
			t.Errorf("requireLoopback(%q) = %v, want error %v", tc.addr, err, tc.wantErr)
		}
	}
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"demo", "--addr", "0.0.0.0:0"}, func(string) string { return "" }, io.Discard, &stderr); code != exitUsage {
		t.Errorf("demo --addr 0.0.0.0:0 exit = %d, want %d; stderr %s", code, exitUsage, stderr.String())
	}
}

func demoGet(t *testing.T, url string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

func demoMCP(t *testing.T, url, bearer, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, string(b)
}

func toolNames(t *testing.T, body string) []string {
	t.Helper()
	var resp struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("tools/list response %q: %v", body, err)
	}
	var names []string
	for _, tool := range resp.Result.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// runBounded runs cmd to completion (stdin EOF ends a stdio server) and
// kills it by PID if it outlives d.
func runBounded(t *testing.T, cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return stdout.Bytes(), fmt.Errorf("%v; stderr:\n%s", err, stderr.String())
		}
		return stdout.Bytes(), nil
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return stdout.Bytes(), fmt.Errorf("still running after %s; stderr:\n%s", d, stderr.String())
	}
}

// checkDemoAuthServer follows the sign-in discovery chain of the demo: the
// adapter's protected-resource metadata names an authorization server
// whose RFC 8414 metadata serves registration, authorize and token
// endpoints, so header-free host setup can sign in.
func checkDemoAuthServer(t *testing.T, origin string) {
	t.Helper()
	get := func(u string, out any) {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", u, resp.Status)
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	get(origin+"/.well-known/oauth-protected-resource/mcp", &prm)
	if len(prm.AuthorizationServers) != 1 {
		t.Fatalf("protected-resource metadata names %q, want one authorization server", prm.AuthorizationServers)
	}
	as := prm.AuthorizationServers[0]
	var asm map[string]any
	get(as+"/.well-known/oauth-authorization-server", &asm)
	for _, k := range []string{"registration_endpoint", "authorization_endpoint", "token_endpoint"} {
		if u, _ := asm[k].(string); !strings.HasPrefix(u, as+"/") {
			t.Errorf("authorization server metadata %s = %v, want an endpoint under %s", k, asm[k], as)
		}
	}
	if got := asm["issuer"]; got != as {
		t.Errorf("issuer %v, want %s (the name the adapter's metadata gives)", got, as)
	}
}

// checkDemoPagesStdio: the demo's /connect and /llms.txt show the stdio
// command the terminal printed (this binary, the cache the demo wrote),
// never the production steps that do not work in the demo (`pdpp
// connect`, $HOME/.pdpp, `command -v pdpp-mcp`).
func checkDemoPagesStdio(t *testing.T, origin string, printed []string) {
	t.Helper()
	var stdioLine string
	for _, l := range printed {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "claude mcp add "+hosted.StdioServerKey+" -- ") {
			stdioLine = l
		}
	}
	if stdioLine == "" {
		t.Fatalf("the demo printed no stdio command:\n%s", strings.Join(printed, "\n"))
	}
	for _, path := range []string{"/llms.txt", "/connect"} {
		resp, err := http.Get(origin + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		page := html.UnescapeString(string(b))
		if !strings.Contains(page, stdioLine) {
			t.Errorf("%s does not show the printed stdio command %q", path, stdioLine)
		}
		for _, bad := range []string{"pdpp-mcp connect", "pdpp connect", "$HOME/.pdpp", "command -v pdpp-mcp", hosted.StdioExePlaceholder} {
			if strings.Contains(page, bad) {
				t.Errorf("%s shows %q, which does not work in the demo", path, bad)
			}
		}
	}
}
