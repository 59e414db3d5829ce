package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

func init() { subcommands["serve"] = runServe }

// runServe is the hosted Streamable HTTP server.
func runServe(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdpp-mcp serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	providerURL := fs.String("provider-url", env("PDPP_PROVIDER_URL"), "PDPP resource server origin")
	addr := fs.String("addr", envOr(env, "PDPP_MCP_ADDR", "127.0.0.1:7670"), "listen address HOST:PORT")
	publicURL := fs.String("public-url", env("PDPP_MCP_PUBLIC_URL"), "public origin clients use (default: from the request Host)")
	origins := fs.String("allowed-origins", env("PDPP_MCP_ALLOWED_ORIGINS"), "comma-separated browser origins allowed besides the public origin")
	serverName := fs.String("server-name", envOr(env, "PDPP_MCP_SERVER_NAME", adapter.DefaultServerName), "serverInfo name")
	cursorSecret := fs.String("cursor-secret", env("PDPP_MCP_CURSOR_SECRET"), "shared secret (>= 32 bytes) for continuation cursors; replicas must share it")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if strings.TrimSpace(*providerURL) == "" {
		fmt.Fprintln(stderr, "pdpp-mcp serve: missing --provider-url (or PDPP_PROVIDER_URL)")
		return exitUsage
	}
	norm, err := adapter.NormalizeProviderURL(*providerURL)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
		return exitUsage
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	var key *contentladder.CursorKey
	if *cursorSecret != "" {
		if key, err = contentladder.NewCursorKey([]byte(*cursorSecret)); err != nil {
			fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
			return exitUsage
		}
	}
	handler, err := newHostedHandler(hostedConfig{RSURL: norm, ServerName: *serverName, PublicURL: *publicURL,
		AllowedOrigins: splitList(*origins), CursorKey: key, Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
		return exitUsage
	}
	srv, err := startHTTP(*addr, handler)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "pdpp-mcp serving %s/mcp for %s\n", srv.URL, norm)
	if err := srv.waitAndShutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp serve: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// hostedConfig is everything the hosted adapter needs; serve and demo
// both build one. New options get zero-value defaults.
type hostedConfig struct {
	RSURL          string
	ServerName     string
	PublicURL      string
	AllowedOrigins []string
	CursorKey      *contentladder.CursorKey
	Logger         *slog.Logger
}

// newHostedHandler builds the hosted adapter for one RS.
func newHostedHandler(cfg hostedConfig) (http.Handler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	rs, err := rsclient.New(rsclient.Config{BaseURL: cfg.RSURL, Logger: cfg.Logger, UserAgent: "pdpp-mcp/" + version})
	if err != nil {
		return nil, err
	}
	a, err := adapter.New(adapter.Config{RS: rs, ServerName: cfg.ServerName, Version: version, CursorKey: cfg.CursorKey, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	return a.Hosted(adapter.HostedOptions{PublicURL: cfg.PublicURL, AllowedOrigins: cfg.AllowedOrigins}), nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
