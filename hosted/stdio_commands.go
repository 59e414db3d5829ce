package hosted

import (
	"encoding/json"
	"strings"
)

// Stdio setup in the forms each host accepts. A host starts the stdio
// adapter itself, from whatever directory it happens to run in, so the
// printed setup names the binary and the credential cache by absolute
// path: a relative `.pdpp` cache would follow the host's working
// directory and a bare `pdpp-mcp` the host's PATH.

// StdioServerKey is the name the demo registers the stdio server under,
// distinct from ServerKey so both forms can be added side by side.
const StdioServerKey = "pdpp-stdio"

// stdioEntry is one stdio server as hosts store it: the inner object of
// `claude mcp add-json` and the value under "mcpServers" in .mcp.json.
type stdioEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// ClaudeCodeStdioCommand is `claude mcp add NAME -- COMMAND ARGS…`.
// command and args are shell words: quote literal values with ShellQuote,
// or pass an expansion such as "$(command -v pdpp-mcp)" to resolve an
// absolute path when the command runs.
func ClaudeCodeStdioCommand(name, command string, args []string) string {
	return "claude mcp add " + name + " -- " + strings.Join(append([]string{command}, args...), " ")
}

// CodexStdioCommand is `codex mcp add NAME -- COMMAND ARGS…`, with shell
// words as for ClaudeCodeStdioCommand.
func CodexStdioCommand(name, command string, args []string) string {
	return "codex mcp add " + name + " -- " + strings.Join(append([]string{command}, args...), " ")
}

// ClaudeCodeAddJSONCommand is `claude mcp add-json NAME '<object>'` with
// the inner server object (add-json rejects a {"mcpServers":…} wrapper).
// command and args are literal values here, not shell words.
func ClaudeCodeAddJSONCommand(name, command string, args []string) string {
	b, _ := json.Marshal(stdioEntry{Type: "stdio", Command: command, Args: args})
	return "claude mcp add-json " + name + " " + ShellQuote(string(b))
}

// MCPServersJSON is the {"mcpServers":{NAME:{…}}} block of a project's
// .mcp.json (and of most other hosts' configuration files).
func MCPServersJSON(name, command string, args []string) string {
	b, _ := json.Marshal(map[string]map[string]stdioEntry{"mcpServers": {name: {Command: command, Args: args}}})
	return string(b)
}

// ShellQuote makes s one POSIX shell word: unchanged when it holds only
// characters no shell treats specially, else single-quoted.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellQuoteAll quotes every element with ShellQuote.
func ShellQuoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = ShellQuote(w)
	}
	return out
}

// The public setup page cannot know the reader's paths, so its stdio
// setup lets the shell fill them in when the command runs (the host then
// stores the absolute values), and its JSON block names placeholders the
// page tells the reader how to fill.
const (
	// stdioExeWord expands to the absolute path of pdpp-mcp on PATH.
	stdioExeWord = `"$(command -v pdpp-mcp)"`
	// stdioCacheWord is the one fixed cache the page's connect command
	// writes and its stdio commands read, whatever directory the reader's
	// shell is in.
	stdioCacheWord = `"$HOME/.pdpp"`
	// StdioExePlaceholder and StdioCachePlaceholder stand for the two
	// absolute paths in the page's JSON block.
	StdioExePlaceholder   = "/ABSOLUTE/PATH/TO/pdpp-mcp"
	StdioCachePlaceholder = "/ABSOLUTE/PATH/TO/HOME/.pdpp"
)

// ConnectCommand is `pdpp-mcp connect` for providerURL: it signs in the
// way a host does and caches the client token, with its refresh token,
// in one fixed place ($HOME/.pdpp) the stdio commands read.
func ConnectCommand(providerURL string) string {
	return `pdpp-mcp connect ` + ShellQuote(providerURL) + ` --cache-root ` + stdioCacheWord
}

// stdioPageWords are the stdio adapter's arguments as shell words for the
// public page: the cache root is expanded by the shell.
func stdioPageWords(providerURL string) []string {
	return []string{"--provider-url", ShellQuote(providerURL), "--cache-root", stdioCacheWord}
}
