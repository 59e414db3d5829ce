package rstest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Client access tokens. The real RS issues client access tokens that live
// 600 s; a used-up one answers 403 permission_error grant_expired "Grant
// has expired" without a challenge, on /v1/schema and data routes alike
// (real-rs-differences D13, corrected by the second probe). With
// Options.TokenTTL > 0 the mock does the same on its clock: every grant's
// dataset token counts as issued when the Server was built, and
// MintClientToken issues fresh ones, as a client's refresh would.
//
// Grant-package tokens (MintPackageToken) are what the real AS issues to a
// generic sign-in through its hosted-MCP source picker (D15): the token
// response names a grant_package_id and no grant_id, and every /v1 route
// answers them 404 not_found "Unknown source: unknown".

// ErrUnknownGrant is returned by MintClientToken for a grant id the
// dataset does not hold.
var ErrUnknownGrant = errors.New("rstest: unknown grant")

// clientToken is one issued client access token.
type clientToken struct {
	grant  *Grant
	issued time.Time
	// family is the OAuth sign-in that issued it ("" for minted ones):
	// when that sign-in's grant is revoked, so is the token.
	family string
}

// tokenTable holds the tokens minted after start-up.
type tokenTable struct {
	mu     sync.RWMutex
	minted map[string]clientToken
	// packages maps grant-package tokens to their package id.
	packages map[string]string
}

// MintedToken is a freshly issued client access token.
type MintedToken struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	GrantID     string `json:"grant_id,omitempty"`
	// GrantPackageID names the package of a grant-package token (then
	// GrantID is empty), as the real AS's token response does.
	GrantPackageID string `json:"grant_package_id,omitempty"`
	// ExpiresIn is the lifetime in seconds; 0 (omitted) means no expiry.
	ExpiresIn int64 `json:"expires_in,omitempty"`
	// ExpiresAt is when the token stops working; nil means never.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// MintClientToken issues a new client access token for grantID on the
// Server's clock. It expires after Options.TokenTTL (never when zero). The
// grant's earlier tokens keep working until they expire.
func (s *Server) MintClientToken(grantID string) (MintedToken, error) {
	m, err := s.mintClientToken(grantID, "")
	if err == nil {
		s.saveAuthState()
	}
	return m, err
}

// mintClientToken issues a client access token for grantID as part of the
// OAuth sign-in family ("" for none).
func (s *Server) mintClientToken(grantID, family string) (MintedToken, error) {
	g := s.grant(grantID)
	if g == nil {
		return MintedToken{}, ErrUnknownGrant
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	now := s.opts.Now()
	s.tokens.mu.Lock()
	if s.tokens.minted == nil {
		s.tokens.minted = map[string]clientToken{}
	}
	s.tokens.minted[tok] = clientToken{grant: g, issued: now, family: family}
	s.tokens.mu.Unlock()
	m := MintedToken{AccessToken: tok, TokenType: "Bearer", GrantID: g.ID}
	if s.opts.TokenTTL > 0 {
		at := now.Add(s.opts.TokenTTL).UTC()
		m.ExpiresIn, m.ExpiresAt = int64(s.opts.TokenTTL/time.Second), &at
	}
	return m, nil
}

// MintPackageToken issues a grant-package token, as the real AS does for a
// generic sign-in (no authorization_details, no connector_id): the mock's
// /v1 refuses it exactly as the real RS does (404 "Unknown source:
// unknown"), for it names no grant.
func (s *Server) MintPackageToken() MintedToken {
	tok := randomID("", 32)
	pkg := randomID("gpk_", 8)
	s.tokens.mu.Lock()
	if s.tokens.packages == nil {
		s.tokens.packages = map[string]string{}
	}
	s.tokens.packages[tok] = pkg
	s.tokens.mu.Unlock()
	m := MintedToken{AccessToken: tok, TokenType: "Bearer", GrantPackageID: pkg}
	if s.opts.TokenTTL > 0 {
		at := s.opts.Now().Add(s.opts.TokenTTL).UTC()
		m.ExpiresIn, m.ExpiresAt = int64(s.opts.TokenTTL/time.Second), &at
	}
	return m
}

// packageOf returns the package id of a grant-package token.
func (s *Server) packageOf(tok string) (string, bool) {
	s.tokens.mu.RLock()
	defer s.tokens.mu.RUnlock()
	pkg, ok := s.tokens.packages[tok]
	return pkg, ok
}

// clientGrant resolves a client bearer to its grant and issue time.
func (s *Server) clientGrant(tok string) (*Grant, time.Time, bool) {
	g, issued, _, ok := s.clientToken(tok)
	return g, issued, ok
}

// clientToken resolves a client bearer to its grant, issue time and
// sign-in family.
func (s *Server) clientToken(tok string) (*Grant, time.Time, string, bool) {
	if g := s.ix.grants[tok]; g != nil {
		return g, s.started, "", true
	}
	s.tokens.mu.RLock()
	defer s.tokens.mu.RUnlock()
	ct, ok := s.tokens.minted[tok]
	return ct.grant, ct.issued, ct.family, ok
}

// tokenExpired applies Options.TokenTTL.
func (s *Server) tokenExpired(issued time.Time) bool {
	return s.opts.TokenTTL > 0 && !s.opts.Now().Before(issued.Add(s.opts.TokenTTL))
}

// mintPathPrefix is the mock's test-only control route:
// POST /_mockrs/grants/{grant_id}/token with an owner bearer mints a client
// token for that grant (the real RS issues them through its OAuth flow).
const mintPathPrefix = "/_mockrs/grants/"

// serveMint answers the control route; it reports whether it handled r.
func (s *Server) serveMint(c *call) bool {
	rest, ok := strings.CutPrefix(c.r.URL.Path, mintPathPrefix)
	if !ok {
		return false
	}
	grantID, ok := strings.CutSuffix(rest, "/token")
	if !ok || grantID == "" || strings.Contains(grantID, "/") || c.r.Method != http.MethodPost {
		s.fastify404(c)
		return true
	}
	p, aerr := s.authenticate(c.r)
	if aerr != nil {
		s.fail(c, aerr)
		return true
	}
	if !p.owner {
		s.fail(c, newErr("permission_error", "", "Owner token required"))
		return true
	}
	m, err := s.MintClientToken(grantID)
	if err != nil {
		s.fail(c, newErr("not_found", "", "Grant '%s' not found", grantID))
		return true
	}
	s.writeJSON(c, http.StatusOK, m)
	return true
}
