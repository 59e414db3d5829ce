package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

const connectUsage = `usage: pdpp-mcp connect <rs-url> [--sign-in-details FILE | --connector ID] [--cache-root DIR]

Signs in to a PDPP resource server the way an MCP host does, with no owner
token: the RS's protected-resource metadata names its authorization server;
connect registers itself there as a public client, opens the authorization
page in the browser (and always prints its URL, for a machine without one),
takes the answer on a loopback redirect (127.0.0.1, an ephemeral port, PKCE
S256, state checked), exchanges the code, checks the token on /v1/schema and
writes the credential cache the stdio server reads
(<cache-root>/clients/<host>.json, mode 0600, the format of 'pdpp connect'),
with the refresh token: a stdio session then renews its token by itself.

What to ask for: the reference authorization server grants data only when the
request names it. Give --sign-in-details FILE (an authorization_details JSON
array: type https://pdpp.dev/data-access, source.id, purpose_code,
access_mode, streams with instance_ids) or --connector ID (when you have
exactly one connection of that connector). With neither, that server shows
its source picker and issues a grant-package token, which its RS refuses on
/v1; connect then stops before writing anything and says so.

Each flag also comes from the environment variable shown; a flag on the
command line wins over the variable, the variable over the default.

flags:
`

// connectFlags are connect's settings.
type connectFlags struct {
	providerURL, cacheRoot string
	selection              hosted.SignInSelection
	detailsFile            string
	noBrowser              bool
	timeout                time.Duration
}

// parseConnectFlags reads the flags; the RS URL is the first argument (or
// --provider-url).
func parseConnectFlags(args []string, env func(string) string, stdout, stderr io.Writer) (connectFlags, int, bool) {
	var f connectFlags
	fs := flag.NewFlagSet("pdpp-mcp connect", flag.ContinueOnError)
	fs.StringVar(&f.providerURL, "provider-url", envOr(env, "PDPP_PROVIDER_URL", ""), "PDPP resource server origin, instead of the argument (PDPP_PROVIDER_URL)")
	fs.StringVar(&f.cacheRoot, "cache-root", envOr(env, "PDPP_CACHE_ROOT", ".pdpp"), "credential cache directory the stdio server reads (PDPP_CACHE_ROOT)")
	fs.StringVar(&f.detailsFile, "sign-in-details", envOr(env, "PDPP_MCP_SIGN_IN_DETAILS", ""), "JSON file of authorization_details to ask the authorization server for (PDPP_MCP_SIGN_IN_DETAILS)")
	connector := fs.String("connector", envOr(env, "PDPP_MCP_SIGN_IN_CONNECTOR", ""), "connector_id to ask for; one connection of that connector only (PDPP_MCP_SIGN_IN_CONNECTOR)")
	envNoBrowser := envOr(env, "PDPP_MCP_NO_BROWSER", "false")
	noBrowserDefault, noBrowserErr := strconv.ParseBool(envNoBrowser)
	fs.BoolVar(&f.noBrowser, "no-browser", noBrowserDefault, "do not open a browser; only print the URL (PDPP_MCP_NO_BROWSER)")
	timeout := fs.String("timeout", envOr(env, "PDPP_MCP_CONNECT_TIMEOUT", "5m"), "how long to wait for the sign-in in the browser (PDPP_MCP_CONNECT_TIMEOUT)")
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		f.providerURL, args = args[0], args[1:]
	}
	if code, ok := parseFlags(fs, connectUsage, args, stdout, stderr); !ok {
		return f, code, false
	}
	if noBrowserErr != nil {
		return f, usageError(stderr, "PDPP_MCP_NO_BROWSER %q: want true or false", envNoBrowser), false
	}
	var err error
	if f.timeout, err = time.ParseDuration(*timeout); err != nil || f.timeout <= 0 {
		return f, usageError(stderr, "--timeout %q: want a positive duration such as 5m", *timeout), false
	}
	if f.providerURL, err = providerURLFromFlag(f.providerURL); err != nil {
		return f, usageError(stderr, "%v\n%s", err, connectUsage), false
	}
	if f.selection, err = connectSelection(f.detailsFile, *connector); err != nil {
		return f, usageError(stderr, "%v", err), false
	}
	return f, exitOK, true
}

func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "pdpp-mcp connect: "+format+"\n", args...)
	return exitUsage
}

// connectSelection reads --sign-in-details / --connector with the checks
// serve's sign-in front applies; the zero selection when neither is set.
func connectSelection(detailsFile, connector string) (hosted.SignInSelection, error) {
	sel := hosted.SignInSelection{ConnectorID: strings.TrimSpace(connector)}
	if detailsFile != "" {
		b, err := readBounded(detailsFile, 4*hosted.MaxAuthorizationDetailsBytes)
		if err != nil {
			return sel, fmt.Errorf("--sign-in-details: %v", err)
		}
		if sel.AuthorizationDetails, err = hosted.ParseAuthorizationDetails(b); err != nil {
			return sel, fmt.Errorf("--sign-in-details %s: %v", detailsFile, err)
		}
	}
	if sel.Configured() {
		if err := sel.Validate(); err != nil {
			return sel, fmt.Errorf("--sign-in-details / --connector: %v", err)
		}
	}
	return sel, nil
}

// noSelectionNote is what connect says when nothing is selected.
const noSelectionNote = `note: neither --sign-in-details nor --connector is given, so the authorization
request names no data. The reference authorization server then shows its
source picker and issues a grant-package token, which its RS refuses on /v1;
an authorization server that grants by scope alone may still give a usable
token. connect checks the token on /v1/schema before writing anything.`

// runConnect is `pdpp-mcp connect`.
func runConnect(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	f, code, ok := parseConnectFlags(args, env, stdout, stderr)
	if !ok {
		return code
	}
	if ownerCredentialInEnv(env) {
		fmt.Fprintln(stderr, "pdpp-mcp connect: Refusing to run: owner credentials (PDPP_OWNER_TOKEN / PDPP_OWNER_SESSION_COOKIE) are present in the environment. Unset them first.")
		return exitNoPerm
	}
	open := func(u string) bool { return !f.noBrowser && openBrowser(u, env) }
	path, err := connect(ctx, f, open, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp connect: %v\n", err)
		if errors.Is(err, context.Canceled) {
			return exitSignaled
		}
		return exitFailure
	}
	// Absolute paths: an MCP host starts the stdio server in a directory
	// of its own choosing.
	absRoot, _ := filepath.Abs(f.cacheRoot)
	absPath, _ := filepath.Abs(path)
	fmt.Fprintf(stdout, "Connected to %s\nStored the scoped credential and its refresh token in %s\nRun the stdio server with: pdpp-mcp --provider-url %s --cache-root %s\n",
		f.providerURL, absPath, f.providerURL, credcache.ShellQuote(absRoot))
	return exitOK
}

// connectHTTPTimeout bounds each discovery, registration, token and check
// request.
const connectHTTPTimeout = 30 * time.Second

// connect runs the sign-in and writes the cache; open shows the
// authorization URL in a browser and reports whether it could.
func connect(ctx context.Context, f connectFlags, open func(string) bool, stderr io.Writer) (string, error) {
	// No redirects: a 307 from the token endpoint would resend the code
	// and its verifier (or the bearer of the check) wherever it points.
	client := &http.Client{Timeout: connectHTTPTimeout, CheckRedirect: noRedirects}
	as, err := discoverAuthServer(ctx, client, f.providerURL)
	if err != nil {
		return "", err
	}
	if !f.selection.Configured() {
		fmt.Fprintln(stderr, noSelectionNote)
	}
	state := randomHex(16)
	cb, err := listenCallback(state)
	if err != nil {
		return "", err
	}
	defer cb.Close()
	rc, err := registerClient(ctx, client, as.RegistrationEndpoint, cb.redirectURI())
	if err != nil {
		return "", err
	}
	conf := &oauth2.Config{ClientID: rc.ClientID, RedirectURL: cb.redirectURI(),
		Endpoint: oauth2.Endpoint{AuthURL: as.AuthorizationEndpoint, TokenURL: as.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL(state, append(selectionParams(f.selection), oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", f.providerURL))...)
	how := "Open this URL in a browser to sign in and approve access"
	if open(authURL) {
		how = "Opened the browser; if it did not show the sign-in, open this URL"
	}
	fmt.Fprintf(stderr, "%s (waiting %s):\n\n  %s\n\n", how, f.timeout, authURL)
	waitCtx, cancel := context.WithTimeout(ctx, f.timeout)
	code, err := cb.wait(waitCtx)
	cancel()
	if err != nil {
		return "", err
	}
	obtained := time.Now() // before the exchange: the lifetime is counted from no later than its start
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, client), code, oauth2.VerifierOption(verifier))
	if err != nil {
		return "", fmt.Errorf("token exchange at %s: %v", as.TokenEndpoint, err)
	}
	if err := checkIssuedToken(ctx, client, f, tok); err != nil {
		return "", err
	}
	cred := credcache.Credential{AccessToken: tok.AccessToken, TokenType: tok.TokenType, RefreshToken: tok.RefreshToken,
		ExpiresAt: tok.Expiry, ObtainedAt: obtained}
	if g, ok := tok.Extra("grant_id").(string); ok {
		cred.GrantID = g
	}
	if tok.RefreshToken == "" {
		fmt.Fprintln(stderr, "note: the authorization server issued no refresh token; a stdio session ends when this access token expires")
	}
	return credcache.Store(ctx, f.cacheRoot, credcache.Connection{ProviderURL: f.providerURL, AuthorizationServer: as.Issuer,
		TokenEndpoint: as.TokenEndpoint, ClientID: rc.ClientID, ClientName: rc.ClientName,
		RenewWith: renewCommand(f), Credential: cred}, time.Now())
}

// selectionParams are the authorize parameters of the selection.
func selectionParams(sel hosted.SignInSelection) []oauth2.AuthCodeOption {
	switch {
	case sel.AuthorizationDetails != "":
		return []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("authorization_details", sel.AuthorizationDetails)}
	case sel.ConnectorID != "":
		return []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("connector_id", sel.ConnectorID)}
	}
	return nil
}

// renewCommand is the command that signs in again with the same
// selection, for the cache's renew_with (named in credential_expired
// advice). Paths are made absolute: the advice may be followed elsewhere.
func renewCommand(f connectFlags) string {
	parts := []string{"pdpp-mcp", "connect", credcache.ShellQuote(f.providerURL)}
	if f.detailsFile != "" {
		abs, err := filepath.Abs(f.detailsFile)
		if err != nil {
			abs = f.detailsFile
		}
		parts = append(parts, "--sign-in-details", credcache.ShellQuote(abs))
	}
	if f.selection.ConnectorID != "" {
		parts = append(parts, "--connector", credcache.ShellQuote(f.selection.ConnectorID))
	}
	if f.cacheRoot != ".pdpp" {
		abs, err := filepath.Abs(f.cacheRoot)
		if err != nil {
			abs = f.cacheRoot
		}
		parts = append(parts, "--cache-root", credcache.ShellQuote(abs))
	}
	if cmd := strings.Join(parts, " "); len(cmd) <= maxRenewWith {
		return cmd
	}
	return strings.Join(parts[:3], " ") // the reader drops a longer one
}

// maxRenewWith is the longest renew_with the cache reader accepts.
const maxRenewWith = 200

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
