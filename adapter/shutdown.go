package adapter

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// underShutdown derives the call's context from the transport's shutdown
// signal (Request.Shutdown), if any: the call is cancelled once shutdown
// is done. release releases it; done reports that shutdown already was.
func underShutdown(ctx, shutdown context.Context) (_ context.Context, release context.CancelFunc, done bool) {
	if shutdown == nil {
		return ctx, func() {}, false
	}
	if shutdown.Err() != nil {
		return ctx, func() {}, true
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(shutdown, cancel)
	return ctx, func() { stop(); cancel() }, false
}

// cancelledError is the typed error of a call cut short by its caller or
// the transport's shutdown.
func cancelledError() *toolError {
	return newAdapterError("cancelled", "the request was cancelled")
}

// CancelledToolResult is the typed `cancelled` tool result, for a
// transport that must answer a call the adapter could not (stdio's
// bounded drain at EOF gave up waiting for it).
func CancelledToolResult() *mcp.CallToolResult { return errorResult(cancelledError()) }
