// Command pdpp-mcp is a stateless MCP adapter that lets AI agents read a
// person's grant-scoped personal data from a PDPP resource server (RS).
//
// Subcommands:
//
//	pdpp-mcp [--provider-url URL] [--cache-root DIR] [--server-name NAME]
//	    stdio MCP server (default), credentials from the `pdpp connect` cache
//	pdpp-mcp serve --provider-url URL [--addr HOST:PORT]
//	    hosted Streamable HTTP MCP server at /mcp
//	pdpp-mcp demo [--addr HOST:PORT] [--json]
//	    embedded mock RS + demo data + hosted adapter on loopback
//	pdpp-mcp mockrs [--addr HOST:PORT] [--json] [--records N]
//	    the mock RS alone
//	pdpp-mcp version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes follow sysexits(3) where one fits, as the TypeScript adapter did.
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 64 // EX_USAGE: bad flags or arguments
	exitNoPerm   = 77 // EX_NOPERM: owner credentials present
	exitConfig   = 78 // EX_CONFIG: no usable scoped credential
	exitSignaled = 130
)

// subcommand runs one pdpp-mcp mode and returns its exit code.
type subcommand func(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int

var subcommands = map[string]subcommand{
	"mockrs":  runMockRS,
	"version": runVersion,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand; without one it is the stdio server.
func run(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := subcommands[args[0]]; ok {
			return cmd(ctx, args[1:], env, stdout, stderr)
		}
	}
	if stdio, ok := subcommands["stdio"]; ok {
		return stdio(ctx, args, env, stdout, stderr)
	}
	fmt.Fprintln(stderr, "pdpp-mcp: the stdio server is not available in this build")
	return exitFailure
}

func runVersion(_ context.Context, _ []string, _ func(string) string, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, version)
	return exitOK
}
