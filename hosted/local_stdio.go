package hosted

// LocalStdio is a stdio setup that already works on the machine serving
// the pages: `pdpp-mcp demo` knows its own binary and has written the
// credential cache for its mock RS. With it, /connect and /llms.txt show
// those absolute paths and no connect step (its mock RS has no sign-in);
// without it they show the production steps, whose paths the reader's
// shell fills in.
type LocalStdio struct {
	// Exe is the absolute path of the pdpp-mcp binary.
	Exe string
	// CacheRoot is the absolute path of the credential cache root, which
	// holds clients/<host>.json for the provider.
	CacheRoot string
}

// CodexBearerNote is said wherever the Codex bearer command is printed:
// Codex reads the variable when it starts, and when it is unset then, the
// server's tools are simply missing, with no message.
const CodexBearerNote = "Codex reads " + BearerEnvVar + " when it starts: export it in the shell that starts codex (unset, Codex starts without this server's tools and says nothing)."

// localStdioData fills the stdio lines of the pages from a LocalStdio:
// literal, shell-quoted absolute paths instead of `"$(command -v
// pdpp-mcp)"` and `"$HOME/.pdpp"`, and the real JSON block.
func localStdioData(d *pageData, l *LocalStdio, provider string) {
	args := StdioArgs(provider, l.CacheRoot)
	words := ShellQuoteAll(args)
	d.Local = true
	d.StdioConnect = ""
	d.StdioClaudeCode = ClaudeCodeStdioCommand(StdioServerKey, ShellQuote(l.Exe), words)
	d.StdioCodex = CodexStdioCommand(StdioServerKey, ShellQuote(l.Exe), words)
	d.StdioConfig = MCPServersJSON(StdioServerKey, l.Exe, args)
	d.StdioCacheRoot = l.CacheRoot
}
