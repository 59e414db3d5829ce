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

// PackageLabel reports whether a kind label names a grant-package token:
// the reference AS's token for a generic sign-in through its hosted-MCP
// source picker, which the RS's /v1 API never serves (real-rs-differences
// D15).
func PackageLabel(label string) bool {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "grant_package", "grant-package", "package", "mcp_package":
		return true
	}
	return false
}

// UnknownSourceRefusal reports whether an RS answer is the reference RS's
// refusal of a grant-package token on /v1: 404 "Unknown source: unknown"
// (D15), the source of a token that names no grant. It is permanent: no
// retry helps.
func UnknownSourceRefusal(status int, message string) bool {
	return status == 404 && message == "Unknown source: unknown"
}

// The words that tell a person which token they hold and which one this
// adapter serves. The hosted door puts them in its 401 error_description
// and the stdio adapter in its tool error, so both say the same. They hold
// no quote or backslash (RFC 6750 §3 error_description characters).
const (
	// PackageTokenExplained says what a grant-package token is.
	PackageTokenExplained = "This is a grant-package token: the authorization server issues one to a generic sign-in " +
		"through its hosted-MCP source picker, and the PDPP resource server's /v1 API does not serve it " +
		"(404 Unknown source). This adapter serves grant-scoped client tokens (a token response that carries a grant_id)."
	// UnservedTokenExplained says the RS refused the token for good.
	UnservedTokenExplained = "The PDPP resource server refused this token for good (it is not a grant " +
		"this server serves); retrying does not help. This adapter serves grant-scoped client tokens."
	// ConnectAdvice is how a person gets a grant-scoped client token
	// without the adapter's own sign-in.
	ConnectAdvice = "Run pdpp-mcp connect with the resource server URL to get a grant-scoped client token for the sources you choose; pdpp-mcp (stdio) then uses it and renews it."
)
