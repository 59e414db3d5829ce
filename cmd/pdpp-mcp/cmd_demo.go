package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// demoReady is the one JSON line `demo --json` prints once both servers
// accept connections. grants has the shape of `mockrs --json`; the owner
// bearer is deliberately absent. authorization_server is the RFC 8414
// metadata URL of the mock's authorization server, where hosts sign in.
type demoReady struct {
	MCPURL              string                `json:"mcp_url"`
	RSURL               string                `json:"rs_url"`
	AuthorizationServer string                `json:"authorization_server"`
	Bearer              string                `json:"bearer"`
	Grants              []rstest.GrantSummary `json:"grants"`
	CacheRoot           string                `json:"cache_root"`
	// SignIn is the sign-in front's selection (--real-auth), the
	// authorization_details an operator would put in --sign-in-details.
	SignIn json.RawMessage `json:"sign_in_authorization_details,omitempty"`
	// tokenTTL is --token-ttl (the grants' expires_at says it in JSON).
	tokenTTL time.Duration
}

const demoUsage = `usage: pdpp-mcp demo [flags]

Serves a mock PDPP resource server with demo data and the hosted adapter on
loopback, and prints copy-paste setup for MCP hosts. Stop with Ctrl-C.

flags:
`

// demoFlags are the checked demo flags.
type demoFlags struct {
	addr, rsAddr, cacheRoot string
	asJSON                  bool
	// tokenTTL is the client tokens' lifetime; zero: they never expire.
	tokenTTL time.Duration
	// rsAddrChosen: --rs-addr was given, so it must bind (no fallback).
	rsAddrChosen bool
	// addrChosen: --addr or PDPP_MCP_ADDR named the adapter's address, so
	// it must bind (no fallback).
	addrChosen bool
	// realAuth runs the mock's AS in the real AS's posture behind the
	// adapter's sign-in front.
	realAuth bool
	// maxResultBytes is --max-result-bytes (0: the adapter's default).
	maxResultBytes int
	logger         *slog.Logger
}

// parseDemoFlags reads the demo flags and checks them: a bad log setting
// or an address off loopback is a usage error (64).
func parseDemoFlags(args []string, env func(string) string, stdout, stderr io.Writer) (demoFlags, int, bool) {
	var d demoFlags
	fs := flag.NewFlagSet("pdpp-mcp demo", flag.ContinueOnError)
	fs.StringVar(&d.addr, "addr", envOr(env, "PDPP_MCP_ADDR", defaultDemoAddr), "adapter listen address, loopback only; the default falls back to a free port when taken (port 0 picks a free port) (PDPP_MCP_ADDR)")
	fs.BoolVar(&d.asJSON, "json", false, "print one JSON line (mcp_url, rs_url, authorization_server, bearer, grants, cache_root) once ready")
	fs.StringVar(&d.rsAddr, "rs-addr", defaultDemoRSAddr, "mock RS listen address, loopback only; the default port keeps the printed stdio setup valid across restarts and falls back to a free port when taken (port 0 picks a free port)")
	fs.StringVar(&d.cacheRoot, "cache-root", "", "where to write the demo credential cache (default: pdpp-mcp/demo under the user's cache directory, kept across runs)")
	fs.DurationVar(&d.tokenTTL, "token-ttl", 0, "lifetime of the demo's client tokens, to watch expiry and refresh happen (e.g. 2m; 0: they never expire)")
	fs.BoolVar(&d.realAuth, "real-auth", false, "run the authorization server as the real one behaves (a generic sign-in gets a package token the RS refuses) behind the adapter's sign-in front, which asks for both Gmail connections")
	logs := addLogFlags(fs, env, "warn", "text")
	var maxResult string
	addMaxResultFlag(fs, env, &maxResult)
	if err := bindEnv(fs, env, "PDPP_MCP_DEMO_"); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: %v\n", err)
		return d, exitUsage, false
	}
	if code, ok := parseFlags(fs, demoUsage, args, stdout, stderr); !ok {
		return d, code, false
	}
	var err error
	if d.maxResultBytes, err = parseMaxResultBytes(maxResult); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: %v\n", err)
		return d, exitUsage, false
	}
	d.rsAddrChosen = flagSet(fs, "rs-addr")
	d.addrChosen = flagSet(fs, "addr") || d.addr != defaultDemoAddr
	if d.logger, err = logs.logger(stderr); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: %v\n", err)
		return d, exitUsage, false
	}
	if d.tokenTTL < 0 {
		fmt.Fprintln(stderr, "pdpp-mcp demo: --token-ttl must not be negative")
		return d, exitUsage, false
	}
	for _, a := range []string{d.addr, d.rsAddr} {
		if err := requireLoopback(a); err != nil {
			fmt.Fprintf(stderr, "pdpp-mcp demo: %v\n", err)
			return d, exitUsage, false
		}
	}
	return d, exitOK, true
}

// runDemo serves the mock RS (demo data) and the hosted adapter on
// loopback, writes a demo credential cache for the stdio adapter, prints
// copy-paste setup, and runs until interrupted.
func runDemo(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	d, code, ok := parseDemoFlags(args, env, stdout, stderr)
	if !ok {
		return code
	}
	ds, err := demodata.Build(demodata.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: build dataset: %v\n", err)
		return exitFailure
	}
	// The mock RS is also the demo's authorization server: hosts that sign
	// in (OAuth from the adapter's 401 challenge) get the Gmail grant
	// without a person approving, so the header-free setup works.
	wantRoot := demoCacheRoot(d.cacheRoot, stderr)
	rsOpts := rstest.Options{Semantic: true, AuthGrantID: demodata.GmailGrantID, TokenTTL: d.tokenTTL}
	if wantRoot != "" {
		// Registered clients, refresh tokens and issued tokens outlive a
		// restart, so a host's saved sign-in keeps working.
		rsOpts.AuthStateFile = filepath.Join(wantRoot, demoAuthStateFile)
		rsOpts.OnPersistError = func(err error) { d.logger.Warn("demo authorization server state not saved", "error", err) }
	}
	var signIn hosted.SignInSelection
	if d.realAuth {
		// The real AS's posture: only the sign-in front's selection
		// yields a token the RS serves.
		rsOpts.AuthGrantID, rsOpts.AuthRealPosture = "", true
		signIn.AuthorizationDetails = demoSignInDetails
	}
	rs, err := rstest.New(ds, rsOpts)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: %v\n", err)
		return exitFailure
	}
	rsSrv, note, err := startDemoRS(d.rsAddr, d.rsAddrChosen, rs)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: mock RS: %v\n", err)
		return exitFailure
	}
	if note != "" {
		fmt.Fprintf(stderr, "pdpp-mcp demo: %s\n", note)
	}
	// Every early return from here on must stop the RS too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rsDone := make(chan error, 1)
	go func() { rsDone <- rsSrv.waitAndShutdown(ctx) }()
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "pdpp-mcp demo: "+format+"\n", a...)
		cancel()
		<-rsDone
		return exitFailure
	}

	lasting := demoSetupLasts(d.rsAddr, note, wantRoot)
	root, cleanup, err := writeDemoCache(wantRoot, rsSrv.URL, ds, lasting)
	if err != nil {
		return fail("credential cache: %v", err)
	}
	defer cleanup()
	// /connect and /llms.txt show the stdio setup that works here (this
	// binary, the cache just written), not `pdpp connect`.
	handler, err := newHostedHandler(hostedConfig{RSURL: rsSrv.URL, ServerName: adapter.DefaultServerName, Logger: d.logger, SignIn: signIn,
		MaxResultBytes: d.maxResultBytes, CursorKey: demoCursorKey(wantRoot, root, d.logger),
		LocalStdio: &hosted.LocalStdio{Exe: demoExecutable(), CacheRoot: root}})
	if err != nil {
		return fail("%v", err)
	}
	adSrv, adNote, err := startDemoAdapter(d.addr, d.addrChosen, handler)
	if err != nil {
		return fail("adapter: %v", err)
	}
	if adNote != "" {
		fmt.Fprintf(stderr, "pdpp-mcp demo: %s\n", adNote)
	}

	sum := rs.Summary(rsSrv.URL)
	ready := demoReady{MCPURL: adSrv.URL + "/mcp", RSURL: rsSrv.URL, AuthorizationServer: sum.AuthorizationServer,
		Bearer: grantToken(ds, demodata.GmailGrantID), Grants: sum.Grants, CacheRoot: root, tokenTTL: d.tokenTTL}
	if d.realAuth {
		ready.SignIn = json.RawMessage(demoSignInDetails)
	}
	if d.asJSON {
		line, _ := json.Marshal(ready)
		fmt.Fprintln(stdout, string(line))
	} else {
		printDemoSetup(stdout, ready, ds, adSrv.URL, lasting)
	}

	adErr := adSrv.waitAndShutdown(ctx)
	cancel() // the adapter stopped (signal or failure): stop the RS too
	rsErr := <-rsDone
	if err := errors.Join(adErr, rsErr); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// demoCursorKey is the key the demo's hosted adapter seals cursors with:
// kept in the demo cache root like its other state (the same secret the
// stdio adapter of that cache uses), so a next_cursor issued before a
// restart continues after it. A demo without a lasting root (wantRoot
// "") gets a per-process key; so does one whose secret cannot be kept,
// with a warning.
func demoCursorKey(wantRoot, root string, logger *slog.Logger) *contentladder.CursorKey {
	if wantRoot == "" {
		return nil
	}
	secret, path, warn, err := credcache.CursorSecret(root)
	if warn != "" {
		logger.Warn("demo cursor secret", "warning", warn)
	}
	var key *contentladder.CursorKey
	if err == nil {
		key, err = contentladder.NewCursorKey(secret)
	}
	if err != nil {
		logger.Warn("demo cursor secret unusable; cursors end with this process", "path", path, "error", err)
		return nil
	}
	return key
}

// demoAuthStateFile is the demo authorization server's state, in the
// demo cache root.
const demoAuthStateFile = "authorization-server.json"

// demoSignInDetails is the demo's sign-in selection: both Gmail
// connections, in the shape the reference AS accepts (type
// https://pdpp.dev/data-access, the connector's source URI, a purpose
// code, an access mode; instance_ids because the owner has two
// connections). README's --sign-in-details example is this selection.
var demoSignInDetails = `[{"type":"https://pdpp.dev/data-access","source":{"kind":"connector","id":"https://registry.pdpp.dev/connectors/gmail"},` +
	`"purpose_code":"https://pdpp.dev/purpose/personal_ai_assistant","access_mode":"continuous",` +
	`"streams":[{"name":"*","instance_ids":["` + demodata.GmailWorkConnectionID + `","` + demodata.GmailPersonalConnectionID + `"]}]}]`

// demoSetupLasts reports whether the printed stdio setup survives a demo
// restart: it does when both things it names last, the RS port (not a
// fallback, note is empty; not port 0) and the cache (not a temporary
// one, wantRoot is set).
func demoSetupLasts(rsAddr, note, wantRoot string) bool {
	_, port, _ := net.SplitHostPort(rsAddr)
	return note == "" && port != "0" && wantRoot != ""
}

// requireLoopback keeps the demo (which prints working bearers) off any
// interface other people can reach.
func requireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("invalid listen address %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("listen address %q is not a loopback address; the demo serves working demo tokens, so it listens on 127.0.0.1 or ::1 only (use `pdpp-mcp serve` for anything else)", addr)
}

// activeGrants are the usable client grants, dataset order.
func activeGrants(ds *rstest.Dataset) []rstest.Grant {
	var out []rstest.Grant
	for _, g := range ds.Grants {
		if g.Status == "" || g.Status == "active" {
			out = append(out, g)
		}
	}
	return out
}

// cacheGrants picks the grants the stdio adapter should read with: every
// active client grant except one whose connections an earlier grant
// already covers (the narrowed Gmail test grant), so one connection never
// answers twice with two different projections.
func cacheGrants(ds *rstest.Dataset) []rstest.Grant {
	covered := map[string]bool{}
	var out []rstest.Grant
	for _, g := range activeGrants(ds) {
		conns := grantConnections(g)
		fresh := false
		for _, c := range conns {
			fresh = fresh || !covered[c]
		}
		if !fresh {
			continue
		}
		for _, c := range conns {
			covered[c] = true
		}
		out = append(out, g)
	}
	return out
}

func grantConnections(g rstest.Grant) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range g.Streams {
		for _, c := range s.ConnectionIDs {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func grantToken(ds *rstest.Dataset, id string) string {
	for _, g := range ds.Grants {
		if g.ID == id {
			return g.Token
		}
	}
	return ""
}

// writeDemoCache writes the `pdpp connect` cache file the stdio adapter
// reads (credcache.Load). The dataset's tokens are derived from a fixed
// seed and never expire, so a file written by an earlier run stays valid:
// rewriting it is idempotent. An empty root means a fresh temporary
// directory that cleanup removes (only when no user cache directory
// exists); a given root is left in place. The file is named after the
// RS's port, so unless the setup lasts (the default port, bound), cleanup
// removes the file: a fallback or port-0 RS is gone after this run, and
// its file would only pile up beside the lasting one.
func writeDemoCache(root, rsURL string, ds *rstest.Dataset, lasting bool) (string, func(), error) {
	cleanup := func() {}
	if root == "" {
		dir, err := os.MkdirTemp("", "pdpp-mcp-demo-")
		if err != nil {
			return "", cleanup, err
		}
		root, cleanup = dir, func() { _ = os.RemoveAll(dir) }
	}
	// Absolute, so the printed stdio setup does not depend on the
	// directory a host starts the adapter in.
	root, err := filepath.Abs(root)
	if err != nil {
		return "", cleanup, err
	}
	path, err := credcache.CacheFilePath(root, rsURL)
	if err != nil {
		return "", cleanup, err
	}
	type credential struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		GrantID     string `json:"grant_id"`
		TokenKind   string `json:"pdpp_token_kind"`
	}
	// renew_with: a credential_expired error in the stdio adapter then
	// tells a demo user to run the demo again, not `pdpp connect`.
	file := struct {
		ProviderURL string       `json:"provider_url"`
		RenewWith   string       `json:"renew_with"`
		Credentials []credential `json:"credentials"`
	}{ProviderURL: rsURL, RenewWith: hosted.ShellQuote(demoExecutable()) + " demo"}
	for _, g := range cacheGrants(ds) {
		file.Credentials = append(file.Credentials, credential{AccessToken: g.Token, TokenType: "Bearer", GrantID: g.ID, TokenKind: "client"})
	}
	b, _ := json.MarshalIndent(file, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", cleanup, err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return "", cleanup, err
	}
	if !lasting {
		removeDir := cleanup
		cleanup = func() {
			_ = os.Remove(path)
			removeDir()
		}
	}
	return root, cleanup, nil
}

// printDemoSetup is the human form: the ready line first, then exact
// commands per host.
func printDemoSetup(w io.Writer, r demoReady, ds *rstest.Dataset, origin string, lasting bool) {
	exe := demoExecutable()
	names := map[string]string{}
	for _, c := range ds.Connections {
		names[c.ID] = c.DisplayName
	}
	describe := func(g rstest.Grant) string {
		var parts []string
		for _, c := range grantConnections(g) {
			parts = append(parts, c+" "+names[c])
		}
		return strings.Join(parts, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pdpp-mcp demo ready: %s\n", r.MCPURL)
	fmt.Fprintf(&b, "Setup page: %s/connect   Agent-readable: %s/llms.txt\n\n", origin, origin)
	fmt.Fprintf(&b, "Mock PDPP resource server with demo data: %s (loopback only)\n", r.RSURL)
	if r.SignIn != nil {
		fmt.Fprintf(&b, "Its authorization server, in the real one's posture (a generic sign-in gets a package token the RS refuses): %s\n", r.AuthorizationServer)
		fmt.Fprintf(&b, "The adapter's sign-in front adds this selection to every sign-in (both Gmail connections, no person asked);\n"+
			"  `pdpp-mcp serve --sign-in-details FILE` with this JSON in FILE does the same in front of a real RS:\n  %s\n\n", r.SignIn)
	} else {
		fmt.Fprintf(&b, "Its authorization server (sign-in approves the %s grant without a person): %s\n\n", demodata.GmailGrantID, r.AuthorizationServer)
	}
	for _, g := range activeGrants(ds) {
		if g.ID == demodata.GmailGrantID {
			fmt.Fprintf(&b, "Demo client bearer (%s grant %s; %s):\n  %s\n\nOther demo grants:\n", g.ConnectorKey, g.ID, describe(g), g.Token)
		}
	}
	for _, g := range activeGrants(ds) {
		if g.ID != demodata.GmailGrantID {
			fmt.Fprintf(&b, "  %-8s %s  %s\n           %s\n", g.ConnectorKey, g.ID, describe(g), g.Token)
		}
	}
	// Sign-in first: the host discovers the authorization server from the
	// 401 challenge, registers and gets a token itself (the mock approves
	// the Gmail grant without a person). The bearer forms stay as the
	// fallback for hosts without OAuth support.
	fmt.Fprintf(&b, "\nClaude Code (signs in by itself, no token to copy):\n  %s\n", hosted.ClaudeCodeSignInCommand(r.MCPURL))
	fmt.Fprintf(&b, "  (then sign in: claude mcp login %s, in a terminal, or /mcp inside Claude Code)\n\n", hosted.ServerKey)
	fmt.Fprintf(&b, "Codex (signs in by itself, no token to copy):\n  %s\n  (it opens the sign-in page at once; sign in again later with: codex mcp login %s)\n\n",
		hosted.CodexSignInCommand(r.MCPURL), hosted.ServerKey)
	fmt.Fprintf(&b, "Fallback without sign-in, with the demo bearer:\n  Claude Code:\n  %s\n  Codex:\n  %s\n  %s\n  (%s)\n\n",
		hosted.ClaudeCodeCommand(r.MCPURL, r.Bearer), hosted.BearerExportLine(r.Bearer), hosted.CodexCommand(r.MCPURL), hosted.CodexBearerNote)
	fmt.Fprintf(&b, "ChatGPT / Claude.ai (remote connectors): add a custom connector with the MCP URL\n  %s\n"+
		"  (these apps connect from the internet, and this demo listens on loopback only: the README's\n"+
		"  \"Remote connectors\" runs mockrs and serve behind two HTTPS tunnels instead)\n\n", r.MCPURL)
	printStdioSetup(&b, exe, r.RSURL, r.CacheRoot, lasting)
	if r.tokenTTL > 0 {
		fmt.Fprintf(&b, "Client tokens expire %s after they are issued (--token-ttl): hosts that signed in refresh by themselves;\n"+
			"  the bearers above and the stdio cache stop working then (run the demo again for fresh ones).\n\n", r.tokenTTL)
	}
	b.WriteString("Press Ctrl-C to stop.\n")
	_, _ = io.WriteString(w, b.String())
}

// demoExecutable is this binary's absolute path, which the printed and
// served stdio setup name; "pdpp-mcp" (found on PATH) when unknown.
func demoExecutable() string {
	exe, err := os.Executable()
	if err != nil {
		return "pdpp-mcp"
	}
	return exe
}
