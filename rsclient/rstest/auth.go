package rstest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// principal is the authenticated caller: an owner, or one client grant.
type principal struct {
	owner bool
	grant *Grant
	// token fingerprints the bearer that authenticated: the reference
	// binds search cursors to the presenting token's authority, so a
	// refreshed token of the same grant cannot continue one.
	token string
}

// authenticate resolves the bearer (rs-contract §5.2).
func (s *Server) authenticate(r *http.Request) (*principal, *apiError) {
	tok, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		return nil, newErr("authentication_error", "", "Missing Bearer token")
	}
	if s.ix.expired[tok] {
		// An expired client token: the reference answers 403 grant_expired
		// without a challenge (introspect's inactive_reason for a client
		// token past expires_at, reference-implementation/server/auth.ts
		// and auth-middleware.ts), not 401.
		return nil, newErr("grant_expired", "", "Grant has expired")
	}
	if s.ix.owners[tok] {
		return &principal{owner: true, token: tokenFingerprint(tok)}, nil
	}
	if _, ok := s.packageOf(tok); ok {
		// The real RS resolves a package token to no source (D15).
		return nil, newErr("not_found", "", "Unknown source: unknown")
	}
	g, issued, family, ok := s.clientToken(tok)
	if !ok {
		return nil, newErr("authentication_error", "", "Invalid or expired token")
	}
	if s.familyRevoked(family) {
		// Refresh-token reuse revoked the sign-in's grant (D16).
		return nil, newErr("grant_revoked", "", "Grant has been revoked")
	}
	if s.tokenExpired(issued) {
		// The real RS: 403 permission_error, no challenge (D13).
		return nil, newErr("grant_expired", "", "Grant has expired")
	}
	switch g.Status {
	case "", "active":
		return &principal{grant: g, token: tokenFingerprint(tok)}, nil
	case "revoked":
		return nil, newErr("grant_revoked", "", "Grant has been revoked")
	case "expired":
		return nil, newErr("grant_expired", "", "Grant has expired")
	default:
		return nil, newErr("grant_invalid", "", "Grant is malformed or no longer valid")
	}
}

// tokenFingerprint names a bearer without keeping it: a short SHA-256
// prefix, enough to tell two tokens apart in a search snapshot id.
func tokenFingerprint(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:8])
}

// bearerToken extracts the token of an `Authorization: Bearer <t>` header.
func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != "" && !strings.ContainsAny(tok, " \t")
}

// grantStream returns the grant's entry for stream, or nil.
func (p *principal) grantStream(stream string) *GrantStream {
	if p.grant == nil {
		return nil
	}
	for i := range p.grant.Streams {
		if p.grant.Streams[i].Name == stream {
			return &p.grant.Streams[i]
		}
	}
	return nil
}
