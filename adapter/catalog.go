package adapter

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// toolSpec is one tool as data: its advertised surface (name, title,
// description) and its handler. Each tool lives in its own file
// (tool_<name>.go) next to its renderer; its input and output JSON Schemas
// are data files beside them (toolschemas/<name>.{input,output}.json).
type toolSpec struct {
	Name        string
	Title       string
	Description string
	// Handle runs a validated call for the transport's request req: the
	// handler shape over the tool's own logic (toolLogic.handle). args
	// are the raw JSON arguments.
	Handle func(ctx context.Context, s *Server, req Request, args json.RawMessage) *mcp.CallToolResult
}

// Input is the tool's input JSON Schema, compact: strict
// (additionalProperties:false) with no top-level combinators.
func (t toolSpec) Input() string { return toolSchemas[t.Name+".input.json"] }

// Output is the tool's output JSON Schema, compact.
func (t toolSpec) Output() string { return toolSchemas[t.Name+".output.json"] }

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
	tool := mcp.NewToolWithRawSchema(t.Name, t.Description, json.RawMessage(t.Input()))
	tool.Title = t.Title
	tool.Annotations = readOnly() // the title is on the tool itself; not repeated
	if out := t.Output(); out != "" {
		tool.RawOutputSchema = json.RawMessage(out)
	}
	return tool
}
