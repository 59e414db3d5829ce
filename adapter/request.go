package adapter

import "context"

// Request is what a transport knows of one inbound request that the
// adapter's handlers need: whose grant it reads with, who hears that the
// RS refused that grant's token, how its results are written and when the
// transport shuts down. A transport attaches it once, with WithRequest,
// to the context it hands mcp-go. No Request (the zero value) is a call
// that reads through Config.Grants, is encoded by mcp-go and has no
// shutdown signal.
type Request struct {
	// Grant, when set (the hosted door, after verifying the bearer), is
	// the request's own grant: every call of the request reads through
	// it alone, never through credentials configured for someone else
	// (Config.Grants).
	Grant *Grant
	// CredentialRefused, when set, is told each time the RS refuses the
	// request's token (rsclient.CredentialRefused) on a read the request
	// started — a tool's, a resource's, a schema read, a hit title, a
	// probe — and when a tool result is such a refusal. A read another
	// request started and this one joined (the same token's cached or
	// shared reads) reports to the request that started it; this one
	// hears of it only when the refusal becomes its result. The hosted door holds its answer and
	// answers the HTTP challenge that makes its client refresh instead.
	// It may be called several times, from several goroutines, and after
	// the handler returned (a read that outlives its call).
	CredentialRefused func()
	// Results, when set, makes tool calls answer through this splicer:
	// the adapter encodes each result once, and the transport must pass
	// every message it writes through Results.Join.
	Results *ResultSplicer
	// Shutdown, when set, is the transport's shutdown signal: once it is
	// done, every tool call of the request is cancelled and answers a
	// typed `cancelled` result, and a call that starts after it answers
	// so at once, while the transport keeps running to deliver the
	// answers (stdio at EOF: every request read gets its answer before
	// exit).
	Shutdown context.Context
}

// requestKey is the adapter's one context value: the transport's Request.
// It is a context value only because mcp-go hands a tool or resource
// handler nothing but a context and the protocol message, so what the
// transport knows of the request can reach the handler no other way.
// Handlers read it once (the tool handler in toolHandler, resource reads
// in withinCallTimeout) and pass its parts on as explicit arguments; the
// one exception is the refusal report (rsReads), which every RS read of
// the call makes, however deep in a fan-out or a shared cache fill, from
// the context that read already carries.
type requestKey struct{}

// WithRequest returns ctx carrying r: the tool calls and resource reads
// mcp-go runs under it see r.
func WithRequest(ctx context.Context, r Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// requestOf is the Request a transport attached to ctx; the zero Request
// when none.
func requestOf(ctx context.Context) Request {
	r, _ := ctx.Value(requestKey{}).(Request)
	return r
}

// credentialRefused tells the transport that the RS refused the request's
// token, when it asked to know.
func (r Request) credentialRefused() {
	if r.CredentialRefused != nil {
		r.CredentialRefused()
	}
}

// scope is whose data one call reads: the door's grant (hosted) or the
// configured grants (stdio), narrowed by the call's grant_id.
type scope struct {
	// door is the hosted request's verified grant; nil reads through the
	// configured grants.
	door *Grant
	// picked is the call's grant_id: the grant a source-required read
	// must use ("" lets routing choose).
	picked string
}
