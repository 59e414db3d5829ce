// Package bearer is the one definition of what a bearer token may look like
// and which token kinds the adapter serves. The hosted door, the verifier,
// the credential cache, the adapter and the RS client all ask it, so a token
// accepted in one place is never refused for its syntax or kind in another.
package bearer

import "strings"

// MaxBytes bounds a bearer token; longer ones are refused unread.
const MaxBytes = 4096

// WellFormed reports whether tok is an RFC 6750 §2.1 b64token of at most
// MaxBytes: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
// PDPP's opaque tokens (hex) and JWTs (base64url with dots) are b64tokens;
// anything else could split or smuggle headers on the way to the RS.
func WellFormed(tok string) bool {
	if tok == "" || len(tok) > MaxBytes {
		return false
	}
	body := strings.TrimRight(tok, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}

// ClientKind is the only token kind MCP serves: a grant-scoped client token.
const ClientKind = "client"

// Served reports whether an authority's reported kind (the RS schema's
// bearer.token_kind, a JWT or introspection claim) is served: client only.
// Owner, control-plane, package, empty and unknown kinds are refused.
func Served(kind string) bool {
	return strings.EqualFold(strings.TrimSpace(kind), ClientKind)
}

// OwnerLabel reports whether a kind or role label names owner or
// control-plane authority. Such a label refuses a credential even when
// another label says client.
func OwnerLabel(label string) bool {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "owner", "control_plane", "control-plane":
		return true
	}
	return false
}

// OwnerScope reports whether a space-separated OAuth scope carries owner
// or control-plane authority, which no MCP client should hold.
func OwnerScope(scope string) bool {
	for _, s := range strings.Fields(strings.ToLower(scope)) {
		switch {
		case s == "owner", s == "pdpp:owner", s == "control", s == "control_plane", s == "pdpp:control":
			return true
		case strings.HasPrefix(s, "owner:"), strings.HasPrefix(s, "control:"), strings.HasPrefix(s, "pdpp:owner:"):
			return true
		}
	}
	return false
}
