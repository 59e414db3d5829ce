package adapter

import "github.com/mark3labs/mcp-go/mcp"

// warnings are the set's source warnings; none for a nil set.
func (set *sourceSet) warnings() []warning {
	if set == nil {
		return nil
	}
	return set.warns
}

// annotate carries the set's source warnings into an error result, so a
// grant that could not be read is never silently missing: as a
// `warnings` member beside the error object, whose text stays the same
// compact JSON. Successes carry them in their typed results.
func (set *sourceSet) annotate(res *mcp.CallToolResult) *mcp.CallToolResult {
	te := resultError(res)
	if te == nil || len(set.warnings()) == 0 {
		return res
	}
	annotated := *te
	annotated.Warnings = set.warns
	return errorResult(&annotated)
}
