package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"time"
)

// Grant is one scoped credential the adapter reads with. One bearer is one
// grant is one connector (possibly several connections).
type Grant struct {
	// Bearer is the client token. It is sent only to the configured RS and
	// never logged or rendered.
	Bearer string
	// Key is a one-way hash of Bearer: safe to log, used to key caches.
	Key string
	// Expires is when the credential cache says the token stops working
	// (`expires_at`); zero when unknown. An expired grant is not sent.
	Expires time.Time
	// ID is the RS grant id of the token, as the RS names it in the
	// grant's schema (`bearer.grant_id`); empty until the schema is read,
	// or when the RS does not say. Cursors bind to it (binding), so a
	// refreshed token of the same grant continues them.
	ID string
}

// binding is what a cursor issued through g is bound to: the grant, when
// the RS named it, so every token of that grant continues the cursor;
// else the token itself (a refresh then ends the cursor: safe, and the
// message says why). Never the bearer string.
func (g Grant) binding() string {
	if g.ID != "" {
		return "grant\x00" + g.ID
	}
	return "token\x00" + g.Key
}

// grantTag is the short fingerprint of g.binding() that records and
// search cursors carry: 48 bits, enough to tell one person's grants apart
// (the cursor's MAC, not the tag, stops forgery).
func grantTag(g Grant) string {
	sum := sha256.Sum256([]byte("pdpp-mcp cursor grant v2\x00" + g.binding()))
	return base64.RawURLEncoding.EncodeToString(sum[:6])
}

// foreignCursorMessage is the true reason a cursor does not continue under
// g: it was issued under another grant (or, when the RS names no grant,
// another token).
func foreignCursorMessage(g Grant, what string) string {
	if g.ID != "" {
		return fmt.Sprintf("this cursor was issued under another grant than %s, which serves this %s; only a token of the issuing grant continues it (a refreshed token of the same grant does); repeat the first call without it", g.ID, what)
	}
	return fmt.Sprintf("this cursor was issued under another credential, and the resource server does not name this token's grant, so its cursors cannot outlive the token; repeat the first %s without it", what)
}

// expired reports whether g is past its known expiry at now.
func (g Grant) expired(now time.Time) bool { return !g.Expires.IsZero() && !now.Before(g.Expires) }

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

// grants returns the source set for a call: the stdio grants (re-read
// from the credential cache when one has expired), or door, the hosted
// request's own grant. Never both: a hosted caller must not read through
// credentials configured for someone else. Expired stdio grants are left
// out, each as a credential_expired warning; none left is a
// credential_expired error.
func (s *Server) grants(ctx context.Context, door *Grant) ([]Grant, []warning, *toolError) {
	if door != nil {
		return []Grant{*door}, nil, nil
	}
	now := s.now()
	all := s.creds.current()
	if s.creds.changed() || slices.ContainsFunc(all, func(g Grant) bool { return g.expired(now) || s.creds.refused(g.Key) }) {
		all = s.creds.reload(ctx)
	}
	var live []Grant
	var warns []warning
	for i, g := range all {
		if g.expired(now) {
			warns = append(warns, warning{Code: CodeCredentialExpired,
				Message: fmt.Sprintf("grant %d of %d has expired; %s", i+1, len(all), s.creds.advice())})
			continue
		}
		if until, ok := s.creds.refusedUntil(g.Key); ok {
			name := s.schemas.name(g.Key).describe(i, len(all))
			warns = append(warns, warning{Code: CodeCredentialExpired, GrantID: s.schemas.name(g.Key).ID,
				Message: fmt.Sprintf("%s: the resource server refused its token, so it is not asked again until %s; %s",
					name, until.UTC().Format(time.RFC3339), s.creds.advice())})
			continue
		}
		live = append(live, g)
	}
	switch {
	case len(live) > 0:
		return live, warns, nil
	case len(all) > 0:
		return nil, nil, s.creds.expiredError()
	}
	return nil, nil, newAdapterError("no_credentials", "no scoped credential is available for this request")
}
