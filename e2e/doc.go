// Package e2e holds the end-to-end tests: real MCP clients (the official Go
// SDK, the official TypeScript SDK, the MCP Inspector 2.x CLI and the MCP
// conformance runner) drive the real pdpp-mcp binary — `serve` over
// Streamable HTTP and the stdio server — against `pdpp-mcp mockrs` serving
// the demo dataset. The real hosts Claude Code and Codex take the setup
// commands `pdpp-mcp demo` prints, verbatim, with their configuration in a
// temporary HOME and no network beyond loopback. Three `serve` replicas run
// behind a real nginx (Debian's, installed by .ci/setup-nginx) to prove
// scale-out: shared cursor secret, round robin, one replica killed under
// load. Every process is on loopback, bounded in time and killed by PID when
// its test ends.
//
// The Node clients and the hosts' npm packages are pinned by
// node/package-lock.json and installed by .ci/setup-e2e (`npm ci --prefix
// e2e/node`). Without node/node_modules the Node tests skip, unless CI=true,
// where they fail: CI must never skip them silently.
package e2e
