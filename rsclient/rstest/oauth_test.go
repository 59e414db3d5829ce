package rstest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"golang.org/x/oauth2"
)

// oauthClock is a settable clock for the mock.
type oauthClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *oauthClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *oauthClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// noRedirect is an HTTP client that reports redirects instead of following.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// oauthFixture is a mock RS with its authorization server and one
// registered client, driven by golang.org/x/oauth2.
type oauthFixture struct {
	rs    *rstest.TestServer
	clock *oauthClock
	conf  *oauth2.Config
	meta  map[string]any
}

func newOAuthFixture(t *testing.T) *oauthFixture {
	t.Helper()
	clock := &oauthClock{now: time.Date(2026, 4, 25, 15, 0, 0, 0, time.UTC)}
	rs := rstest.NewServer(replayDataset(t), rstest.WithAuthServer("grt_22ffe6953cafc84f"),
		rstest.WithTokenTTL(600*time.Second), rstest.WithClock(clock.Now))
	t.Cleanup(rs.Close)
	var meta map[string]any
	getDoc(t, rs.URL+"/.well-known/oauth-authorization-server", &meta)
	var prm map[string]any
	getDoc(t, rs.URL+"/.well-known/oauth-protected-resource", &prm)
	if as, _ := prm["authorization_servers"].([]any); len(as) != 1 || as[0] != meta["issuer"] {
		t.Fatalf("PRM names %v, AS issuer is %v", prm["authorization_servers"], meta["issuer"])
	}
	reg, _ := json.Marshal(map[string]any{"client_name": "test", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	res, err := http.Post(meta["registration_endpoint"].(string), "application/json", bytes.NewReader(reg))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var cl map[string]any
	if err := json.NewDecoder(res.Body).Decode(&cl); err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %v", res.StatusCode, err)
	}
	conf := &oauth2.Config{ClientID: cl["client_id"].(string), RedirectURL: "http://127.0.0.1:9/cb",
		Endpoint: oauth2.Endpoint{AuthURL: meta["authorization_endpoint"].(string), TokenURL: meta["token_endpoint"].(string),
			AuthStyle: oauth2.AuthStyleInParams}}
	return &oauthFixture{rs: rs, clock: clock, conf: conf, meta: meta}
}

// getDoc GETs a JSON document.
func getDoc(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || json.NewDecoder(res.Body).Decode(v) != nil {
		t.Fatalf("GET %s: %d", u, res.StatusCode)
	}
}

// authorize runs the authorization step and returns the redirect's query.
func (f *oauthFixture) authorize(t *testing.T, verifier string) url.Values {
	t.Helper()
	res, err := noRedirect.Get(f.conf.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), "http://127.0.0.1:9/cb?") {
		t.Fatalf("authorize: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if loc.Query().Get("state") != "st4te" {
		t.Errorf("state not returned: %s", loc)
	}
	return loc.Query()
}

// status GETs /v1/schema with a bearer.
func (f *oauthFixture) status(t *testing.T, bearer string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.rs.URL+"/v1/schema", nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestAuthServerJourney: discover, register, authorize with PKCE,
// exchange, read; the access token expires; refresh rotates; a reused
// refresh token revokes its family.
func TestAuthServerJourney(t *testing.T) {
	t.Parallel()
	f := newOAuthFixture(t)
	ctx := context.Background()
	verifier := oauth2.GenerateVerifier()
	code := f.authorize(t, verifier).Get("code")
	tok, err := f.conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if tok.RefreshToken == "" || tok.Extra("grant_id") != "grt_22ffe6953cafc84f" || tok.Expiry.IsZero() {
		t.Fatalf("token response: %+v grant_id=%v", tok, tok.Extra("grant_id"))
	}
	if _, err := f.conf.Exchange(ctx, code, oauth2.VerifierOption(verifier)); err == nil {
		t.Error("a code redeemed twice")
	}
	if got := f.status(t, tok.AccessToken); got != 200 {
		t.Fatalf("fresh access token: %d", got)
	}
	f.clock.Advance(600 * time.Second)
	if got := f.status(t, tok.AccessToken); got != 403 { // grant_expired (D13)
		t.Errorf("expired access token: %d", got)
	}
	stale := *tok
	stale.Expiry = time.Now().Add(-time.Second) // x/oauth2 reads the wall clock
	fresh, err := f.conf.TokenSource(ctx, &stale).Token()
	if err != nil || fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == tok.RefreshToken {
		t.Fatalf("refresh: %+v %v", fresh, err)
	}
	if got := f.status(t, fresh.AccessToken); got != 200 {
		t.Errorf("refreshed access token: %d", got)
	}
	// Reusing the first refresh token is theft: the family is revoked.
	if _, err := f.conf.TokenSource(ctx, &stale).Token(); !isInvalidGrant(err) {
		t.Errorf("reused refresh token: %v", err)
	}
	next := *fresh
	next.Expiry = time.Now().Add(-time.Second)
	if _, err := f.conf.TokenSource(ctx, &next).Token(); !isInvalidGrant(err) {
		t.Errorf("refresh after family revocation: %v", err)
	}
}

// isInvalidGrant reports an RFC 6749 invalid_grant answer.
func isInvalidGrant(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == "invalid_grant"
}

// TestAuthServerRefusals: denied authorization, revoked refresh token, bad
// PKCE and an unregistered redirect each end in a clear error, never in
// data.
func TestAuthServerRefusals(t *testing.T) {
	t.Parallel()
	f := newOAuthFixture(t)
	ctx := context.Background()
	verifier := oauth2.GenerateVerifier()
	if _, err := f.conf.Exchange(ctx, f.authorize(t, verifier).Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier())); !isInvalidGrant(err) {
		t.Errorf("wrong verifier: %v", err)
	}
	tok, err := f.conf.Exchange(ctx, f.authorize(t, verifier).Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.PostForm(f.meta["revocation_endpoint"].(string), url.Values{"token": {tok.RefreshToken}})
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("revoke: %v", err)
	}
	res.Body.Close()
	stale := *tok
	stale.Expiry = time.Now().Add(-time.Second)
	if _, err := f.conf.TokenSource(ctx, &stale).Token(); !isInvalidGrant(err) {
		t.Errorf("revoked refresh token: %v", err)
	}
	f.rs.SetAuthDeny(true)
	q := f.authorize(t, verifier)
	if q.Get("error") != "access_denied" || q.Get("code") != "" {
		t.Errorf("denied authorization: %v", q)
	}
	bad := *f.conf
	bad.RedirectURL = "http://evil.example/cb"
	res, err = noRedirect.Get(bad.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" {
		t.Errorf("unregistered redirect_uri: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// TestAuthServerIntrospection: RFC 7662 answers with the reference's token
// kind; expired tokens are inactive; the AS never issues owner tokens.
func TestAuthServerIntrospection(t *testing.T) {
	t.Parallel()
	f := newOAuthFixture(t)
	verifier := oauth2.GenerateVerifier()
	tok, err := f.conf.Exchange(context.Background(), f.authorize(t, verifier).Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	introspect := func(token string) map[string]any {
		res, err := http.PostForm(f.meta["introspection_endpoint"].(string), url.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(res.Body).Decode(&m)
		return m
	}
	if m := introspect(tok.AccessToken); m["active"] != true || m["pdpp_token_kind"] != "client" || m["grant_id"] != "grt_22ffe6953cafc84f" {
		t.Errorf("active token: %v", m)
	}
	if m := introspect(replayOwner); m["pdpp_token_kind"] != "owner" {
		t.Errorf("owner token: %v", m)
	}
	f.clock.Advance(10 * time.Minute)
	if m := introspect(tok.AccessToken); m["active"] != false || len(m) != 1 {
		t.Errorf("expired token: %v", m)
	}
	if m := introspect("nope"); m["active"] != false {
		t.Errorf("unknown token: %v", m)
	}
}

func TestAuthServerNeedsAGrant(t *testing.T) {
	t.Parallel()
	if _, err := rstest.New(replayDataset(t), rstest.Options{AuthGrantID: "grt_nope"}); err == nil {
		t.Error("an AS approving a grant the dataset lacks")
	}
	rs := rstest.NewServer(replayDataset(t))
	t.Cleanup(rs.Close)
	res, err := http.Get(rs.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("AS metadata without an AS: %d", res.StatusCode)
	}
}
