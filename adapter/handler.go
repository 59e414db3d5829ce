package adapter

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// The handler shape. Every tool call takes the same steps, written once
// here: decode the validated arguments strictly into the tool's typed
// arguments; check them before any RS call; build the call's source set
// (the grants it may read, narrowed by its grant_id); route a read that
// goes to one source to the grant that serves it; run the tool's own read
// and page; and turn whatever failed into the one typed error result,
// carrying the set's source warnings once the set exists. A tool file
// holds only its own part (toolLogic): its arguments, their checks, the
// source it reads, and the read and page it makes. server.go's
// toolHandler wraps the shape for mcp-go (argument validation, the call
// deadline, a refused credential's retry, logs and metrics).

// toolLogic is one tool's own part of a call. A is the tool's arguments,
// as decoded from the validated JSON; R is the read check makes of them.
type toolLogic[A, R any] struct {
	// check validates the arguments before any RS call, rule by rule in
	// the tool's order (the first broken rule names the error), and
	// returns the read they ask for. It may settle defaults and aliases
	// in a.
	check func(s *Server, a *A) (R, *toolError)
	// grantID is the call's grant_id, read after check (a continued
	// search takes it from its cursor); nil for a tool without one.
	grantID func(a A) string
	// source names the one source a source-required read goes to (records,
	// a record, an aggregate, a field window): the shape routes the call
	// to the grant that serves it before run. Nil for tools that read
	// the whole set (schema, search).
	source func(a A, r R) (stream, connectionID string)
	// refused describes the routed read for the next steps of its RS
	// refusal (routedCall.refusal); nil when run maps its errors itself.
	refused func(a A, r R) refusedRead
	// run reads and renders the page. Its error becomes the call's error
	// result with the set's warnings; a result it returns is the answer
	// as it is.
	run func(ctx context.Context, c *routedCall, a A, r R) (*mcp.CallToolResult, *toolError)
}

// routedCall is a checked call as run sees it: the server, the call's
// source set and, for a source-required read, the grant it was routed to.
type routedCall struct {
	s   *Server
	set *sourceSet
	// grant is the routed grant (zero for a tool without a source).
	grant Grant
	// read is the routed read as its refusal's next steps see it.
	read refusedRead
}

// refusal maps an RS failure of the routed read onto the call's typed
// error: the RS's own envelope, with the calls that work instead.
func (c *routedCall) refusal(ctx context.Context, err error) *toolError {
	return c.s.rsRefusal(ctx, c.set, c.grant, err, c.read)
}

// handle runs one call of the tool for the transport's request req.
func (t toolLogic[A, R]) handle(ctx context.Context, s *Server, req Request, raw json.RawMessage) *mcp.CallToolResult {
	var a A
	if te := decodeArgs(raw, &a); te != nil {
		return errorResult(te)
	}
	r, te := t.check(s, &a)
	if te != nil {
		return errorResult(te)
	}
	sc := scope{door: req.Grant}
	if t.grantID != nil {
		sc.picked = t.grantID(a)
	}
	set, te := s.sources(ctx, sc)
	if te != nil {
		return errorResult(te)
	}
	c := &routedCall{s: s, set: set}
	if t.source != nil {
		if c.grant, te = set.route(t.source(a, r)); te != nil {
			return set.annotate(errorResult(te))
		}
		if t.refused != nil {
			c.read = t.refused(a, r)
		}
	}
	res, te := t.run(ctx, c, a, r)
	if te != nil {
		return set.annotate(errorResult(te))
	}
	return res
}
