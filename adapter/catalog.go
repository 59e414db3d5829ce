package adapter

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// toolSpec is one tool as data: its advertised surface (name, title,
// description, input and output JSON Schemas) and its handler. Each tool
// lives in its own file (tool_<name>.go) next to its renderer.
type toolSpec struct {
	Name        string
	Title       string
	Description string
	// Input and Output are JSON Schemas; Input is strict
	// (additionalProperties:false) and has no top-level combinators.
	Input  string
	Output string
	// Handle runs a validated call. args are the raw JSON arguments.
	Handle func(ctx context.Context, s *Server, args json.RawMessage) *mcp.CallToolResult
}

// catalog returns the six tools in the order R-1 prescribes for tools/list.
func catalog() []toolSpec {
	return []toolSpec{schemaTool, queryRecordsTool, aggregateTool, searchTool, fetchTool, readRecordFieldTool}
}

// ToolNames lists the advertised tools in tools/list order.
func ToolNames() []string {
	specs := catalog()
	names := make([]string, len(specs))
	for i, t := range specs {
		names[i] = t.Name
	}
	return names
}

// ToolInfo names one advertised tool and says what it does, for setup
// pages and documentation that must not drift from tools/list.
type ToolInfo struct {
	Name, Description string
}

// Tools lists the advertised tools in tools/list order.
func Tools() []ToolInfo {
	specs := catalog()
	out := make([]ToolInfo, len(specs))
	for i, t := range specs {
		out[i] = ToolInfo{Name: t.Name, Description: t.Description}
	}
	return out
}

// readOnly is the annotation set shared by every tool: all six only read,
// are safe to repeat, and touch nothing outside the grant.
func readOnly() mcp.ToolAnnotation {
	f, t := false, true
	return mcp.ToolAnnotation{
		ReadOnlyHint:    &t,
		DestructiveHint: &f,
		IdempotentHint:  &t,
		OpenWorldHint:   &f,
	}
}

// mcpTool turns a spec into the mcp-go tool definition.
func (t toolSpec) mcpTool() mcp.Tool {
	tool := mcp.NewToolWithRawSchema(t.Name, t.Description, json.RawMessage(t.Input))
	tool.Title = t.Title
	tool.Annotations = readOnly() // the title is on the tool itself; not repeated
	if t.Output != "" {
		tool.RawOutputSchema = json.RawMessage(t.Output)
	}
	return tool
}
