package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pdpp/pdpp-mcp/hosted"
)

// The demo's stdio setup outlives one run: a host stores the printed
// command and starts it again next week. Both things it names must then
// still hold: the provider URL (the mock RS's port, fixed by default) and
// the credential cache (under the user's cache directory, not a temporary
// one). The dataset's tokens come from a fixed seed, so the cache written
// by an earlier run keeps working.

// defaultDemoRSAddr is the mock RS's default address in the demo. It
// differs from `mockrs`'s default (7663), so both can run side by side.
const defaultDemoRSAddr = "127.0.0.1:7671"

// demoCacheDir is the demo cache's directory below os.UserCacheDir().
var demoCacheDir = filepath.Join("pdpp-mcp", "demo")

// flagSet reports whether name was given on the command line (not just
// defaulted).
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// demoCacheRoot is the cache root to write: the flag's value, else
// pdpp-mcp/demo under the user's cache directory. With no user cache
// directory (no HOME) it is "", a temporary directory removed on exit,
// and a note on stderr says so.
func demoCacheRoot(flagValue string, stderr io.Writer) string {
	if flagValue != "" {
		return flagValue
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp demo: no user cache directory (%v); the demo cache is temporary and removed on exit (use --cache-root for one that lasts)\n", err)
		return ""
	}
	return filepath.Join(dir, demoCacheDir)
}

// printStdioSetup prints the stdio adapter's setup in the form each host
// accepts: Claude Code's `mcp add … --` and `mcp add-json` (the inner
// object), Codex's `mcp add … --`, and a .mcp.json block. exe and
// cacheRoot are absolute, so nothing depends on the host's directory.
// lasting says whether the setup survives a demo restart (the default RS
// port bound and a lasting cache); when not, the heading says so.
func printStdioSetup(b *strings.Builder, exe, rsURL, cacheRoot string, lasting bool) {
	args := hosted.StdioArgs(rsURL, cacheRoot)
	words := hosted.ShellQuoteAll(args)
	lifetime := "kept across demo restarts"
	if !lasting {
		lifetime = "valid for this run only: the RS port or the cache is not the lasting default"
	}
	fmt.Fprintf(b, "stdio (the host starts the adapter; credentials cached in %s, %s):\n", cacheRoot, lifetime)
	if strings.Contains(exe, "go-build") {
		fmt.Fprintf(b, "  (note: %s is a temporary `go run` build; `go install` pdpp-mcp for a setup that lasts)\n", exe)
	}
	fmt.Fprintf(b, "  Claude Code:\n  %s\n", hosted.ClaudeCodeStdioCommand(hosted.StdioServerKey, hosted.ShellQuote(exe), words))
	fmt.Fprintf(b, "  or:\n  %s\n", hosted.ClaudeCodeAddJSONCommand(hosted.StdioServerKey, exe, args))
	fmt.Fprintf(b, "  Codex:\n  %s\n", hosted.CodexStdioCommand(hosted.StdioServerKey, hosted.ShellQuote(exe), words))
	fmt.Fprintf(b, "  .mcp.json (a project's MCP servers, also read by other hosts):\n  %s\n\n", hosted.MCPServersJSON(hosted.StdioServerKey, exe, args))
}
