package adapter

import (
	"context"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// What a transport in front of the adapter (the hosted HTTP door) needs
// beyond MCP(): the RS it reads from, the RS's public metadata, and the
// token-kind probe that shares the tools' schema cache.

// RS returns the resource-server client the adapter reads with.
func (s *Server) RS() *rsclient.Client { return s.rs.c }

// ProtectedResourceMetadata is the RS's RFC 9728 document, cached for
// five minutes (it is public and the same for every token).
func (s *Server) ProtectedResourceMetadata(ctx context.Context) (*rsclient.ProtectedResourceMetadata, error) {
	return s.prm.get(ctx, s.rs)
}

// ErrOwnerToken is returned (matched with errors.Is) when the RS reports
// that a bearer is not a grant-scoped client token: owner and
// control-plane authority are refused everywhere.
var ErrOwnerToken error = errOwnerToken

// TokenKind learns a bearer's kind from the RS schema document's `bearer`
// block. It shares the tools' schema cache, so the first tool call after
// a hosted door's probe does not fetch the schema again. A kind other than
// client is ErrOwnerToken; an RS refusal is an *rsclient.Error.
func (s *Server) TokenKind(ctx context.Context, g Grant) (string, error) {
	doc, err := s.schemas.get(ctx, s.rs, g)
	if err != nil {
		return "", err
	}
	return doc.Bearer.TokenKind, nil
}

// ErrorCode names a failure by its typed code (an RS envelope's code,
// rs_timeout, rs_unavailable, …) without internals, for logs and health
// answers; "error" when it has none.
func ErrorCode(err error) string { return errorCode(err) }

// ServedWithin reports whether the RS served g as a client token recently
// enough that its last good schema is still kept (15 minutes): the hosted
// door admits such a token while the RS cannot be asked, so calls the
// cache can answer keep working through an outage. It never calls the RS.
func (s *Server) ServedWithin(g Grant) bool { return s.schemas.lastGood(g.Key) != nil }

// ForgetGrant drops g's cached schema, fresh and last good: the RS has
// refused its token (expired, revoked), so nothing may vouch for it any
// more, outage or not.
func (s *Server) ForgetGrant(g Grant) { s.schemas.forget(g) }
