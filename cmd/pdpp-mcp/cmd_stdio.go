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
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

const stdioUsage = `usage: pdpp-mcp [--provider-url URL] [--cache-root DIR] [--server-name NAME]

Serves the PDPP MCP tools over stdio with the grant-scoped client
credential(s) that 'pdpp connect <provider-url>' cached. Owner credentials
are refused. stdout carries only MCP messages; diagnostics go to stderr.

Each flag also comes from the environment variable shown; a flag on the
command line wins over the variable, the variable over the default.
other modes: pdpp-mcp serve | demo | mockrs | version | help

flags:
`

// stdioFlags are the TypeScript adapter's CLI flags plus logging; flags
// beat env.
type stdioFlags struct {
	providerURL, cacheRoot, serverName string
	logger                             *slog.Logger
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
	providerURL, err := credcache.NormalizeProviderURL(f.providerURL)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return exitUsage
	}
	tokens, path, err := credcache.Load(f.cacheRoot, providerURL, time.Now())
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
	grants := cachedGrants(tokens, nil)
	logger := f.logger
	rs, err := rsclient.New(rsclient.Config{BaseURL: providerURL, Logger: logger, UserAgent: "pdpp-mcp/" + appVersion()})
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return exitUsage
	}
	cfg := adapter.Config{RS: rs, ServerName: f.serverName, Version: appVersion(), Logger: logger,
		Reconnect: "pdpp connect " + providerURL}
	owners, code, ok := refuseOwnerGrants(ctx, cfg, grants, providerURL, stderr)
	if !ok {
		return code
	}
	cfg.Grants = cachedGrants(tokens, owners)
	// A running session heals from `pdpp connect` in another terminal: the
	// adapter re-reads the cache when a token expires or is refused.
	cfg.Reload = func() ([]adapter.Grant, error) {
		toks, _, err := credcache.Load(f.cacheRoot, providerURL, time.Now())
		if err != nil {
			return nil, err
		}
		return cachedGrants(toks, owners), nil
	}
	grants = cfg.Grants
	srv, err := adapter.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "pdpp-mcp: connected to %s using %d scoped credential(s) from %s\n", providerURL, len(grants), path)
	stdio := server.NewStdioServer(srv.MCP())
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	if err := stdio.Listen(ctx, stdinReader(), adapter.TypedErrorWriter(stdout)); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "pdpp-mcp: stdio server stopped: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func stdinReader() io.Reader { return os.Stdin }

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

// refuseOwnerGrants asks the RS (schema `bearer.token_kind`) what each
// cached token is, since a cache entry may carry no kind label. Only owner
// or control-plane tokens (the adapter's ErrOwnerToken) count: an RS that
// cannot answer now leaves the token in, and every call still refuses an
// owner token. When every cached token is an owner token the adapter does
// not start (exit 77); otherwise the owner entries are dropped with a
// warning and never used. It returns the owner tokens' keys.
func refuseOwnerGrants(ctx context.Context, cfg adapter.Config, grants []adapter.Grant, providerURL string, stderr io.Writer) (map[string]bool, int, bool) {
	cfg.Grants = grants
	probe, err := adapter.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return nil, exitFailure, false
	}
	ctx, cancel := context.WithTimeout(ctx, kindCheckTimeout)
	defer cancel()
	owners := map[string]bool{}
	for i, g := range grants {
		if _, err := probe.TokenKind(ctx, g); errors.Is(err, adapter.ErrOwnerToken) {
			owners[g.Key] = true
			fmt.Fprintf(stderr, "pdpp-mcp: warning: cached credential %d of %d for %s is an owner token (the RS says so); it is dropped and never used\n", i+1, len(grants), providerURL)
		}
	}
	if len(owners) > 0 && len(owners) == len(grants) {
		fmt.Fprintf(stderr, "pdpp-mcp: Cached credential for %s is an owner token; owner credentials are refused by the MCP adapter. Run `pdpp connect %s` to cache a grant-scoped client credential.\n", providerURL, providerURL)
		return nil, exitNoPerm, false
	}
	return owners, exitOK, true
}
