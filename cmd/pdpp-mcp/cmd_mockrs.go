package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

const mockrsUsage = `usage: pdpp-mcp mockrs [flags]

Serves the mock PDPP resource server over the demo dataset on loopback,
for integration tests and local experiments. Stop with Ctrl-C.

flags:
`

// mockrsFlags are the mockrs flags as given, before any is checked.
type mockrsFlags struct {
	addr         string
	asJSON       bool
	records      int
	semantic     bool
	capabilities string
	tokenTTL     time.Duration
	faults       *faultFlags
	authGrant    string
	authDeny     bool
	gaps         lexicalGapFlag
	requestLog   string
	publicURL    string
}

// defineMockRSFlags registers every mockrs flag on fs.
func defineMockRSFlags(fs *flag.FlagSet) *mockrsFlags {
	m := &mockrsFlags{}
	fs.StringVar(&m.addr, "addr", "127.0.0.1:7663", "listen address (HOST:PORT; port 0 picks a free port)")
	fs.BoolVar(&m.asJSON, "json", false, "print one JSON line with rs_url, owner_bearer and grants once ready")
	fs.IntVar(&m.records, "records", 0, "approximate dataset size in records (0 = demo default)")
	fs.BoolVar(&m.semantic, "semantic", true, "serve and advertise semantic and hybrid search")
	fs.StringVar(&m.capabilities, "capabilities", string(rstest.CapabilitiesFull),
		"schema posture for client tokens: full (as the manifest declares) or declared (the real RS's posture: nothing advertised, sort/aggregate/search still work)")
	fs.DurationVar(&m.tokenTTL, "token-ttl", 0,
		"client access token lifetime (the real RS: 10m); 0 = never expire. Mint a fresh one with POST /_mockrs/grants/{grant_id}/token and the owner bearer")
	m.faults = addFaultFlags(fs)
	fs.StringVar(&m.publicURL, "public-url", "", "origin clients reach the mock by (https://host behind a tunnel): its metadata, challenges and authorization server name it instead of the request's Host")
	fs.StringVar(&m.authGrant, "auth-grant", "", "mount a minimal OAuth authorization server (RFC 8414 metadata, 7591 registration, code+PKCE, refresh rotation, 7009 revocation, 7662 introspection) that approves this grant id without a person")
	fs.BoolVar(&m.authDeny, "auth-deny", false, "with --auth-grant: deny every authorization request instead")
	fs.Var(&m.gaps, "lexical-gap", "CONNECTION_ID:STREAM left out of the lexical index, as the real RS once did (repeatable); semantic search still finds it")
	fs.StringVar(&m.requestLog, "request-log", "", "append one JSON line per request (time, method, path, query, principal; never the bearer) to this file; - = stderr")
	return m
}

// options checks the flags (each failure is a usage error) and turns
// them into the mock's options; the request log hook is added later, as
// opening the log can fail for reasons other than usage.
func (m *mockrsFlags) options() (rstest.Options, error) {
	if m.tokenTTL < 0 {
		return rstest.Options{}, errors.New("--token-ttl must not be negative")
	}
	if m.authDeny && m.authGrant == "" {
		return rstest.Options{}, errors.New("--auth-deny needs --auth-grant")
	}
	posture, err := rstest.ParseCapabilities(m.capabilities)
	if err != nil {
		return rstest.Options{}, fmt.Errorf("--capabilities: %v", err)
	}
	faults, err := m.faults.faults()
	if err != nil {
		return rstest.Options{}, err
	}
	public := ""
	if m.publicURL != "" {
		if public, err = originOnly(m.publicURL); err != nil {
			return rstest.Options{}, fmt.Errorf("--public-url: %v", err)
		}
	}
	return rstest.Options{Semantic: m.semantic, Capabilities: posture, TokenTTL: m.tokenTTL,
		Faults: faults, LexicalGaps: m.gaps, AuthGrantID: m.authGrant, AuthDeny: m.authDeny, PublicURL: public}, nil
}

// runMockRS serves the mock RS over the demo dataset until interrupted.
func runMockRS(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdpp-mcp mockrs", flag.ContinueOnError)
	m := defineMockRSFlags(fs)
	if err := bindEnv(fs, env, "PDPP_MCP_MOCKRS_"); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitUsage
	}
	if code, ok := parseFlags(fs, mockrsUsage, args, stdout, stderr); !ok {
		return code
	}
	opts, err := m.options()
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitUsage
	}
	hook, closeLog, err := openRequestLog(m.requestLog, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: --request-log: %v\n", err)
		return exitFailure
	}
	defer func() { _ = closeLog() }()
	opts.OnRequest = hook
	ds, err := demodata.Build(demodata.Options{Records: m.records})
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: build dataset: %v\n", err)
		return exitFailure
	}
	rs, err := rstest.New(ds, opts)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitFailure
	}
	srv, err := startHTTP(m.addr, rs)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitFailure
	}
	printMockRSReady(stdout, rs.Summary(srv.URL), m)
	if err := srv.waitAndShutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp mockrs: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// printMockRSReady says the mock is listening: with --json one line a
// test harness parses (bearers included), else a human summary that
// leaves the bearers out.
func printMockRSReady(stdout io.Writer, summary rstest.Summary, m *mockrsFlags) {
	if m.asJSON {
		line, _ := json.Marshal(summary)
		fmt.Fprintln(stdout, string(line))
		return
	}
	fmt.Fprintf(stdout, "mock RS listening at %s\n", summary.RSURL)
	for _, g := range summary.Grants {
		fmt.Fprintf(stdout, "  grant %s (%s) connections=%v\n", g.GrantID, g.ConnectorKey, g.ConnectionIDs)
	}
	fmt.Fprintln(stdout, "bearers: run with --json to print them")
	if summary.AuthorizationServer != "" {
		fmt.Fprintf(stdout, "authorization server: %s (approves grant %s)\n", summary.AuthorizationServer, m.authGrant)
	}
	if m.tokenTTL > 0 {
		fmt.Fprintf(stdout, "client tokens expire after %s; mint a fresh one: curl -X POST -H 'Authorization: Bearer <owner_bearer>' %s/_mockrs/grants/<grant_id>/token\n", m.tokenTTL, summary.RSURL)
	}
}
