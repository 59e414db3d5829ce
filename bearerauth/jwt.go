package bearerauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// JWTOptions configures local verification of JWT access tokens (RFC 9068).
type JWTOptions struct {
	// Issuer is the required `iss`.
	Issuer string
	// Audience is the required `aud` (the hosted door defaults it to the
	// MCP resource URL, <public origin>/mcp). Without one, JWTs are
	// refused: an audience taken from the request's Host header would
	// accept tokens minted for other resources.
	Audience string
	// Keys verify signatures (see ParseKeySet).
	Keys []VerificationKey
	// JWKSURL is fetched (and cached) for keys not in Keys.
	JWKSURL string
	// Leeway tolerates clock skew on exp/nbf/iat; default 30s.
	Leeway time.Duration
}

// jwtAlgorithms are the JWS algorithms accepted; never `none`.
var jwtAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "HS256", "HS384", "HS512"}

// accessClaims are the claims read from a verified access token.
type accessClaims struct {
	jwt.RegisteredClaims
	kindClaims
}

type jwtVerifier struct {
	opts     JWTOptions
	audience string
	jwks     *jwksCache
	now      func() time.Time
}

func newJWTVerifier(opts JWTOptions, hc *http.Client, now func() time.Time) *jwtVerifier {
	if opts.Leeway <= 0 {
		opts.Leeway = 30 * time.Second
	}
	v := &jwtVerifier{opts: opts, audience: opts.Audience, now: now}
	if opts.JWKSURL != "" {
		v.jwks = newJWKSCache(opts.JWKSURL, hc, now)
	}
	return v
}

// verify checks signature, iss, aud, exp, nbf, then the kind claims. A
// token that fails any check is invalid (401); the reason is not shown to
// the caller, so nothing about the verifier's configuration leaks.
func (v *jwtVerifier) verify(ctx context.Context, token string) (decision, error) {
	if v.opts.Issuer == "" || v.audience == "" {
		return decision{verdict: VerdictInvalid}, nil
	}
	var unavailable bool
	parser := jwt.NewParser(
		jwt.WithValidMethods(jwtAlgorithms),
		jwt.WithIssuer(v.opts.Issuer),
		jwt.WithAudience(v.audience),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(v.opts.Leeway),
		jwt.WithTimeFunc(v.now),
	)
	var claims accessClaims
	_, err := parser.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		keys, err := v.keys(ctx, kid, t.Method.Alg())
		if errors.Is(err, ErrUnavailable) {
			unavailable = true
		}
		return keys, err
	})
	if unavailable {
		return decision{}, ErrUnavailable
	}
	if err != nil {
		return decision{verdict: VerdictInvalid}, nil
	}
	d := decision{verdict: claimedKind(claims.kindClaims)}
	if claims.ExpiresAt != nil {
		d.expires = claims.ExpiresAt.Time
	}
	return d, nil
}

// keys returns the candidate keys for kid and alg: configured keys first,
// then the JWKS (refetched once when kid is unknown).
func (v *jwtVerifier) keys(ctx context.Context, kid, alg string) (jwt.VerificationKeySet, error) {
	set := matchKeys(v.opts.Keys, kid, alg)
	if len(set.Keys) == 0 && v.jwks != nil {
		keys, err := v.jwks.get(ctx, kid)
		if err != nil {
			return set, err
		}
		set = matchKeys(keys, kid, alg)
	}
	if len(set.Keys) == 0 {
		return set, errors.New("no key for this token")
	}
	return set, nil
}

// matchKeys filters keys by kid (when the token names one) and by the
// algorithm's family.
func matchKeys(keys []VerificationKey, kid, alg string) jwt.VerificationKeySet {
	family := alg
	if len(family) > 2 && family != "EdDSA" {
		family = family[:2]
	}
	if family == "PS" {
		family = "RS"
	}
	if family == "EdDSA" {
		family = "Ed"
	}
	var set jwt.VerificationKeySet
	for _, k := range keys {
		if (kid == "" || k.ID == "" || k.ID == kid) && k.algFamily() == family {
			set.Keys = append(set.Keys, k.Key)
		}
	}
	return set
}

// looksLikeJWT reports whether a bearer has JWS compact shape: three
// base64url segments whose first decodes to a JSON object naming `alg`.
// Shape only routes the token to verification; it grants nothing.
func looksLikeJWT(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return false
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	return json.Unmarshal(raw, &hdr) == nil && hdr.Alg != ""
}
