package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

const stdioUsage = `usage: pdpp-mcp [--provider-url URL] [--cache-root DIR] [--server-name NAME]

Serves the PDPP MCP tools over stdio with the grant-scoped client
credential(s) that 'pdpp-mcp connect <provider-url>' (or 'pdpp connect')
cached, renewing them with the cached refresh token before they expire and
when the RS refuses them. Owner credentials are refused. stdout carries
only MCP messages; diagnostics go to stderr.

Each flag also comes from the environment variable shown; a flag on the
command line wins over the variable, the variable over the default.
Continuation cursors are sealed with PDPP_MCP_CURSOR_SECRET (or the file
PDPP_MCP_CURSOR_SECRET_FILE names), else with a secret kept in
<cache-root>/mcp-cursor-secret (created 0600 on first use), so a saved
next_cursor continues after a restart.
other modes: pdpp-mcp connect | serve | demo | mockrs | version | help

flags:
`

// stdioFlags are the TypeScript adapter's CLI flags plus logging; flags
// beat env.
type stdioFlags struct {
	providerURL, cacheRoot, serverName string
	maxResultBytes                     int
	logger                             *slog.Logger
	waits                              adapter.Waits
	refiningReads                      int
}

// parseStdioFlags reads the stdio flags. --help and --version answer on
// stdout: nothing is being served yet, so no MCP client is reading it.
func parseStdioFlags(args []string, env func(string) string, stdout, stderr io.Writer) (stdioFlags, int, bool) {
	var f stdioFlags
	fs := flag.NewFlagSet("pdpp-mcp", flag.ContinueOnError)
	fs.StringVar(&f.providerURL, "provider-url", envOr(env, "PDPP_PROVIDER_URL", ""), "PDPP resource server origin (PDPP_PROVIDER_URL)")
	fs.StringVar(&f.cacheRoot, "cache-root", envOr(env, "PDPP_CACHE_ROOT", ".pdpp"), "credential cache directory of 'pdpp connect' (PDPP_CACHE_ROOT)")
	fs.StringVar(&f.serverName, "server-name", envOr(env, "PDPP_MCP_SERVER_NAME", adapter.DefaultServerName), "serverInfo name (PDPP_MCP_SERVER_NAME)")
	logs := addLogFlags(fs, env, "info", "json")
	waits := addWaitFlag(fs, env)
	var maxResult string
	addMaxResultFlag(fs, env, &maxResult)
	refining := addRefiningReadsFlag(fs, env)
	showVersion := fs.Bool("version", false, "print the version and exit")
	if code, ok := parseFlags(fs, stdioUsage, args, stdout, stderr); !ok {
		return f, code, false
	}
	if *showVersion {
		fmt.Fprintln(stdout, appVersion())
		return f, exitOK, false
	}
	var err error
	if f.logger, err = logs.logger(stderr); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return f, exitUsage, false
	}
	if f.waits, err = parseWaits(*waits); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return f, exitUsage, false
	}
	if f.maxResultBytes, err = parseMaxResultBytes(maxResult); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return f, exitUsage, false
	}
	if f.refiningReads, err = parseRefiningReads(*refining); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return f, exitUsage, false
	}
	if strings.TrimSpace(f.providerURL) == "" {
		fmt.Fprintf(stderr, "pdpp-mcp: Missing --provider-url (or PDPP_PROVIDER_URL).\n%s", stdioUsage)
		return f, exitUsage, false
	}
	return f, exitOK, true
}

// ownerCredentialInEnv reports whether owner authority is present in the
// environment; the adapter refuses to run beside it even unread.
func ownerCredentialInEnv(env func(string) string) bool {
	return strings.TrimSpace(env("PDPP_OWNER_TOKEN")) != "" || strings.TrimSpace(env("PDPP_OWNER_SESSION_COOKIE")) != ""
}

// runStdio is the default mode: an MCP server on stdin/stdout.
func runStdio(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	f, code, ok := parseStdioFlags(args, env, stdout, stderr)
	if !ok {
		return code
	}
	if ownerCredentialInEnv(env) {
		fmt.Fprintln(stderr, "pdpp-mcp: Refusing to start: owner credentials (PDPP_OWNER_TOKEN / PDPP_OWNER_SESSION_COOKIE) are present in the environment. Unset them before running the MCP adapter.")
		return exitNoPerm
	}
	providerURL, err := providerURLFromFlag(f.providerURL)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return exitUsage
	}
	renewal := newStdioRenewal(f.cacheRoot, providerURL, stderr)
	tokens, path, err := renewal.start(ctx, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		var ce *credcache.CredentialError
		if errors.As(err, &ce) {
			switch ce.Code {
			case credcache.CredOwnerRefused:
				return exitNoPerm
			case credcache.CredBadURL:
				return exitUsage
			}
		}
		return exitConfig
	}
	logger := f.logger
	rs, err := rsclient.New(rsclient.Config{BaseURL: providerURL, Logger: logger, UserAgent: "pdpp-mcp/" + appVersion(),
		Transport: stdioTransport(renewal)})
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return exitUsage
	}
	cursorKey, err := stdioCursorKey(env, f.cacheRoot, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return exitConfig
	}
	// The cache names what renews it (the demo's names the demo); a cache
	// another tool wrote names nothing, and then signing in again with
	// this binary does.
	reconnect := credcache.ConnectCommand(providerURL, f.cacheRoot)
	if renew := credcache.RenewCommand(f.cacheRoot, providerURL); renew != "" {
		reconnect = renew
	}
	cfg := adapter.Config{RS: rs, ServerName: f.serverName, Version: appVersion(), Logger: logger,
		Reconnect: reconnect, Grants: renewedGrants(tokens, nil), CursorKey: cursorKey, Waits: f.waits,
		MaxResultBytes: f.maxResultBytes, MaxRefiningReads: f.refiningReads}
	// owners is filled by the start-up classification, before serving;
	// Reload reads it only from tool calls, after.
	owners := map[string]bool{}
	// A running session heals from `pdpp connect` in another terminal and
	// renews its token with the cached refresh token: the adapter re-reads
	// the cache when a token is due, expires or is refused.
	cfg.Reload = func() ([]adapter.Grant, error) {
		toks, err := renewal.reload(time.Now())
		if err != nil {
			return nil, err
		}
		return renewedGrants(toks, owners), nil
	}
	cfg.CacheStamp = func() string { return credcache.Stamp(path) }
	srv, grants, code, ok := classifiedServer(ctx, cfg, tokens, owners, providerURL, stderr)
	if !ok {
		return code
	}
	fmt.Fprintf(stderr, "pdpp-mcp: connected to %s using %d scoped credential(s) from %s\n", providerURL, grants, path)
	if err := serveStdio(ctx, srv, stdinReader(), stdout, logger); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "pdpp-mcp: stdio server stopped: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func stdinReader() io.Reader { return os.Stdin }

// stdioCursorKey is the key stdio seals cursors with, stable across
// restarts and per-call processes so a saved next_cursor continues: the
// configured PDPP_MCP_CURSOR_SECRET[_FILE] when set (a bad one is a
// configuration error, as for serve), else the secret kept beside the
// credential cache (created 0600 on first use). When that file cannot be
// kept the key is per process, with a warning: cursors then end with the
// process, which is safe.
func stdioCursorKey(env func(string) string, cacheRoot string, stderr io.Writer) (*contentladder.CursorKey, error) {
	if key, err := cursorKeyFromEnv(env); key != nil || err != nil {
		return key, err
	}
	secret, path, warn, err := credcache.CursorSecret(cacheRoot)
	if warn != "" {
		fmt.Fprintf(stderr, "pdpp-mcp: warning: %s\n", warn)
	}
	var key *contentladder.CursorKey
	if err == nil {
		key, err = contentladder.NewCursorKey(secret)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: warning: cursor secret %s unusable (%v); cursors stop working when this process exits\n", path, err)
		return contentladder.RandomCursorKey(), nil
	}
	return key, nil
}

// cachedGrants turns cached tokens into grants with their expiry, leaving
// out the ones the RS named owner tokens at start-up.
func cachedGrants(tokens []credcache.Token, owners map[string]bool) []adapter.Grant {
	grants := make([]adapter.Grant, 0, len(tokens))
	for _, tok := range tokens {
		g := adapter.NewGrant(tok.Value)
		if owners[g.Key] {
			continue
		}
		g.Expires = tok.ExpiresAt
		grants = append(grants, g)
	}
	return grants
}

// kindCheckTimeout bounds the start-up classification of cached tokens.
const kindCheckTimeout = 15 * time.Second

// classifiedServer builds the adapter over the cached grants and returns
// it with the number of grants it serves. Tokens the cache labels client
// serve at once: the RS is not asked before initialize and tools/list are
// answered. Only unlabelled tokens are classified through the RS first
// (schema `bearer.token_kind`, all at once): an RS that cannot answer now
// leaves the token in, and every call still refuses an owner token — a
// mislabelled one too — through its schema read before any data read.
// When every cached token is an owner token the adapter does not start
// (exit 77); otherwise the owner entries are dropped with a warning, added
// to owners and never used.
func classifiedServer(ctx context.Context, cfg adapter.Config, tokens []credcache.Token, owners map[string]bool, providerURL string, stderr io.Writer) (*adapter.Server, int, int, bool) {
	srv, err := adapter.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return nil, 0, exitFailure, false
	}
	grants := cfg.Grants // one per token, in order
	found := ownerTokens(ctx, srv, grants, tokens)
	for i, owner := range found {
		if owner {
			owners[grants[i].Key] = true
			fmt.Fprintf(stderr, "pdpp-mcp: warning: cached credential %d of %d for %s is an owner token (the RS says so); it is dropped and never used\n", i+1, len(grants), providerURL)
		}
	}
	switch {
	case len(owners) == 0:
		// The classifying server serves: its schema cache already holds
		// what the probes read.
		return srv, len(grants), exitOK, true
	case len(owners) == len(grants):
		fmt.Fprintf(stderr, "pdpp-mcp: Cached credential for %s is an owner token; owner credentials are refused by the MCP adapter. Run `%s` to cache a grant-scoped client credential.\n", providerURL, cfg.Reconnect)
		return nil, 0, exitNoPerm, false
	}
	cfg.Grants = renewedGrants(tokens, owners)
	if srv, err = adapter.New(cfg); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return nil, 0, exitFailure, false
	}
	return srv, len(cfg.Grants), exitOK, true
}

// ownerTokens asks the RS, in parallel and within kindCheckTimeout, what
// each unlabelled token is; it reports per grant whether the RS named it
// an owner token (the adapter's ErrOwnerToken). Client-labelled tokens are
// not asked.
func ownerTokens(ctx context.Context, srv *adapter.Server, grants []adapter.Grant, tokens []credcache.Token) []bool {
	ctx, cancel := context.WithTimeout(ctx, kindCheckTimeout)
	defer cancel()
	owner := make([]bool, len(grants))
	var wg sync.WaitGroup
	for i, g := range grants {
		if tokens[i].ClientLabelled {
			continue
		}
		wg.Go(func() {
			_, err := srv.TokenKind(ctx, g)
			owner[i] = errors.Is(err, adapter.ErrOwnerToken)
		})
	}
	wg.Wait()
	return owner
}
