// Command pdpp-mcp is a stateless MCP adapter that lets AI agents read a
// person's grant-scoped personal data from a PDPP resource server (RS).
//
// Subcommands:
//
//	pdpp-mcp [--provider-url URL] [--cache-root DIR] [--server-name NAME]
//	    stdio MCP server (default), credentials from the `pdpp connect` cache
//	pdpp-mcp connect <rs-url> [--sign-in-details FILE | --connector ID] [--cache-root DIR] [--no-browser]
//	    OAuth sign-in (loopback redirect, PKCE) writing the stdio credential cache with a refresh token
//	pdpp-mcp serve --provider-url URL [--addr HOST:PORT] [--metrics-addr HOST:PORT]
//	    hosted Streamable HTTP MCP server at /mcp
//	pdpp-mcp demo [--addr HOST:PORT] [--rs-addr HOST:PORT] [--cache-root DIR] [--json] [--token-ttl D]
//	    embedded mock RS + demo data + hosted adapter on loopback
//	pdpp-mcp mockrs [--addr HOST:PORT] [--json] [--records N] [--capabilities full|declared] [--token-ttl D]
//	                [--fault-* ...] [--request-log FILE] [--lexical-gap CONN:STREAM]
//	                [--auth-grant GRANT_ID [--auth-deny]]
//	    the mock RS alone
//	pdpp-mcp version | --version
//	    the build version on stdout
//	pdpp-mcp help | --help
//	    this overview on stdout
//
// Configuration: every flag has an environment variable; a flag on the
// command line beats its variable, which beats the built-in default.
// Secrets come only from the environment, each also as NAME_FILE naming a
// file that holds it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…"; empty
// means "ask the module build info" (see appVersion).
var version string

// appVersion is the version this binary reports: the ldflags stamp when a
// release build set one, else the main module's version from the build
// info (what `go install …@vX` records), else "dev" for a plain checkout.
func appVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Exit codes follow sysexits(3) where one fits, as the TypeScript adapter did.
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 64 // EX_USAGE: bad flags or arguments
	exitNoPerm   = 77 // EX_NOPERM: owner credentials present
	exitConfig   = 78 // EX_CONFIG: no usable scoped credential, unusable secret
	exitSignaled = 130
)

// subcommand runs one pdpp-mcp mode and returns its exit code.
type subcommand func(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int

// subcommands is every named mode. It is an explicit table, not filled by
// init functions, so what the binary can do is readable in one place.
// The stdio server is the default when no name matches; help is handled
// by run, as it reads this table.
var subcommands = map[string]subcommand{
	"serve":   runServe,
	"connect": runConnect,
	"demo":    runDemo,
	"mockrs":  runMockRS,
	"stdio":   runStdio,
	"version": runVersion,
}

const overview = `pdpp-mcp — MCP adapter for a PDPP resource server

usage:
  pdpp-mcp [--provider-url URL] [--cache-root DIR]   stdio MCP server (default)
  pdpp-mcp connect <rs-url> [flags]                  sign in; writes the credentials stdio reads
  pdpp-mcp serve --provider-url URL [flags]          hosted Streamable HTTP at /mcp
  pdpp-mcp demo                                      mock RS + demo data + hosted adapter
  pdpp-mcp mockrs                                    the mock RS alone
  pdpp-mcp version                                   print the version
  pdpp-mcp <command> --help                          the flags of one command

Every flag has an environment variable (shown by --help); a flag given on the
command line wins over its variable, which wins over the default.
`

func main() {
	applyMemoryLimit(os.Getenv)
	applyHeapFloor(os.Getenv)
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
		switch args[0] {
		case "--version", "-version":
			return runVersion(ctx, args[1:], env, stdout, stderr)
		case "help", "--help", "-help", "-h":
			return runHelp(ctx, args[1:], env, stdout, stderr)
		}
		if !strings.HasPrefix(args[0], "-") {
			return unknownCommand(args[0], stderr)
		}
	}
	return runStdio(ctx, args, env, stdout, stderr)
}

const versionUsage = `usage: pdpp-mcp version

Prints the version on stdout: the release stamp, else the module version
` + "`go install …@vX`" + ` recorded, else "dev".
`

// runVersion prints the version; `version --help` prints its usage instead
// (a request for help is never answered with the thing itself).
func runVersion(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdpp-mcp version", flag.ContinueOnError)
	if code, ok := parseFlags(fs, versionUsage, args, stdout, stderr); !ok {
		return code
	}
	fmt.Fprintln(stdout, appVersion())
	return exitOK
}

// runHelp prints the overview and the flags of the default stdio mode, or
// with a command name that command's usage.
func runHelp(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := subcommands[args[0]]; ok {
			return cmd(ctx, []string{"--help"}, env, stdout, stderr)
		}
	}
	fmt.Fprint(stdout, overview+"\n")
	return runStdio(ctx, []string{"--help"}, env, stdout, stderr)
}
