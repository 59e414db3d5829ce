package adapter

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// AuthOptions configures how the hosted adapter learns the kind of a
// bearer. The zero value asks the RS: the schema document's
// `bearer.token_kind`. Token syntax is never trusted on its own.
type AuthOptions struct {
	// JWT, when set, verifies JWT-shaped bearers locally (RFC 9068).
	JWT *JWTOptions
	// Introspection, when set, asks an RFC 7662 endpoint about every
	// bearer that is not verified as a JWT.
	Introspection *IntrospectionOptions
	// CacheTTL bounds how long a verdict is remembered per token hash;
	// default 30s. A verdict never outlives the token's own expiry.
	CacheTTL time.Duration
	// CacheSize bounds the number of remembered verdicts; default 4096.
	CacheSize int
	// HTTPClient fetches JWKS documents and calls the introspection
	// endpoint. Default: 5s timeout, no redirects, no cookie jar.
	HTTPClient *http.Client
}

// kindClient is the only token kind MCP accepts: a grant-scoped client
// token. Owner and control-plane kinds are REST credentials.
const kindClient = "client"

// verdict is what the adapter decided about one bearer.
type verdict int

const (
	// verdictUnknown: this method could not tell; ask the next one.
	verdictUnknown verdict = iota
	// verdictClient: a grant-scoped client token; serve it.
	verdictClient
	// verdictRefused: a valid token of another kind (owner, control
	// plane): 403 before any MCP method runs.
	verdictRefused
	// verdictInvalid: not a usable token (bad signature, expired,
	// inactive, unknown to the RS): 401 with the challenge.
	verdictInvalid
)

// decision is a verdict plus how long it may be cached.
type decision struct {
	verdict verdict
	// expires is the token's own expiry when known; zero otherwise.
	expires time.Time
}

// errAuthUnavailable means the authority (JWKS, introspection, RS) could
// not be reached: 503, never a guess. Its message is safe to show.
var errAuthUnavailable = errors.New("token verification is unavailable")

// authenticator learns token kinds in the documented order: JWT-shaped
// and JWT configured → local verification; else introspection when
// configured; else the RS schema probe. Verdicts are cached per token hash.
type authenticator struct {
	s       *Server
	jwt     *jwtVerifier
	intro   *introspector
	cache   *verdictCache
	flights singleflight.Group
}

func newAuthenticator(s *Server, opts AuthOptions, audience string) *authenticator {
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = 30 * time.Second
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 4096
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = defaultAuthHTTPClient()
	}
	a := &authenticator{s: s, cache: newVerdictCache(opts.CacheTTL, opts.CacheSize, s.now)}
	if opts.JWT != nil {
		a.jwt = newJWTVerifier(*opts.JWT, audience, hc, s.now)
	}
	if opts.Introspection != nil {
		a.intro = newIntrospector(*opts.Introspection, hc, s.now)
	}
	return a
}

// defaultAuthHTTPClient never follows redirects: a JWKS or introspection
// endpoint that redirects is misconfigured, and following could carry the
// client credentials (and the bearer) to another host.
func defaultAuthHTTPClient() *http.Client {
	return &http.Client{
		Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// classify returns the verdict for g, from the cache when it is fresh.
// Concurrent first requests with one token share a single check.
func (a *authenticator) classify(ctx context.Context, g Grant) (verdict, error) {
	if v, ok := a.cache.get(g.Key); ok {
		return v, nil
	}
	res, err, _ := a.flights.Do(g.Key, func() (any, error) {
		d, err := a.decide(ctx, g)
		if err != nil {
			return nil, err
		}
		a.cache.put(g.Key, d)
		return d.verdict, nil
	})
	if err != nil {
		return verdictUnknown, err
	}
	return res.(verdict), nil
}

// decide runs the methods in order until one knows.
func (a *authenticator) decide(ctx context.Context, g Grant) (decision, error) {
	if a.jwt != nil && looksLikeJWT(g.Bearer) {
		d, err := a.jwt.verify(ctx, g.Bearer)
		if err != nil || d.verdict != verdictUnknown {
			return d, err
		}
		// A verified JWT without a kind claim: its issuer vouched for the
		// token but not its kind, so the RS decides.
	}
	if a.intro != nil {
		d, err := a.intro.introspect(ctx, g.Bearer)
		if err != nil || d.verdict != verdictUnknown {
			return d, err
		}
	}
	return a.probeSchema(ctx, g)
}

// probeSchema asks the RS for the grant's schema (shared with the tools'
// schema cache, so the first tool call does not fetch it again).
func (a *authenticator) probeSchema(ctx context.Context, g Grant) (decision, error) {
	kind, err := a.s.tokenKind(ctx, g)
	if errors.Is(err, errOwnerToken) {
		// The schema cache itself refuses non-client kinds.
		return decision{verdict: verdictRefused}, nil
	}
	if err != nil {
		var rsErr *rsclient.Error
		if errors.As(err, &rsErr) && (rsErr.Status == http.StatusUnauthorized || rsErr.Status == http.StatusForbidden) {
			return decision{verdict: verdictInvalid}, nil
		}
		return decision{}, errAuthUnavailable
	}
	return decision{verdict: kindVerdict(kind)}, nil
}

// tokenKind learns a bearer's kind from the RS schema `bearer` block,
// cached per token hash.
func (s *Server) tokenKind(ctx context.Context, g Grant) (string, error) {
	doc, err := s.schemas.get(ctx, s.rs, g)
	if err != nil {
		return "", err
	}
	return doc.Bearer.TokenKind, nil
}

// kindVerdict maps a kind an authority reported: client is served,
// anything else (owner, control plane, empty) is refused.
func kindVerdict(kind string) verdict {
	if strings.EqualFold(strings.TrimSpace(kind), kindClient) {
		return verdictClient
	}
	return verdictRefused
}

// claimedKind reads an authority's kind claims (JWT or introspection):
// `pdpp_token_kind`, then `token_kind`. Empty means the authority did not
// say. A `kind` or `role` of owner refuses even when the others say client.
func claimedKind(pdppKind, tokenKind, kind, role, scope string) verdict {
	for _, k := range []string{kind, role} {
		if isOwnerWord(k) {
			return verdictRefused
		}
	}
	if ownerScope(scope) {
		return verdictRefused
	}
	for _, k := range []string{pdppKind, tokenKind} {
		if strings.TrimSpace(k) != "" {
			return kindVerdict(k)
		}
	}
	return verdictUnknown
}

func isOwnerWord(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "owner" || s == "control_plane" || s == "control-plane"
}

// ownerScope reports whether a space-separated OAuth scope carries owner or
// control-plane authority, which no MCP client should hold.
func ownerScope(scope string) bool {
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
