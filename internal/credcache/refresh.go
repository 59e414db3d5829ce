package credcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// refreshMargin is how long before expires_at a credential whose issue
// time is unknown is refreshed.
const refreshMargin = time.Minute

// refreshShare is the part of a known lifetime after which a credential is
// refreshed (4/5: at 480 s of the reference AS's 600 s tokens).
const refreshShareNum, refreshShareDen = 4, 5

// maxTokenResponse bounds the token endpoint's answer.
const maxTokenResponse = 64 << 10

// refreshPoint is when a credential should be refreshed: 4/5 into its
// lifetime when its issue time is known, else refreshMargin before it
// expires; zero when it never expires.
func refreshPoint(expiresAt, obtainedAt time.Time) time.Time {
	switch {
	case expiresAt.IsZero():
		return time.Time{}
	case !obtainedAt.IsZero() && obtainedAt.Before(expiresAt):
		return obtainedAt.Add(expiresAt.Sub(obtainedAt) * refreshShareNum / refreshShareDen)
	}
	return expiresAt.Add(-refreshMargin)
}

// RefreshOutcome says what Refresh did.
type RefreshOutcome int

const (
	// Current: the cached credential is not due (or another process
	// already replaced the refused one); nothing was sent.
	Current RefreshOutcome = iota
	// Refreshed: a new credential was obtained and written.
	Refreshed
	// NotRefreshable: due, but the cache holds no refresh token, token
	// endpoint or client id (a `pdpp connect` file, the demo's).
	NotRefreshable
)

// Refresher renews a provider's cached credential with its refresh token.
type Refresher struct {
	CacheRoot, ProviderURL string
	// Client sends the token request (nil: a client with a 30 s timeout).
	Client *http.Client
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// refreshView is what a refresh reads of the cache file.
type refreshView struct {
	TokenEndpoint string `json:"token_endpoint"`
	Client        struct {
		ClientID string `json:"client_id"`
	} `json:"client"`
	Credential *cachedCredential `json:"credential"`
}

// Refresh renews the cached credential when it is due: past its refresh
// point, or still the access token the RS refused (refused, "" for none).
// Only one process refreshes at a time: Refresh holds the file's lock
// across read, token request and write, and reads the file only once it
// holds it, so a refresh token another process already rotated is never
// presented again (the reference AS revokes the whole grant when an old
// refresh token comes back); that process's credential is used instead
// (Current).
func (r Refresher) Refresh(ctx context.Context, refused string) (RefreshOutcome, error) {
	path, err := CacheFilePath(r.CacheRoot, r.ProviderURL)
	if err != nil {
		return Current, err
	}
	lockCtx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	unlock, err := lockFile(lockCtx, path+".lock")
	if err != nil {
		return Current, err
	}
	defer unlock()
	// Once the lock is held the exchange is finished whatever the caller
	// does: a token request cut short after the AS rotated would leave the
	// file holding the spent refresh token, and the next refresh would
	// revoke the grant. It gets its own deadline, not what the lock wait
	// left, and no caller's cancellation (a host's SIGTERM mid-refresh).
	ctx, cancelExchange := context.WithTimeout(context.WithoutCancel(ctx), exchangeTimeout)
	defer cancelExchange()
	doc, err := readRaw(path)
	if err != nil {
		return Current, nil // nothing to renew; Load says what is wrong with the file
	}
	v := decodeRefreshView(doc)
	switch c := v.Credential; {
	case c == nil || c.isOwner() || fileOwner(doc) || !r.due(*c, refused):
		return Current, nil
	case c.RefreshToken == "" || v.Client.ClientID == "" || !httpURL(v.TokenEndpoint):
		return NotRefreshable, nil
	}
	return r.rotate(ctx, path, doc, v)
}

// decodeRefreshView reads what a refresh needs of the file's members.
func decodeRefreshView(doc map[string]json.RawMessage) refreshView {
	var v refreshView
	if raw, ok := doc["credential"]; ok {
		_ = json.Unmarshal(raw, &v.Credential)
	}
	_ = json.Unmarshal(doc["token_endpoint"], &v.TokenEndpoint)
	_ = json.Unmarshal(doc["client"], &v.Client)
	return v
}

// rotate sends the refresh and writes the answer into doc's credential,
// keeping every other member.
func (r Refresher) rotate(ctx context.Context, path string, doc map[string]json.RawMessage, v refreshView) (RefreshOutcome, error) {
	tok, err := r.tokenRequest(ctx, v.TokenEndpoint, v.Client.ClientID, v.Credential.RefreshToken)
	if err != nil {
		return Current, err
	}
	if doc["credential"], err = json.Marshal(refreshed(doc["credential"], tok, r.now())); err != nil {
		return Current, err
	}
	raw, err := marshalCache(doc)
	if err != nil {
		return Current, err
	}
	if err := writeAtomic(path, raw); err != nil {
		return Current, fmt.Errorf("credential cache %s: the refreshed credential could not be written (%v); the previous refresh token is spent, sign in again", path, err)
	}
	return Refreshed, nil
}

// fileOwner reports whether the file itself is labelled owner (Load then
// refuses it whole, and nothing of it is ever sent).
func fileOwner(doc map[string]json.RawMessage) bool {
	for _, k := range []string{"pdpp_token_kind", "token_kind", "kind", "role"} {
		var label string
		if json.Unmarshal(doc[k], &label) == nil && anyOwner(label) {
			return true
		}
	}
	return false
}

func (r Refresher) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// due reports whether c should be refreshed now.
func (r Refresher) due(c cachedCredential, refused string) bool {
	if refused != "" && c.AccessToken == refused {
		return true
	}
	exp, _ := time.Parse(time.RFC3339, c.ExpiresAt)
	obtained, _ := time.Parse(time.RFC3339, c.ObtainedAt)
	at := refreshPoint(exp, obtained)
	return !at.IsZero() && !r.now().Before(at)
}

// httpURL reports whether s is an absolute http(s) URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// RefreshError is the authorization server's refusal of a refresh.
type RefreshError struct {
	// Code is the OAuth error code (invalid_grant: the sign-in is over).
	Code, Description string
}

func (e *RefreshError) Error() string {
	msg := "the authorization server refused the cached refresh token (" + e.Code
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg + "); sign in again"
}

// tokenRequest is the refresh_token grant for a public client.
func (r Refresher) tokenRequest(ctx context.Context, endpoint, clientID, refreshToken string) (*oauth2.Token, error) {
	client := r.Client
	if client == nil {
		// No redirects: a 307 would resend the refresh token wherever it
		// points.
		client = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	conf := oauth2.Config{ClientID: clientID, Endpoint: oauth2.Endpoint{TokenURL: endpoint, AuthStyle: oauth2.AuthStyleInParams}}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, boundedClient(client))
	tok, err := conf.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode != "" {
		return nil, &RefreshError{Code: re.ErrorCode, Description: re.ErrorDescription}
	}
	if err != nil {
		return nil, fmt.Errorf("refresh at %s: %v", endpoint, scrub(err, refreshToken))
	}
	if !usableBearer(tok.AccessToken, tok.TokenType) {
		return nil, fmt.Errorf("refresh at %s: the answer holds no usable Bearer access token", endpoint)
	}
	return tok, nil
}

// refreshed is the credential object after a refresh: the old one's
// members (labels, scope) with the new token, expiry, issue time, grant
// and refresh token (the old refresh token stays when the AS did not
// rotate it).
func refreshed(old json.RawMessage, tok *oauth2.Token, now time.Time) map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(old, &m)
	c := Credential{AccessToken: tok.AccessToken, TokenType: tok.TokenType, ExpiresAt: expiry(tok, now), ObtainedAt: now}
	delete(m, "expires_at")
	for k, v := range c.members() {
		m[k] = v
	}
	if tok.RefreshToken != "" {
		m["refresh_token"] = tok.RefreshToken
	}
	if g, ok := tok.Extra("grant_id").(string); ok && g != "" {
		m["grant_id"] = g
	}
	return m
}

// expiry is the token's end on the refresher's clock: now + expires_in
// (x/oauth2's own Expiry counts from the wall clock), else its Expiry.
func expiry(tok *oauth2.Token, now time.Time) time.Time {
	switch v := tok.Extra("expires_in").(type) {
	case float64:
		if v > 0 {
			return now.Add(time.Duration(v) * time.Second)
		}
	case json.Number:
		if n, err := v.Int64(); err == nil && n > 0 {
			return now.Add(time.Duration(n) * time.Second)
		}
	}
	return tok.Expiry
}

// scrub removes secret from an error's text: no token reaches a log.
func scrub(err error, secret string) error {
	if secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), secret, "[redacted]"))
}

// boundedClient is client with every response body cut at
// maxTokenResponse bytes: a token endpoint's answer is small.
func boundedClient(client *http.Client) *http.Client {
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = boundedTransport{base}
	return &c
}

type boundedTransport struct{ base http.RoundTripper }

func (b boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := b.base.RoundTrip(req)
	if err == nil {
		res.Body = limitedBody{io.LimitReader(res.Body, maxTokenResponse), res.Body}
	}
	return res, err
}

type limitedBody struct {
	io.Reader
	io.Closer
}
