// Package bearerauth learns the kind of an OAuth bearer token before any
// MCP method runs: a grant-scoped client token is served, owner and
// control-plane tokens are refused, anything unusable is invalid.
//
// A Verifier tries, in order: local JWT verification (RFC 9068, keys
// configured or fetched from a JWKS), RFC 7662 introspection, and finally a
// caller-supplied Probe that asks the resource server. Verdicts are cached
// per token hash. The package knows nothing of MCP or of the adapter: the
// resource-server probe is passed in as a function, in the spirit of the
// go-sdk's auth.TokenVerifier.
package bearerauth
