package bearerauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/bearer"
	"github.com/pdpp/pdpp-mcp/internal/softcache"
)

// Options configures how a Verifier learns the kind of a bearer. The
// zero value asks only the Probe. Token syntax is never trusted on its own.
type Options struct {
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
	// ErrorTTL is how long an unavailable authority is remembered per
	// token before it is asked again; default 2s.
	ErrorTTL time.Duration
	// HTTPClient fetches JWKS documents and calls the introspection
	// endpoint. Default: 5s timeout, no redirects, no cookie jar.
	HTTPClient *http.Client
	// Now is the clock (tests). Default time.Now.
	Now func() time.Time
}

// KindClient is the only token kind MCP accepts: a grant-scoped client
// token. Owner and control-plane kinds are REST credentials.
const KindClient = bearer.ClientKind

// Verdict is what a Verifier decided about one bearer.
type Verdict int

const (
	// VerdictUnknown: this method could not tell; ask the next one.
	VerdictUnknown Verdict = iota
	// VerdictClient: a grant-scoped client token; serve it.
	VerdictClient
	// VerdictRefused: a valid token of another kind (owner, control
	// plane): 403 before any MCP method runs.
	VerdictRefused
	// VerdictInvalid: not a usable token (bad signature, expired,
	// inactive, unknown to the RS): 401 with the challenge.
	VerdictInvalid
	// VerdictPackage: a grant-package token, as the reference AS issues
	// to a generic sign-in through its hosted-MCP source picker (its token
	// response names a grant_package_id, no grant_id). The RS's /v1 never
	// serves it (404 "Unknown source: unknown", real-rs-differences D15):
	// 401 with an explanation, never "retry later".
	VerdictPackage
	// VerdictUnserved: the RS refused the token for good on the
	// verification read (a 403 other than grant_expired and grant_revoked,
	// which are VerdictInvalid: renew or sign in again; a 404 other than
	// Unknown source): 401 with an explanation, never "retry later".
	VerdictUnserved
)

// decision is a verdict plus how long it may be cached.
type decision struct {
	verdict Verdict
	// expires is the token's own expiry when known; zero otherwise.
	expires time.Time
}

// ErrUnavailable means the authority (JWKS, introspection, RS) could not
// be reached: 503, never a guess. Its message is safe to show.
var ErrUnavailable = errors.New("token verification is unavailable")

// Probe asks the resource server about a token, the last resort when no
// local method knows its kind. It returns VerdictInvalid when the RS
// rejects the token, ErrUnavailable when the RS cannot be asked, else
// KindVerdict of the kind the RS reports.
type Probe func(ctx context.Context, token string) (Verdict, error)

// Verifier learns token kinds in the documented order: JWT-shaped and JWT
// configured → local verification; else introspection when configured;
// else the Probe. Verdicts are cached per token hash (never the token).
type Verifier struct {
	jwt   *jwtVerifier
	intro *introspector
	probe Probe
	// verdicts is keyed by token hash. Invalid verdicts are kept too (a
	// negative cache); an entry never outlives the token's own expiry.
	verdicts *softcache.Cache[Verdict]
}

// New returns a Verifier that falls back to probe. A JWT configuration
// without an Audience refuses every JWT: an audience taken from a request
// would accept tokens minted for other resources.
func New(opts Options, probe Probe) *Verifier {
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = 30 * time.Second
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 4096
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	if opts.ErrorTTL == 0 {
		opts.ErrorTTL = 2 * time.Second
	}
	v := &Verifier{probe: probe, verdicts: softcache.New[Verdict](softcache.Options{
		TTL: opts.CacheTTL, ErrorTTL: opts.ErrorTTL, MaxEntries: opts.CacheSize,
		FetchTimeout: verifyTimeout, Now: opts.Now,
	})}
	if opts.JWT != nil {
		v.jwt = newJWTVerifier(*opts.JWT, hc, opts.Now)
	}
	if opts.Introspection != nil {
		v.intro = newIntrospector(*opts.Introspection, hc, opts.Now)
	}
	return v
}

// defaultHTTPClient never follows redirects: a JWKS or introspection
// endpoint that redirects is misconfigured, and following could carry the
// client credentials (and the bearer) to another host.
func defaultHTTPClient() *http.Client {
	return &http.Client{
		Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// verifyTimeout bounds one verification, whoever waits for it.
const verifyTimeout = 10 * time.Second

// Verify returns the verdict for token, from the cache when it is fresh.
// Concurrent first requests with one token share a single check, which a
// caller giving up does not cancel for the others. The error is
// ErrUnavailable or the context's; its text never quotes the token.
func (v *Verifier) Verify(ctx context.Context, token string) (Verdict, error) {
	verdict, err := v.verdicts.Get(ctx, cacheKey(token), func(ctx context.Context) (Verdict, time.Time, error) {
		d, err := v.decide(ctx, token)
		return d.verdict, d.expires, err
	})
	if err != nil {
		return VerdictUnknown, err
	}
	return verdict, nil
}

// Remembered returns the fresh cached verdict for token, or the failure
// remembered for it, without asking anyone: ok is false when Verify would
// have to check (or wait for a check under way). A request with a known
// token needs no deadline, rate budget or second hash of the token.
func (v *Verifier) Remembered(token string) (verdict Verdict, err error, ok bool) {
	verdict, err, ok = v.verdicts.Peek(cacheKey(token))
	if err != nil {
		verdict = VerdictUnknown
	}
	return verdict, err, ok
}

// WouldCheck reports whether Verify would ask an authority now: no fresh
// verdict, no remembered failure, and no check of token under way. Rate
// budgets for unknown tokens are spent on these only — a request waiting
// on a check already running, or answered by a failure just remembered,
// costs the authority nothing.
func (v *Verifier) WouldCheck(token string) bool { return v.verdicts.WouldFetch(cacheKey(token)) }

// Forget drops the verdict for token: the resource server has since
// refused it (expired, revoked), so the next request verifies again.
func (v *Verifier) Forget(token string) { v.verdicts.Forget(cacheKey(token)) }

// cacheKey is a one-way hash of the token: the cache never holds tokens.
func cacheKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return string(sum[:])
}

// decide runs the methods in order until one knows.
func (v *Verifier) decide(ctx context.Context, token string) (decision, error) {
	if v.jwt != nil && looksLikeJWT(token) {
		d, err := v.jwt.verify(ctx, token)
		if err != nil || d.verdict != VerdictUnknown {
			return d, err
		}
		// A verified JWT without a kind claim: its issuer vouched for the
		// token but not its kind, so the RS decides.
	}
	if v.intro != nil {
		d, err := v.intro.introspect(ctx, token)
		if err != nil || d.verdict != VerdictUnknown {
			return d, err
		}
	}
	if v.probe == nil {
		return decision{}, ErrUnavailable
	}
	verdict, err := v.probe(ctx, token)
	if err != nil {
		return decision{}, err
	}
	return decision{verdict: verdict}, nil
}

// KindVerdict maps a kind an authority reported: client is served,
// anything else (owner, control plane, empty) is refused — the policy of
// internal/bearer, the one place that decides it.
func KindVerdict(kind string) Verdict {
	if bearer.Served(kind) {
		return VerdictClient
	}
	return VerdictRefused
}

// kindClaims are the claims an authority (JWT or introspection) may make
// about a token's kind.
type kindClaims struct {
	PDPPTokenKind string `json:"pdpp_token_kind"`
	TokenKind     string `json:"token_kind"`
	Kind          string `json:"kind"`
	Role          string `json:"role"`
	Scope         string `json:"scope"`
	// GrantPackageID without GrantID is the reference AS's grant-package
	// token (D15), whatever kind label it carries.
	GrantPackageID string `json:"grant_package_id"`
	GrantID        string `json:"grant_id"`
}

// claimedKind reads an authority's kind claims (JWT or introspection):
// `pdpp_token_kind`, then `token_kind`. Empty means the authority did not
// say. A `kind` or `role` of owner refuses even when the others say client;
// a package id without a grant id, or a package kind label, is a package
// token.
func claimedKind(c kindClaims) Verdict {
	for _, k := range []string{c.Kind, c.Role} {
		if bearer.OwnerLabel(k) {
			return VerdictRefused
		}
	}
	if bearer.OwnerScope(c.Scope) {
		return VerdictRefused
	}
	if (strings.TrimSpace(c.GrantPackageID) != "" && strings.TrimSpace(c.GrantID) == "") ||
		bearer.PackageLabel(c.PDPPTokenKind) || bearer.PackageLabel(c.TokenKind) {
		return VerdictPackage
	}
	for _, k := range []string{c.PDPPTokenKind, c.TokenKind} {
		if strings.TrimSpace(k) != "" {
			return KindVerdict(k)
		}
	}
	return VerdictUnknown
}
