package adapter

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

type shutdownKey struct{}

// WithShutdown attaches a transport's shutdown signal to ctx: once
// shutdown is done, every tool call running under ctx is cancelled and
// answers a typed `cancelled` result, and a call that starts after it
// answers so at once, while the transport keeps running to deliver the
// answers (stdio at EOF: every request read gets its answer before exit).
func WithShutdown(ctx, shutdown context.Context) context.Context {
	return context.WithValue(ctx, shutdownKey{}, shutdown)
}

// underShutdown derives the call's context from the transport's shutdown
// signal, if any; cancel releases it.
func underShutdown(ctx context.Context) (context.Context, context.CancelFunc, bool) {
	shutdown, ok := ctx.Value(shutdownKey{}).(context.Context)
	if !ok {
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
