package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

const mockrsUsage = `usage: pdpp-mcp mockrs [flags]

Serves the mock PDPP resource server over the demo dataset on loopback,
for integration tests and local experiments. Stop with Ctrl-C.

flags:
`

// runMockRS serves the mock RS over the demo dataset until interrupted.
func runMockRS(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdpp-mcp mockrs", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:7663", "listen address (HOST:PORT; port 0 picks a free port)")
	asJSON := fs.Bool("json", false, "print one JSON line with rs_url, owner_bearer and grants once ready")
	records := fs.Int("records", 0, "approximate dataset size in records (0 = demo default)")
	semantic := fs.Bool("semantic", true, "serve and advertise semantic and hybrid search")
	capabilities := fs.String("capabilities", string(rstest.CapabilitiesFull),
		"schema posture for client tokens: full (as the manifest declares) or declared (the real RS's posture: nothing advertised, sort/aggregate/search still work)")
	tokenTTL := fs.Duration("token-ttl", 0,
		"client access token lifetime (the real RS: 10m); 0 = never expire. Mint a fresh one with POST /_mockrs/grants/{grant_id}/token and the owner bearer")
	faultCfg := addFaultFlags(fs)
	authGrant := fs.String("auth-grant", "", "mount a minimal OAuth authorization server (RFC 8414 metadata, 7591 registration, code+PKCE, refresh rotation, 7009 revocation, 7662 introspection) that approves this grant id without a person")
	authDeny := fs.Bool("auth-deny", false, "with --auth-grant: deny every authorization request instead")
	var gaps lexicalGapFlag
	fs.Var(&gaps, "lexical-gap", "CONNECTION_ID:STREAM left out of the lexical index, as the real RS once did (repeatable); semantic search still finds it")
	requestLog := fs.String("request-log", "", "append one JSON line per request (time, method, path, query, principal; never the bearer) to this file; - = stderr")
	if code, ok := parseFlags(fs, mockrsUsage, args, stdout, stderr); !ok {
		return code
	}
	if *tokenTTL < 0 {
		fmt.Fprintln(stderr, "pdpp-mcp mockrs: --token-ttl must not be negative")
		return exitUsage
	}
	if *authDeny && *authGrant == "" {
		fmt.Fprintln(stderr, "pdpp-mcp mockrs: --auth-deny needs --auth-grant")
		return exitUsage
	}
	posture, err := rstest.ParseCapabilities(*capabilities)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: --capabilities: %v\n", err)
		return exitUsage
	}
	faults, err := faultCfg.faults()
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitUsage
	}
	hook, closeLog, err := openRequestLog(*requestLog, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: --request-log: %v\n", err)
		return exitFailure
	}
	defer func() { _ = closeLog() }()
	ds, err := demodata.Build(demodata.Options{Records: *records})
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: build dataset: %v\n", err)
		return exitFailure
	}
	rs, err := rstest.New(ds, rstest.Options{Semantic: *semantic, Capabilities: posture, TokenTTL: *tokenTTL,
		Faults: faults, OnRequest: hook, LexicalGaps: gaps, AuthGrantID: *authGrant, AuthDeny: *authDeny})
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitFailure
	}
	srv, err := startHTTP(*addr, rs)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitFailure
	}
	summary := rs.Summary(srv.URL)
	if *asJSON {
		line, _ := json.Marshal(summary)
		fmt.Fprintln(stdout, string(line))
	} else {
		fmt.Fprintf(stdout, "mock RS listening at %s\n", summary.RSURL)
		for _, g := range summary.Grants {
			fmt.Fprintf(stdout, "  grant %s (%s) connections=%v\n", g.GrantID, g.ConnectorKey, g.ConnectionIDs)
		}
		fmt.Fprintln(stdout, "bearers: run with --json to print them")
		if summary.AuthorizationServer != "" {
			fmt.Fprintf(stdout, "authorization server: %s (approves grant %s)\n", summary.AuthorizationServer, *authGrant)
		}
		if *tokenTTL > 0 {
			fmt.Fprintf(stdout, "client tokens expire after %s; mint a fresh one: curl -X POST -H 'Authorization: Bearer <owner_bearer>' %s/_mockrs/grants/<grant_id>/token\n", *tokenTTL, summary.RSURL)
		}
	}
	if err := srv.waitAndShutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitFailure
	}
	return exitOK
}
