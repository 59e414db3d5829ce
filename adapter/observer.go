package adapter

import "time"

// Observer is told about every tool call, after it ran. The hosted door's
// Prometheus metrics implement it; the adapter itself knows no metrics
// library. Implementations must be safe for concurrent use and fast: they
// run on the call's goroutine.
type Observer interface {
	ObserveTool(ToolCall)
}

// ToolCall is what an Observer learns of one call: never arguments or
// content, so nothing a user or the RS wrote reaches metrics.
type ToolCall struct {
	// Tool is the tool name (a fixed set).
	Tool string
	// IsError is true for an isError result.
	IsError bool
	// ErrorCode is the typed code of an error result ("" on success). It
	// may be any code the RS sent; observers bound their label sets.
	ErrorCode string
	// Duration is the handler's wall time, validation included.
	Duration time.Duration
}

// resultSummary is what metrics and logs keep of a result: never content.
type resultSummary struct {
	isError bool
	code    string
}
