package rsclient

import "strings"

// CredentialRefused reports whether an RS answer refuses the bearer
// itself, so that a fresh token (a refresh) is the remedy: a 401 whose code
// is not a context.* code (those are grant errors: a stream or connection
// outside the grant, real-rs-differences D2), or the real RS's answer to an
// expired client access token, 403 grant_expired without a challenge
// (D13, second probe), or to a token of a revoked grant, 403 grant_revoked
// (D16: a reused refresh token revokes the grant). For a revoked grant a
// refresh fails too, and the client's next step is a new sign-in, which
// the same challenge starts.
func CredentialRefused(status int, code string) bool {
	return status == 401 && !strings.HasPrefix(code, "context.") ||
		status == 403 && (code == "grant_expired" || code == "grant_revoked")
}
