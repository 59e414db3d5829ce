package ritest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

// The grant every client token asks for: the gmail connector as the RI
// registers it, for a personal AI assistant, continuous access.
const (
	gmailSource    = "https://registry.pdpp.dev/connectors/gmail"
	purposeCode    = "https://pdpp.dev/purpose/personal_ai_assistant"
	dataAccess     = "https://pdpp.dev/data-access"
	clientRedirect = "http://127.0.0.1:18999/callback" // never contacted: the code is read from Location
)

// DefaultStreams is the grant of a client token when MintOptions names no
// streams: labels is deliberately left out, so a test can see a stream the
// grant does not cover.
var DefaultStreams = []string{"messages", "message_bodies", "threads"}

// MintOptions shapes a client grant.
type MintOptions struct {
	// Connections are the connection ids granted; empty grants both
	// seeded connections.
	Connections []string
	// Streams are the granted streams; empty is DefaultStreams.
	Streams []string
	// ClientName is the registered client's name.
	ClientName string
	// Fields projects a granted stream to the named fields (the
	// selection's per-stream "fields"); a stream it does not name is
	// granted whole.
	Fields map[string][]string
}

// ClientToken is a grant-scoped client token as the RI's token endpoint
// issued it.
type ClientToken struct {
	AccessToken  string
	RefreshToken string
	ClientID     string
	GrantID      string
	ExpiresAt    time.Time
	// Connections and Streams are what was granted.
	Connections, Streams []string
}

// tokenAnswer is the token endpoint's JSON.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
	GrantID      string `json:"grant_id"`
}

// Mint gets a client token the way a real client does: dynamic client
// registration, /oauth/authorize with authorization_details and PKCE S256,
// the owner's consent review and approval (the RI's loopback development
// posture asks no owner login), and the code exchange at /oauth/token.
// Each mint leaves a grant in the RI's database.
func (r *RI) Mint(ctx context.Context, o MintOptions) (ClientToken, error) {
	if len(o.Connections) == 0 {
		o.Connections = []string{r.Connections["work"], r.Connections["personal"]}
	}
	if len(o.Streams) == 0 {
		o.Streams = DefaultStreams
	}
	if o.ClientName == "" {
		o.ClientName = "pdpp-mcp RI test client"
	}
	c := newHTTPC()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := c.doJSON(ctx, request{method: "POST", url: r.ASURL + "/oauth/register", json: map[string]any{
		"client_name": o.ClientName, "redirect_uris": []string{clientRedirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none",
	}}, &reg, 200, 201); err != nil {
		return ClientToken{}, fmt.Errorf("client registration: %w", err)
	}
	code, verifier, err := r.authorize(ctx, c, reg.ClientID, o)
	if err != nil {
		return ClientToken{}, err
	}
	var tok tokenAnswer
	if err := c.doJSON(ctx, request{method: "POST", url: r.ASURL + "/oauth/token", form: url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {clientRedirect},
		"client_id": {reg.ClientID}, "code_verifier": {verifier},
	}}, &tok, 200); err != nil {
		return ClientToken{}, fmt.Errorf("code exchange: %w", err)
	}
	return clientToken(tok, reg.ClientID, o.Connections, o.Streams), nil
}

// authorize runs /oauth/authorize and the consent steps; it returns the
// authorization code and the PKCE verifier that goes with it.
func (r *RI) authorize(ctx context.Context, c httpc, clientID string, o MintOptions) (code, verifier string, err error) {
	verifier = randomString(32)
	challenge := sha256.Sum256([]byte(verifier))
	state := randomString(8)
	streams := make([]map[string]any, len(o.Streams))
	for i, s := range o.Streams {
		streams[i] = map[string]any{"name": s, "instance_ids": o.Connections}
		if f, ok := o.Fields[s]; ok {
			streams[i]["fields"] = f
		}
	}
	details, _ := json.Marshal([]map[string]any{{
		"type": dataAccess, "source": map[string]any{"kind": "connector", "id": gmailSource},
		"access_mode": "continuous", "purpose_code": purposeCode, "streams": streams,
	}})
	q := url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {clientRedirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(challenge[:])}, "code_challenge_method": {"S256"},
		"state": {state}, "authorization_details": {string(details)},
	}
	rep, err := c.do(ctx, request{method: "GET", url: r.ASURL + "/oauth/authorize?" + q.Encode()}, 302, 303)
	if err != nil {
		return "", "", fmt.Errorf("authorize: %w", err)
	}
	loc, err := url.Parse(rep.header.Get("Location"))
	if err != nil {
		return "", "", fmt.Errorf("authorize Location: %w", err)
	}
	requestURI := loc.Query().Get("request_uri")
	if requestURI == "" {
		return "", "", fmt.Errorf("authorize did not send the owner to consent: Location %s", redact(loc.String()))
	}
	var review struct {
		Revision string `json:"approval_review_revision"`
		Review   struct {
			Revision string `json:"approval_review_revision"`
		} `json:"approval_review"`
	}
	if err := c.doJSON(ctx, request{method: "POST", url: r.ASURL + "/consent/review", accept: "application/json",
		form: url.Values{"request_uri": {requestURI}}}, &review, 200); err != nil {
		return "", "", fmt.Errorf("consent review: %w", err)
	}
	rev := review.Revision
	if rev == "" {
		rev = review.Review.Revision
	}
	if rev == "" {
		return "", "", errors.New("consent review gave no approval_review_revision")
	}
	rep, err = c.do(ctx, request{method: "POST", url: r.ASURL + "/consent/approve",
		form: url.Values{"request_uri": {requestURI}, "approval_review_revision": {rev}}}, 302, 303)
	if err != nil {
		return "", "", fmt.Errorf("consent approve: %w", err)
	}
	cb, err := url.Parse(rep.header.Get("Location"))
	if err != nil || cb.Query().Get("state") != state || cb.Query().Get("code") == "" {
		return "", "", fmt.Errorf("consent approve redirected to %s, want the callback with the state and a code", redact(rep.header.Get("Location")))
	}
	return cb.Query().Get("code"), verifier, nil
}

// Refresh exchanges tok's refresh token for a new token of the same
// grant. The RI rotates refresh tokens: the old one must not be used
// again (a replay revokes the grant).
func (r *RI) Refresh(ctx context.Context, tok ClientToken) (ClientToken, error) {
	var ans tokenAnswer
	if err := newHTTPC().doJSON(ctx, request{method: "POST", url: r.ASURL + "/oauth/token", form: url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {tok.ClientID},
	}}, &ans, 200); err != nil {
		return ClientToken{}, fmt.Errorf("refresh: %w", err)
	}
	out := clientToken(ans, tok.ClientID, tok.Connections, tok.Streams)
	if out.GrantID == "" {
		out.GrantID = tok.GrantID
	}
	return out, nil
}

func clientToken(a tokenAnswer, clientID string, conns, streams []string) ClientToken {
	t := ClientToken{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken, ClientID: clientID, GrantID: a.GrantID,
		Connections: conns, Streams: streams}
	if a.ExpiresIn > 0 {
		t.ExpiresAt = time.Now().Add(time.Duration(a.ExpiresIn) * time.Second)
	}
	return t
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// WriteCredentialCache writes the stdio adapter's credential cache (the
// `pdpp connect` format, see internal/credcache) under root for the
// provider rsURL, holding one credential per token, unlabelled as the
// CLI writes them. It returns the file's path.
func WriteCredentialCache(root, rsURL string, toks ...ClientToken) (string, error) {
	path, err := credcache.CacheFilePath(root, rsURL)
	if err != nil {
		return "", err
	}
	type cred struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresAt   string `json:"expires_at,omitempty"`
		GrantID     string `json:"grant_id,omitempty"`
	}
	file := struct {
		ProviderURL string `json:"provider_url"`
		Credentials []cred `json:"credentials"`
	}{ProviderURL: rsURL}
	for _, t := range toks {
		c := cred{AccessToken: t.AccessToken, TokenType: "Bearer", GrantID: t.GrantID}
		if !t.ExpiresAt.IsZero() {
			c.ExpiresAt = t.ExpiresAt.UTC().Format(time.RFC3339)
		}
		file.Credentials = append(file.Credentials, c)
	}
	raw, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, append(raw, '\n'), 0o600)
}
