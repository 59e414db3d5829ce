package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
)

// Grant is one scoped credential the adapter reads with. One bearer is one
// grant is one connector (possibly several connections).
type Grant struct {
	// Bearer is the client token. It is sent only to the configured RS and
	// never logged or rendered.
	Bearer string
	// Key is a one-way hash of Bearer: safe to log, used to key caches.
	Key string
}

// NewGrant wraps a bearer with its cache key.
func NewGrant(bearer string) Grant {
	return Grant{Bearer: bearer, Key: TokenHash(bearer)}
}

// TokenHash is a short, stable, one-way identifier for a bearer: the first
// 16 bytes of its SHA-256, base64url. Caches and logs use it, never the
// token.
func TokenHash(bearer string) string {
	sum := sha256.Sum256([]byte(bearer))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

type requestGrantKey struct{}

// WithRequestGrant attaches the grant of an inbound hosted request to ctx.
func WithRequestGrant(ctx context.Context, g Grant) context.Context {
	return context.WithValue(ctx, requestGrantKey{}, g)
}

// grants returns the source set for a call: the fixed stdio grants, or the
// hosted request's own grant. Never both: a hosted caller must not read
// through credentials configured for someone else.
func (s *Server) grants(ctx context.Context) []Grant {
	if g, ok := ctx.Value(requestGrantKey{}).(Grant); ok {
		return []Grant{g}
	}
	return s.cfg.Grants
}
