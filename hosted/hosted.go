// Package hosted is the adapter's HTTP door: stateless Streamable HTTP at
// /mcp behind the checks that run before any MCP method (Origin, method,
// media types, body size, bearer, token kind), the RFC 9728
// protected-resource metadata, the setup pages (/connect, /llms.txt),
// health endpoints and Prometheus metrics.
//
// It wraps an *adapter.Server and learns token kinds with a
// bearerauth.Verifier whose last resort asks the RS through the adapter's
// schema cache.
package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/bearerauth"
	"github.com/pdpp/pdpp-mcp/internal/bearer"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// Hosted HTTP defaults.
const (
	defaultMaxBodyBytes = 1 << 20 // 1 MiB of JSON-RPC is far more than any tool call needs
	mcpPath             = "/mcp"
	prmPath             = "/.well-known/oauth-protected-resource"
	// authCheckTimeout bounds how long a request waits for its token kind.
	authCheckTimeout = 10 * time.Second
	// metadataWait bounds how long a metadata request waits for the RS's
	// own document (its authorization servers).
	metadataWait = 2 * time.Second
)

// Options configures the hosted Streamable HTTP surface. The zero
// value is a safe loopback setup: origin from the listener's address (never
// the Host header), browser
// origins limited to loopback, token kind from the RS schema probe.
type Options struct {
	// PublicURL is the origin clients use (https://host[:port]); metadata,
	// challenges, the Origin allowlist and the JWT audience name it.
	// Empty: X-Forwarded-Proto/Host from a TrustedProxies peer, else the
	// address the connection arrived on (set PublicURL whenever clients
	// reach the server by a name or through a proxy).
	PublicURL string
	// AllowedOrigins are browser origins allowed to call /mcp besides the
	// public origin itself (DNS-rebinding protection).
	AllowedOrigins []string
	// TrustedProxies are the peer networks whose X-Forwarded-Proto and
	// X-Forwarded-Host are believed when PublicURL is empty. Default none.
	TrustedProxies []netip.Prefix
	// MaxBodyBytes caps a request body; default 1 MiB.
	MaxBodyBytes int64
	// AuthorizationServers are advertised in the protected-resource
	// metadata; default: the RS's own.
	AuthorizationServers []string
	// VerifyRate and VerifyBurst bound how many never-seen bearers that
	// turn out not to be client tokens one client (peer address, or
	// X-Forwarded-For hop behind TrustedProxies) may have verified: per
	// second, and at once; all clients together get ten times as much,
	// half of which only clients without a recent failure may spend.
	// Defaults 5 and 30. Known and vouched-for client tokens are never
	// limited, and a new client token spends nothing; over budget is 429
	// with Retry-After.
	VerifyRate  float64
	VerifyBurst int
	// VerifyIPv6Prefix is how many leading bits of an IPv6 client address
	// make one client for that budget (one host commonly holds a /64);
	// default 64, 128 keys by the full address. IPv4 addresses are keyed
	// whole.
	VerifyIPv6Prefix int
	// Auth selects how token kinds are learned (JWT, introspection); the
	// RS schema probe is always the last resort. A JWT configuration
	// without an Audience gets the MCP resource URL (<PublicURL>/mcp).
	Auth bearerauth.Options
	// Metrics, when set, counts HTTP requests, auth outcomes and resource
	// reads, and is served at GET /metrics (Prometheus). Pass the same
	// value as adapter.Config.Observer to count tool calls.
	Metrics *Metrics
	// LocalStdio, when set, is a stdio setup that works on this machine
	// as it is (the demo's): the setup pages show it instead of the
	// production `pdpp-mcp connect` steps.
	LocalStdio *LocalStdio
	// MetricsServedElsewhere keeps GET /metrics off this handler: the
	// caller serves Metrics.Handler() on a listener of its own (serve
	// --metrics-addr), away from the public port.
	MetricsServedElsewhere bool
	// Logger receives the access log and auth diagnostics (never
	// bearers). Default: discard.
	Logger *slog.Logger
	// SignIn, when set (DiscoverSignIn), publishes the header-free
	// sign-in front: this adapter's own RFC 8414 metadata and an authorize
	// endpoint that adds the operator's source selection, and the
	// protected-resource metadata names this adapter as the authorization
	// server. Nil: the RS's authorization servers are named, as they are.
	SignIn *SignIn
}

// New returns the hosted HTTP handler for a: /mcp (stateless Streamable
// HTTP, JSON responses), the RFC 9728 metadata, setup pages, health and
// metrics endpoints.
func New(a *adapter.Server, opts Options) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBodyBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	auth := opts.Auth
	if auth.JWT != nil && auth.JWT.Audience == "" && opts.PublicURL != "" {
		jwt := *auth.JWT
		jwt.Audience = opts.PublicURL + mcpPath
		auth.JWT = &jwt
	}
	h := &hosted{a: a, opts: opts, log: opts.Logger, auth: bearerauth.New(auth, schemaProbe(a)),
		limit: newVerifyLimiter(opts.VerifyRate, opts.VerifyBurst, opts.VerifyIPv6Prefix, auth.Now)}
	h.stream = server.NewStreamableHTTPServer(a.MCP(),
		server.WithStateLess(true),
		server.WithDisableStreaming(true),
	)
	mux := http.NewServeMux()
	mux.HandleFunc(mcpPath, h.withCORS(h.serveMCP))
	mux.HandleFunc("GET "+prmPath+mcpPath, h.serveMetadata)
	mux.HandleFunc("GET "+prmPath, h.serveMetadata)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", h.serveReady)
	if opts.Metrics != nil && !opts.MetricsServedElsewhere {
		mux.Handle("GET /metrics", opts.Metrics.Handler())
	}
	if opts.SignIn != nil {
		mux.HandleFunc("GET "+asMetadataPath, h.serveASMetadata)
		mux.HandleFunc("GET "+authorizePath, h.serveAuthorize)
	}
	registerPages(mux, h)
	return observe(mux, opts.Metrics, h.log)
}

type hosted struct {
	a      *adapter.Server
	opts   Options
	log    *slog.Logger
	auth   *bearerauth.Verifier
	stream *server.StreamableHTTPServer
	limit  *verifyLimiter
}

// schemaProbe is the verifier's last resort: the RS schema document's
// `bearer.token_kind`, through the adapter's schema cache (so the first
// tool call does not fetch it again).
func schemaProbe(a *adapter.Server) bearerauth.Probe {
	return func(ctx context.Context, token string) (bearerauth.Verdict, error) {
		kind, err := a.TokenKind(ctx, adapter.NewGrant(token))
		if errors.Is(err, adapter.ErrOwnerToken) {
			// The schema cache itself refuses non-client kinds.
			return bearerauth.VerdictRefused, nil
		}
		if err != nil {
			var rsErr *rsclient.Error
			if errors.As(err, &rsErr) {
				if v, ok := refusalVerdict(rsErr); ok {
					// A refusal is news about the token: nothing cached
					// may vouch for it during a later outage.
					a.ForgetGrant(adapter.NewGrant(token))
					return v, nil
				}
			}
			// The cause travels with it: the door tells an unreachable
			// RS (rsclient.Unreachable) from an RS that failed to answer.
			return bearerauth.VerdictUnknown, fmt.Errorf("%w: %w", bearerauth.ErrUnavailable, err)
		}
		return bearerauth.KindVerdict(kind), nil
	}
}

// refusalVerdict reads a definitive RS refusal of the verification read:
// any 401 (context.* codes included: the verification read names no
// stream or connection of a caller) and 403 grant_expired or grant_revoked
// (rsclient.CredentialRefused) are a token to renew or a sign-in to redo
// (the challenge makes the host refresh or sign in); 404 "Unknown source"
// is a grant-package token (D15); any other 403 or 404 is a token the RS
// will never serve. Those are permanent
// answers, never "retry later". ok is false for anything else (5xx, 429, a
// timeout): the RS could not be asked.
func refusalVerdict(e *rsclient.Error) (bearerauth.Verdict, bool) {
	switch {
	case e.Status == http.StatusUnauthorized, rsclient.CredentialRefused(e.Status, e.Code):
		return bearerauth.VerdictInvalid, true
	case bearer.UnknownSourceRefusal(e.Status, e.Message):
		return bearerauth.VerdictPackage, true
	case e.Status == http.StatusForbidden, e.Status == http.StatusNotFound:
		return bearerauth.VerdictUnserved, true
	}
	return bearerauth.VerdictUnknown, false
}

// serveMCP runs every check before any MCP method: Origin, a bearer's
// presence, the Host (DNS rebinding), method, media types, size, then the
// bearer's verdict and token kind. Only a client token reaches mcp-go.
func (h *hosted) serveMCP(w http.ResponseWriter, r *http.Request) {
	bearer, ok := h.admit(w, r)
	if !ok {
		return
	}
	g := adapter.NewGrant(bearer)
	if !h.authorize(w, r, bearer, g) {
		return
	}
	body, ok := h.readMCPBody(w, r)
	if !ok {
		return
	}
	h.forward(w, r, bearer, g, body)
}

// admit runs the checks that cost no authority call and returns the
// request's bearer; when one fails it has answered and ok is false. The
// order is what clients see: Origin, then the bearer's presence, then the
// Host (DNS rebinding), then method, media types and size.
func (h *hosted) admit(w http.ResponseWriter, r *http.Request) (bearer string, ok bool) {
	if !h.originAllowed(r) {
		writeHTTPError(w, http.StatusForbidden, "forbidden_origin", "this Origin may not call the MCP endpoint", nil)
		return "", false
	}
	// A request without a bearer learns first that it needs one (with the
	// challenge that starts sign-in), as the RS answers 401 before
	// anything else; method and media types are checked next.
	bearer, ok = bearerToken(r.Header.Values("Authorization"))
	if !ok {
		h.opts.Metrics.observeAuth(authMissing)
		var ce challengeError
		if presentedBearer(r.Header.Values("Authorization")) {
			ce = invalidToken("The bearer token is malformed: send exactly one Authorization: Bearer header with an RFC 6750 token.")
		}
		h.challenge(w, r, "Missing or malformed Bearer token", ce)
		return "", false
	}
	if rejectDNSRebinding(w, r) { // before the bearer is verified or the body read
		return "", false
	}
	if rejectRequestShape(w, r, h.opts.MaxBodyBytes) {
		return "", false
	}
	return bearer, true
}

// rejectRequestShape answers a request this stateless JSON endpoint
// cannot take (not POST, not JSON, not accepting JSON, a declared body
// over maxBody) and reports whether it did.
func rejectRequestShape(w http.ResponseWriter, r *http.Request, maxBody int64) bool {
	switch {
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		writeHTTPError(w, http.StatusMethodNotAllowed, "method_not_allowed", "this stateless endpoint accepts POST only", nil)
	case !isJSONContentType(r.Header.Get("Content-Type")):
		writeHTTPError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send JSON-RPC with Content-Type: application/json", nil)
	case !acceptsJSON(r.Header.Values("Accept")):
		writeHTTPError(w, http.StatusNotAcceptable, "not_acceptable", "this endpoint answers application/json; include it in Accept", nil)
	case r.ContentLength > maxBody:
		tooLarge(w)
	default:
		return false
	}
	return true
}

// authorize gets the bearer's verdict, remembered or fresh, and reports
// whether it is a client token; otherwise it has answered.
func (h *hosted) authorize(w http.ResponseWriter, r *http.Request, bearer string, g adapter.Grant) bool {
	v, err, known := h.auth.Remembered(bearer)
	if !known {
		// Only a request that would start an authority call for a token
		// not vouched for spends the budget: waiting on a shared check,
		// reading a remembered failure or re-checking a known client
		// token is free.
		var done func(served bool)
		if h.auth.WouldCheck(bearer) && !h.limit.isVouched(g.Key) {
			var ok bool
			if done, ok = h.limit.begin(r.Context(), h.clientAddr(r)); !ok {
				h.log.Warn("unknown-bearer verification over budget", "token", g.Key)
				w.Header().Set("Retry-After", "1")
				writeHTTPError(w, http.StatusTooManyRequests, "rate_limited", "too many unrecognised tokens from this client; retry later", nil)
				return false
			}
		}
		vctx, cancel := context.WithTimeout(r.Context(), authCheckTimeout)
		v, err = h.auth.Verify(vctx, bearer)
		cancel()
		served := err == nil && v == bearerauth.VerdictClient
		if done != nil {
			done(served)
		}
		switch {
		case served:
			h.limit.vouch(g.Key)
		case err == nil: // a definitive other verdict: its re-checks cost budget again
			h.limit.unvouch(g.Key)
		}
	}
	if err != nil && h.servedBeforeOutage(g) {
		h.log.Warn("RS unavailable; admitting a token it served recently, for calls the cache can answer", "token", g.Key)
		return true
	}
	return h.acceptVerdict(w, r, v, err, g)
}

// servedBeforeOutage reports whether a token whose check failed (the RS
// could not be asked) may still be admitted: only when the RS alone
// judges tokens (JWT and introspection carry expiries the door would then
// outlive) and the RS served it as a client token within the last-good
// schema's lifetime. A token the RS refused since is forgotten
// (ForgetGrant), so this never outlives a refusal the adapter has seen.
func (h *hosted) servedBeforeOutage(g adapter.Grant) bool {
	return h.opts.Auth.JWT == nil && h.opts.Auth.Introspection == nil && h.a.ServedWithin(g)
}

// unavailableRetryAfter is the Retry-After of a 503 for a token that
// could not be verified (RFC 9110 §10.2.3: a 503 says when to come back):
// the seconds the failed check stays remembered (every retry before then
// gets the same answer without asking the RS), and never less than
// minUnavailableRetry, so clients do not hammer a resource server that is
// down.
func (h *hosted) unavailableRetryAfter() string {
	secs := int64((h.opts.Auth.ErrorTTL + time.Second - 1) / time.Second) // 0 when the default (2 s) applies
	return strconv.FormatInt(max(secs, minUnavailableRetry), 10)
}

// minUnavailableRetry is the shortest Retry-After of a 503, in seconds.
const minUnavailableRetry = 5

// acceptVerdict reports whether the verdict admits the request (a client
// token); otherwise it answers: 503 when no verdict could be had, the 401
// challenge for an invalid token or one the RS never serves here (with the
// reason), 403 for owner and control-plane kinds.
func (h *hosted) acceptVerdict(w http.ResponseWriter, r *http.Request, v bearerauth.Verdict, err error, g adapter.Grant) bool {
	switch {
	case err != nil:
		h.opts.Metrics.observeAuth(authUnavailable)
		h.log.Warn("token check unavailable", "token", g.Key, "error_kind", authErrorKind(err))
		w.Header().Set("Retry-After", h.unavailableRetryAfter())
		writeHTTPError(w, http.StatusServiceUnavailable, "rs_unavailable", unavailableExplanation(err), nil)
		return false
	case v == bearerauth.VerdictInvalid:
		h.opts.Metrics.observeAuth(authInvalid)
		h.challenge(w, r, "Invalid or expired token", invalidToken("The access token is invalid or expired; refresh it or sign in again."))
		return false
	case v == bearerauth.VerdictPackage, v == bearerauth.VerdictUnserved:
		h.opts.Metrics.observeAuth(authUnserved)
		h.log.Info("token the RS does not serve to this adapter", "token", g.Key, "package", v == bearerauth.VerdictPackage)
		msg := h.unservedExplanation(v)
		h.challenge(w, r, msg, invalidToken(msg))
		return false
	case v != bearerauth.VerdictClient:
		h.opts.Metrics.observeAuth(authRefused)
		h.log.Info("refused non-client token", "token", g.Key)
		writeHTTPError(w, http.StatusForbidden, "permission_error",
			"MCP requires a grant-scoped client token; owner and control-plane tokens are refused", nil)
		return false
	}
	return true
}

// unavailableExplanation is the 503's message when no verdict could be
// had: an RS that cannot be reached is named as the data source being
// unreachable (the token was never judged, so asking for a new one would
// mislead); any other failure (an RS error, a JWKS or introspection
// endpoint down) is a verification to retry.
func unavailableExplanation(err error) string {
	if cause, ok := rsclient.Unreachable(err); ok {
		return "the data source (the PDPP resource server behind this adapter) cannot be reached right now: " + cause +
			". Nothing is wrong with the token or the request; tell the user their data source is unreachable and try again once it is back"
	}
	return "the token could not be verified right now; retry later"
}

// unservedExplanation says what kind of token v is, that this adapter
// serves grant-scoped client tokens, and how to get one.
func (h *hosted) unservedExplanation(v bearerauth.Verdict) string {
	what := bearer.UnservedTokenExplained
	if v == bearerauth.VerdictPackage {
		what = bearer.PackageTokenExplained
	}
	return what + " " + h.howToGetToken()
}

// howToGetToken is the last sentence of an explanation: the header-free
// sign-in when the operator configured it, else what to configure.
func (h *hosted) howToGetToken() string {
	if h.opts.SignIn != nil {
		return "Sign in again through this adapter's own sign-in (its authorization-server metadata asks for the sources its operator configured), not at the resource server's authorization server directly. " +
			bearer.ConnectAdvice
	}
	return "This adapter's operator has not configured sign-in sources, so a generic sign-in here cannot yield one " +
		"(an operator enables it with serve --sign-in-details FILE, a JSON authorization_details array, or --sign-in-connector ID; " +
		"PDPP_MCP_SIGN_IN_DETAILS / PDPP_MCP_SIGN_IN_CONNECTOR). " + bearer.ConnectAdvice
}

// readMCPBody reads the request body within MaxBodyBytes; when it cannot
// (too large, unreadable) it has answered and ok is false.
func (h *hosted) readMCPBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	body, err := readBody(r, h.opts.MaxBodyBytes)
	if errors.Is(err, errBodyTooLarge) {
		tooLarge(w)
		return nil, false
	}
	if err != nil {
		writeHTTPError(w, http.StatusBadRequest, "bad_request", "the request body could not be read", nil)
		return nil, false
	}
	return body, true
}

// forward hands the verified request to mcp-go and answers with its
// response, unless the RS refused the bearer during the call.
func (h *hosted) forward(w http.ResponseWriter, r *http.Request, bearer string, g adapter.Grant, body []byte) {
	// The answer is held until the call ends: when the RS refused the
	// bearer mid-call (expired since it was verified), the client gets the
	// HTTP 401 challenge that makes it refresh, never a tool result.
	var refused atomic.Bool
	ctx := adapter.WithRequestGrant(r.Context(), g)
	ctx = adapter.WithCredentialRefusedHook(ctx, func() { refused.Store(true) })
	// Any read the call makes (a tool, a resource, a schema fetch) that
	// the RS answers 401 or 403 grant_expired ends in the challenge,
	// whatever the adapter makes of the error.
	ctx = rsclient.WithRefusalHook(ctx, func() { refused.Store(true) })
	held := newHeldResponse()
	defer held.release()
	ctx = adapter.WithResultSplicer(ctx, &held.results)
	// Handle is mcp-go's ServeHTTP without re-reading the body this door
	// already holds, and without a synthetic request for a context
	// function; the one check ServeHTTP adds (rejectDNSRebinding) was made
	// before verifying the bearer.
	h.stream.Handle(held, &server.HTTPRequest{Method: r.Method, URL: r.URL, Header: r.Header, Body: body, Context: ctx})
	if refused.Load() {
		h.opts.Metrics.observeAuth(authRevoked)
		h.auth.Forget(bearer)
		h.a.ForgetGrant(g)
		h.limit.unvouch(g.Key)
		h.log.Info("RS refused a verified token; challenging", "token", g.Key)
		h.challenge(w, r, "Invalid or expired token", invalidToken("The resource server refused the access token (expired or revoked); refresh it or sign in again."))
		return
	}
	h.opts.Metrics.observeAuth(authClient)
	h.opts.Metrics.observeResourceRead(body, held.body.Bytes())
	held.writeTo(w, mayNeedTyping(body))
}

// mayNeedTyping reports whether a JSON-RPC body may call a method whose
// failures adapter.TypedErrors types: resources/read, and tools/call (an
// unknown tool name, answered by mcp-go before any adapter code). A body
// without either name spelled out and without any escape (which could
// spell it otherwise) cannot, so its answer is not scanned. A tool
// result's bytes are spliced in after TypedErrors, so the scan only ever
// sees the envelope.
func mayNeedTyping(body []byte) bool {
	return mayReadResource(body) || bytes.Contains(body, []byte("tools/call"))
}

// mayReadResource reports whether a JSON-RPC body may call resources/read:
// a body without the name spelled out and without any escape (which could
// spell it otherwise) cannot.
func mayReadResource(body []byte) bool {
	return bytes.Contains(body, []byte("resources/read")) || bytes.IndexByte(body, '\\') >= 0
}

// errBodyTooLarge is readBody's answer to a body over the limit.
var errBodyTooLarge = errors.New("request body exceeds the limit")

// readBody reads r's body, at most limit bytes. A declared length (already
// checked against limit) sizes the buffer once; a chunked body is read up
// to one byte past the limit to tell "too large" apart.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n <= limit {
		// net/http's body reader ends at the declared length and reports
		// a short body as an error, so reading exactly n is the whole body.
		body := make([]byte, n)
		_, err := io.ReadFull(r.Body, body)
		return body, err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if int64(len(body)) > limit {
		return nil, errBodyTooLarge
	}
	return body, err
}

// authErrorKind names an auth failure for logs without its text, which
// may quote URLs of the configured authorities.
func authErrorKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, bearerauth.ErrUnavailable):
		return "unavailable"
	}
	return "other"
}

func tooLarge(w http.ResponseWriter) {
	// The rest of the body is not read; closing the connection stops the
	// client from sending it.
	w.Header().Set("Connection", "close")
	writeHTTPError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body exceeds the limit", nil)
}

// challengeError is the RFC 6750 §3.1 error of a 401 challenge: empty
// when no token was presented (the client only learns it needs one).
type challengeError struct{ code, description string }

// invalidToken is the error of a challenge to a presented token.
func invalidToken(description string) challengeError {
	return challengeError{code: "invalid_token", description: description}
}

// challenge answers 401 with the RFC 9728 pointer in header and body and,
// when a token was presented, its RFC 6750 error and description.
func (h *hosted) challenge(w http.ResponseWriter, r *http.Request, msg string, ce challengeError) {
	md := h.metadataURL(r)
	header := `Bearer resource_metadata="` + md + `"`
	extra := map[string]string{"resource_metadata": md}
	if ce.code != "" {
		header += `, error="` + ce.code + `"`
		if d := challengeText(ce.description); d != "" {
			header += `, error_description="` + d + `"`
		}
		extra["oauth_error"] = ce.code
	}
	w.Header().Set("WWW-Authenticate", header)
	writeHTTPError(w, http.StatusUnauthorized, "authentication_error", msg, extra)
}

// challengeText keeps only the characters RFC 6750 §3 allows in
// error_description (printable ASCII without quote and backslash), so a
// description can never break the header's quoting.
func challengeText(s string) string {
	return strings.Map(func(c rune) rune {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return -1
		}
		return c
	}, s)
}

// presentedBearer reports whether the request carried something in the
// place of a bearer token (a Bearer scheme with credentials), well formed
// or not: its challenge then says invalid_token (RFC 6750 §3.1).
func presentedBearer(values []string) bool {
	for _, v := range values {
		scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
		if ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(tok) != "" {
			return true
		}
	}
	return false
}

// bearerToken extracts the token of exactly one `Authorization: Bearer`
// header. Several Authorization headers are ambiguous and refused.
func bearerToken(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, tok, ok := strings.Cut(values[0], " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !bearer.WellFormed(tok) {
		return "", false
	}
	return tok, true
}

func (h *hosted) serveMetadata(w http.ResponseWriter, r *http.Request) {
	servers := h.opts.AuthorizationServers
	if h.opts.SignIn != nil {
		// The front's metadata shares this document's origin, so its
		// issuer and this list agree whatever origin a request sees.
		servers = []string{h.origin(r)}
	}
	if len(servers) == 0 {
		// The RS's document is cached and fetched once for all callers;
		// an unauthenticated request waits for it at most metadataWait.
		ctx, cancel := context.WithTimeout(r.Context(), metadataWait)
		defer cancel()
		if prm, err := h.a.ProtectedResourceMetadata(ctx); err == nil {
			servers = prm.AuthorizationServers
		}
	}
	if servers == nil {
		servers = []string{}
	}
	// Public document: any browser-based client may read it.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                   h.origin(r) + mcpPath,
		"resource_name":              "PDPP MCP adapter",
		"authorization_servers":      servers,
		"bearer_methods_supported":   []string{"header"},
		"pdpp_token_kinds_supported": []string{bearerauth.KindClient},
		"mcp_endpoint":               h.origin(r) + mcpPath,
	})
}

// ReadyCheckTimeout bounds the RS check behind /readyz. A readiness
// probe's timeout must exceed it, or a slow RS reads as a probe timeout
// instead of a 503 with a reason (deploy/ checks its manifests).
const ReadyCheckTimeout = 5 * time.Second

func (h *hosted) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), ReadyCheckTimeout)
	defer cancel()
	if _, _, err := h.a.RS().ProtectedResourceMetadata(ctx); err != nil {
		// The operator reads this (a probe's event, curl): it names the
		// RS and, when it could not be reached, why.
		answer := map[string]string{"status": "unavailable", "reason": adapter.ErrorCode(err), "rs": h.a.RS().BaseURL()}
		if cause, ok := rsclient.Unreachable(err); ok {
			answer["cause"] = cause
		}
		writeJSON(w, http.StatusServiceUnavailable, answer)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeHTTPError(w http.ResponseWriter, status int, code, msg string, extra map[string]string) {
	e := map[string]any{"type": code, "code": code, "message": msg}
	for k, v := range extra {
		e[k] = v
	}
	writeJSON(w, status, map[string]any{"error": e})
}
