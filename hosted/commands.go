package hosted

// Host setup commands. The /connect page, /llms.txt and `pdpp-mcp demo`
// all print these, so one definition keeps every copy-paste path exact.
// The page passes a placeholder or `$PDPP_BEARER` as the bearer; only the
// demo passes a real (demo) token.

// BearerEnvVar is the environment variable the printed commands read the
// client token from. Codex only takes bearers from the environment, so the
// Claude Code command on the public page uses the same variable.
const BearerEnvVar = "PDPP_BEARER"

// ServerKey is the name the setup commands register the server under.
const ServerKey = "pdpp"

// ClaudeCodeSignInCommand is `claude mcp add` for the hosted endpoint
// without a header: Claude Code finds the authorization server from the
// 401 challenge and signs in itself (OAuth), so no token is copied.
func ClaudeCodeSignInCommand(mcpURL string) string {
	return `claude mcp add --transport http ` + ServerKey + ` ` + mcpURL
}

// CodexSignInCommand is `codex mcp add` for the hosted endpoint without
// a bearer: Codex detects the OAuth challenge and starts signing in at
// once (`codex mcp login` repeats it later).
func CodexSignInCommand(mcpURL string) string {
	return `codex mcp add ` + ServerKey + ` --url ` + mcpURL
}

// ClaudeCodeCommand is `claude mcp add` for the hosted endpoint with a
// pasted bearer: the fallback for hosts or deployments without sign-in.
func ClaudeCodeCommand(mcpURL, bearer string) string {
	return `claude mcp add --transport http ` + ServerKey + ` ` + mcpURL + ` --header "Authorization: Bearer ` + bearer + `"`
}

// CodexCommand is `codex mcp add` for the hosted endpoint (Streamable
// HTTP; Codex reads the bearer from BearerEnvVar, never from argv).
func CodexCommand(mcpURL string) string {
	return `codex mcp add ` + ServerKey + ` --url ` + mcpURL + ` --bearer-token-env-var ` + BearerEnvVar
}

// BearerExportLine sets BearerEnvVar in a POSIX shell.
func BearerExportLine(bearer string) string {
	return `export ` + BearerEnvVar + `="` + bearer + `"`
}

// StdioArgs are the stdio adapter's arguments for one provider; cacheRoot
// is omitted when empty (the default `.pdpp` cache under the working
// directory).
func StdioArgs(providerURL, cacheRoot string) []string {
	args := []string{"--provider-url", providerURL}
	if cacheRoot != "" {
		args = append(args, "--cache-root", cacheRoot)
	}
	return args
}
