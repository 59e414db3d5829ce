// Package adapter is the MCP surface of pdpp-mcp: six read-only tools as
// data (one file per tool: schema, description, handler, renderer), their
// text renderers, error mapping, resources and the source set of grants.
// The HTTP door is package hosted. It is built on github.com/mark3labs/mcp-go and
// reads through rsclient; it never broadens a grant and never retries with
// other credentials.
package adapter
