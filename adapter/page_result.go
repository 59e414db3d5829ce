package adapter

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
)

// pageResult is a rendered page as a tool result: its text, its
// structuredContent, then a resource link per page link.
func pageResult(p page.Result) *mcp.CallToolResult {
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(p.Text)},
		StructuredContent: p.Structured,
	}
	for _, l := range p.Links {
		res.Content = append(res.Content, mcp.NewResourceLink(l.URI, l.Name, "", l.MIMEType))
	}
	return res
}

// truncateBytes cuts s to at most n bytes on a rune boundary, ending in an
// ellipsis when cut (page.TruncateBytes).
func truncateBytes(s string, n int) string { return page.TruncateBytes(s, n) }

// connectorKey reduces a registry URI source id to its canonical key
// (page.ConnectorKey).
func connectorKey(k string) string { return page.ConnectorKey(k) }
