package rstest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// A minimal authorization server for demos and tests, shaped
// like the reference's: RFC 8414 metadata, RFC 7591 dynamic client
// registration, authorization code + PKCE (S256) that approves one
// configured grant without a person (or denies, when told to), a token
// endpoint issuing short-lived client access tokens (Options.TokenTTL) with
// rotating refresh tokens, RFC 7009 revocation and RFC 7662 introspection.
// It is mounted only when Options.AuthGrantID is set, and it never issues
// owner tokens.

// OAuth endpoint paths, on the RS origin (the reference co-locates them in
// development; the protected-resource metadata names this origin).
const (
	pathASMetadata = "/.well-known/oauth-authorization-server"
	pathRegister   = "/oauth/register"
	pathAuthorize  = "/oauth/authorize"
	pathToken      = "/oauth/token"
	pathRevoke     = "/oauth/revoke"
	pathIntrospect = "/introspect"
)

// OAuth bounds: request bodies, code lifetime, PKCE verifier length.
const (
	maxOAuthBody   = 64 << 10
	authCodeTTL    = time.Minute
	minVerifierLen = 43
	maxVerifierLen = 128
)

// authServer is the AS state: registered clients, pending codes, refresh
// token families.
type authServer struct {
	mu      sync.Mutex
	deny    bool
	clients map[string]*oauthClient
	codes   map[string]*authCode
	refresh map[string]*refreshToken
	revoked map[string]bool // refresh families
}

// oauthClient is one dynamically registered (public) client.
type oauthClient struct {
	ID           string
	Name         string
	RedirectURIs []string
}

// authCode is one issued, not yet redeemed authorization code.
type authCode struct {
	clientID, redirectURI, challenge string
	expires                          time.Time
	sel                              selection
}

// refreshToken is one refresh token of a rotation family.
type refreshToken struct {
	clientID, family string
	used             bool
	// sel is what the sign-in selected; a refresh keeps it (the real AS
	// keeps the grant_id).
	sel selection
}

// asMounted reports whether the authorization server is served.
func (s *Server) asMounted() bool { return s.opts.AuthGrantID != "" || s.opts.AuthRealPosture }

// SetAuthDeny makes the authorization endpoint deny (true) or approve
// (false) every request from now on.
func (s *Server) SetAuthDeny(deny bool) {
	s.as.mu.Lock()
	defer s.as.mu.Unlock()
	s.as.deny = deny
}

// serveOAuth answers the AS routes; it reports whether it handled r.
func (s *Server) serveOAuth(c *call) bool {
	if !s.asMounted() {
		return false
	}
	p, m := c.r.URL.Path, c.r.Method
	switch {
	case p == pathASMetadata && m == http.MethodGet:
		s.writeJSON(c, http.StatusOK, s.asMetadata(c.r))
	case p == pathRegister && m == http.MethodPost:
		s.register(c)
	case p == pathAuthorize && m == http.MethodGet:
		s.authorize(c)
	case p == pathToken && m == http.MethodPost:
		s.token(c)
	case p == pathRevoke && m == http.MethodPost:
		s.revoke(c)
	case p == pathIntrospect && m == http.MethodPost:
		s.introspect(c)
	default:
		return false
	}
	return true
}

// asMetadata is the RFC 8414 document.
func (s *Server) asMetadata(r *http.Request) obj {
	o := s.origin(r)
	return obj{{"issuer", o}, {"authorization_endpoint", o + pathAuthorize}, {"token_endpoint", o + pathToken},
		{"registration_endpoint", o + pathRegister}, {"revocation_endpoint", o + pathRevoke},
		{"introspection_endpoint", o + pathIntrospect}, {"response_types_supported", []string{"code"}},
		{"response_modes_supported", []string{"query"}},
		{"grant_types_supported", []string{"authorization_code", "refresh_token"}},
		{"code_challenge_methods_supported", []string{"S256"}},
		{"token_endpoint_auth_methods_supported", []string{"none"}},
		{"authorization_details_types_supported", []string{"https://pdpp.dev/data-access"}}}
}

// oauthError writes an RFC 6749 error body.
func (s *Server) oauthError(c *call, status int, code, desc string) {
	s.writeJSON(c, status, obj{{"error", code}, {"error_description", desc}})
}

// randomID is prefix + 2n hex characters of randomness.
func randomID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// register is RFC 7591 dynamic client registration for public clients.
func (s *Server) register(c *call) {
	var req struct {
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, maxOAuthBody))
	if err != nil || json.Unmarshal(body, &req) != nil {
		s.oauthError(c, http.StatusBadRequest, "invalid_client_metadata", "body must be a JSON client metadata document")
		return
	}
	if len(req.RedirectURIs) == 0 || len(req.RedirectURIs) > 10 {
		s.oauthError(c, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris must list 1 to 10 URIs")
		return
	}
	for _, u := range req.RedirectURIs {
		if pu, err := url.Parse(u); err != nil || !pu.IsAbs() || pu.Fragment != "" || len(u) > 2048 {
			s.oauthError(c, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris must be absolute URIs without a fragment")
			return
		}
	}
	cl := &oauthClient{ID: randomID("cli_", 8), Name: req.ClientName, RedirectURIs: req.RedirectURIs}
	s.as.mu.Lock()
	if len(s.as.clients) >= maxRecorded {
		s.as.mu.Unlock()
		s.oauthError(c, http.StatusServiceUnavailable, "temporarily_unavailable", "too many registered clients")
		return
	}
	s.as.clients[cl.ID] = cl
	s.as.mu.Unlock()
	s.saveAuthState()
	s.writeJSON(c, http.StatusCreated, obj{{"client_id", cl.ID}, {"client_id_issued_at", s.opts.Now().Unix()},
		{"client_name", cl.Name}, {"redirect_uris", cl.RedirectURIs}, {"token_endpoint_auth_method", "none"},
		{"grant_types", []string{"authorization_code", "refresh_token"}}, {"response_types", []string{"code"}}})
}

// authorize is the authorization-code + PKCE step. It approves the
// configured grant at once (no person), or redirects access_denied. The
// query is read as the reference server reads it (ParseQS): a parameter
// that qs makes an array or an object is not the string it needs.
func (s *Server) authorize(c *call) {
	q := ParseQS(c.r.URL.RawQuery)
	str := func(k string) string { v, _ := q[k].(string); return v }
	s.as.mu.Lock()
	cl := s.as.clients[str("client_id")]
	deny := s.as.deny
	s.as.mu.Unlock()
	redirect := str("redirect_uri")
	if cl == nil || !contains(cl.RedirectURIs, redirect) {
		// Never redirect to a URI the client did not register.
		s.oauthError(c, http.StatusBadRequest, "invalid_request", "unknown client_id or unregistered redirect_uri")
		return
	}
	back := func(params url.Values) {
		u, _ := url.Parse(redirect)
		qs := u.Query()
		for k, v := range params {
			qs[k] = v
		}
		if st := str("state"); st != "" {
			qs.Set("state", st)
		}
		u.RawQuery = qs.Encode()
		http.Redirect(c.w, c.r, u.String(), http.StatusFound)
	}
	switch {
	case str("response_type") != "code":
		back(url.Values{"error": {"unsupported_response_type"}})
	case str("code_challenge_method") != "S256" || len(str("code_challenge")) != 43:
		back(url.Values{"error": {"invalid_request"}, "error_description": {"PKCE with code_challenge_method=S256 is required"}})
	case deny:
		back(url.Values{"error": {"access_denied"}, "error_description": {"the owner denied the request"}})
	default:
		sel := selection{grantID: s.opts.AuthGrantID}
		if s.opts.AuthRealPosture {
			var err error
			if sel, err = s.resolveSelection(q); err != nil {
				// The real AS answers a raw JSON 400 and issues no code.
				code := "invalid_request"
				if se, ok := err.(*selectionError); ok {
					code = se.code
				}
				s.oauthError(c, http.StatusBadRequest, code, err.Error())
				return
			}
		}
		code := randomID("", 24)
		s.as.mu.Lock()
		s.as.codes[code] = &authCode{clientID: cl.ID, redirectURI: redirect, challenge: str("code_challenge"),
			expires: s.opts.Now().Add(authCodeTTL), sel: sel}
		s.as.mu.Unlock()
		back(url.Values{"code": {code}}) // no iss, as the real AS (D16)
	}
}

// token is the token endpoint: authorization_code and refresh_token grants.
func (s *Server) token(c *call) {
	c.r.Body = http.MaxBytesReader(c.w, c.r.Body, maxOAuthBody)
	if err := c.r.ParseForm(); err != nil {
		s.oauthError(c, http.StatusBadRequest, "invalid_request", "body must be application/x-www-form-urlencoded")
		return
	}
	f := c.r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		s.redeemCode(c, f)
	case "refresh_token":
		s.rotateRefresh(c, f)
	default:
		s.oauthError(c, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
}

// redeemCode exchanges a code and its PKCE verifier for tokens.
func (s *Server) redeemCode(c *call, f url.Values) {
	s.as.mu.Lock()
	ac := s.as.codes[f.Get("code")]
	delete(s.as.codes, f.Get("code")) // single use, whatever happens next
	s.as.mu.Unlock()
	v := f.Get("code_verifier")
	switch {
	case ac == nil || !s.opts.Now().Before(ac.expires):
		s.oauthError(c, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code")
	case ac.clientID != f.Get("client_id") || ac.redirectURI != f.Get("redirect_uri"):
		s.oauthError(c, http.StatusBadRequest, "invalid_grant", "client_id or redirect_uri does not match the authorization request")
	case len(v) < minVerifierLen || len(v) > maxVerifierLen || pkceChallenge(v) != ac.challenge:
		s.oauthError(c, http.StatusBadRequest, "invalid_grant", "code_verifier does not match code_challenge")
	default:
		s.issueTokens(c, ac.clientID, randomID("fam_", 8), ac.sel)
	}
}

// pkceChallenge is the S256 transform of a verifier.
func pkceChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// rotateRefresh redeems a refresh token once; presenting a used one again
// revokes its whole family (reuse detection).
func (s *Server) rotateRefresh(c *call, f url.Values) {
	s.as.mu.Lock()
	rt := s.as.refresh[f.Get("refresh_token")]
	var msg string
	switch {
	case rt == nil || rt.clientID != f.Get("client_id"):
		msg = "unknown refresh_token"
	case s.as.revoked[rt.family]:
		msg = "refresh_token revoked"
	case rt.used:
		// The real AS revokes the whole grant: every access token of the
		// sign-in then gets 403 grant_revoked (D16).
		s.as.revoked[rt.family] = true
		msg = "refresh_token reused; its grant is revoked"
	default:
		rt.used = true
	}
	s.as.mu.Unlock()
	if msg != "" {
		s.saveAuthState() // a reuse revoked the sign-in
		s.oauthError(c, http.StatusBadRequest, "invalid_grant", msg)
		return
	}
	s.issueTokens(c, rt.clientID, rt.family, rt.sel)
}

// issueTokens mints an access token for the selection (a grant, or a
// grant-package token) and a new refresh token of family.
func (s *Server) issueTokens(c *call, clientID, family string, sel selection) {
	var m MintedToken
	if sel.pkg {
		m = s.MintPackageToken()
	} else {
		var err error
		if m, err = s.mintClientToken(sel.grantID, family); err != nil {
			s.oauthError(c, http.StatusInternalServerError, "server_error", "the selected grant does not exist")
			return
		}
	}
	rt := randomID("", 32)
	s.as.mu.Lock()
	s.as.refresh[rt] = &refreshToken{clientID: clientID, family: family, sel: sel}
	s.as.mu.Unlock()
	s.saveAuthState()
	body := obj{{"access_token", m.AccessToken}, {"token_type", "Bearer"}}
	if m.ExpiresIn > 0 {
		body = append(body, kv{"expires_in", m.ExpiresIn})
	}
	body = append(body, kv{"refresh_token", rt})
	if sel.pkg {
		body = append(body, kv{"grant_package_id", m.GrantPackageID})
	} else {
		body = append(body, kv{"grant_id", m.GrantID})
	}
	c.w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(c, http.StatusOK, body)
}

// familyRevoked reports whether a sign-in's grant was revoked by refresh
// token reuse or revocation.
func (s *Server) familyRevoked(family string) bool {
	if family == "" {
		return false
	}
	s.as.mu.Lock()
	defer s.as.mu.Unlock()
	return s.as.revoked[family]
}

// revoke is RFC 7009 for refresh tokens: the token's family stops working.
// It answers 200 whatever the token, as the RFC says.
func (s *Server) revoke(c *call) {
	c.r.Body = http.MaxBytesReader(c.w, c.r.Body, maxOAuthBody)
	_ = c.r.ParseForm()
	s.as.mu.Lock()
	if rt := s.as.refresh[c.r.PostForm.Get("token")]; rt != nil {
		s.as.revoked[rt.family] = true
	}
	s.as.mu.Unlock()
	s.saveAuthState()
	s.writeJSON(c, http.StatusOK, obj{})
}

// introspect is RFC 7662 for access tokens, with the reference's
// pdpp_token_kind; anything unknown or expired is {active:false}.
func (s *Server) introspect(c *call) {
	c.r.Body = http.MaxBytesReader(c.w, c.r.Body, maxOAuthBody)
	_ = c.r.ParseForm()
	tok := strings.TrimSpace(c.r.PostForm.Get("token"))
	if s.ix.owners[tok] {
		s.writeJSON(c, http.StatusOK, obj{{"active", true}, {"pdpp_token_kind", "owner"}})
		return
	}
	g, issued, ok := s.clientGrant(tok)
	if !ok || s.tokenExpired(issued) || (g.Status != "" && g.Status != "active") {
		s.writeJSON(c, http.StatusOK, obj{{"active", false}})
		return
	}
	o := obj{{"active", true}, {"pdpp_token_kind", "client"}, {"client_id", g.ClientID}, {"grant_id", g.ID},
		{"token_type", "Bearer"}}
	if s.opts.TokenTTL > 0 {
		o = append(o, kv{"exp", issued.Add(s.opts.TokenTTL).Unix()})
	}
	s.writeJSON(c, http.StatusOK, o)
}
