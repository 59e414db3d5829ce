package adapter

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// annotate carries the set's source warnings into a tool result, so a
// grant that could not be read is never silently missing: on a
// success as model-visible lines after the text and as a `warnings` member
// of structuredContent; on an error as a `warnings` member of the error
// object, whose text stays the same compact JSON.
func (set *sourceSet) annotate(res *mcp.CallToolResult) *mcp.CallToolResult {
	if set == nil || len(set.warns) == 0 || res == nil {
		return res
	}
	te := resultError(res)
	raw, _ := res.StructuredContent.(json.RawMessage)
	if te != nil {
		raw = te.body()
	}
	members, err := orderedObject(raw)
	if err != nil {
		return res
	}
	fields := make([]field, 0, len(members)+1)
	for _, m := range members {
		if m.key != "warnings" {
			fields = append(fields, field{m.key, m.value})
		}
	}
	fields = append(fields, field{"warnings", set.warns})
	body := orderedJSON(fields)
	if te != nil {
		res.StructuredContent = errorContent{err: te, body: body}
		res.Content[0] = mcp.NewTextContent(string(body))
		return res
	}
	res.StructuredContent = body
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(mcp.TextContent); ok {
			res.Content[0] = mcp.NewTextContent(withWarnings(tc.Text, set.warns))
		}
	}
	return res
}
