package rsclient

import (
	"context"
	"errors"
	"strings"
)

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

type refusalHookKey struct{}

// WithRefusalHook attaches f to ctx: every call made with ctx whose answer
// refuses the bearer (CredentialRefused) calls f once the answer arrived,
// whatever the caller then does with the error. A transport holding its
// answer (the hosted door) learns this way of a refusal on any read — a
// tool, a resource, a schema fetch — and answers with the HTTP challenge
// that makes its client refresh. f must be safe for concurrent use.
func WithRefusalHook(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, refusalHookKey{}, f)
}

// noteRefusal calls ctx's refusal hook when err refuses the bearer.
func noteRefusal(ctx context.Context, err error) {
	var e *Error
	if err == nil || !errors.As(err, &e) || !CredentialRefused(e.Status, e.Code) {
		return
	}
	if f, ok := ctx.Value(refusalHookKey{}).(func()); ok {
		f()
	}
}
