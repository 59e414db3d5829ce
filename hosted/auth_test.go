package hosted_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/bearerauth"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

const wantChallenge = `Bearer resource_metadata="` + publicURL + `/.well-known/oauth-protected-resource/mcp"`

// wantTokenChallenge is the challenge to a presented token (RFC 6750
// §3.1), without its error_description, which outcomeOf strips.
const wantTokenChallenge = wantChallenge + `, error="invalid_token"`

// challengeWithoutDescription drops the error_description of a challenge
// (its words are asserted where they matter).
func challengeWithoutDescription(c string) string {
	before, _, _ := strings.Cut(c, `, error_description="`)
	return before
}

// authOutcome is what one request produced, in comparable form.
type authOutcome struct {
	Status    int
	Challenge string
	Code      string
	Metadata  string
	ToolRan   bool
	RS        []string // RS requests that carried the token
}

func outcomeOf(t *testing.T, env *hostedEnv, res httpResult, token string) authOutcome {
	t.Helper()
	o := authOutcome{Status: res.Status, Challenge: challengeWithoutDescription(res.Header.Get("WWW-Authenticate"))}
	if res.Status == http.StatusOK {
		var rpc struct {
			Result *struct {
				Content []json.RawMessage `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(res.Body, &rpc); err != nil {
			t.Fatalf("200 body is not JSON-RPC: %v\n%s", err, res.Body)
		}
		o.ToolRan = rpc.Result != nil && len(rpc.Result.Content) > 0
	} else {
		e := res.errorBody(t)
		o.Code, o.Metadata = e["code"], e["resource_metadata"]
	}
	if token != "" {
		o.RS = rsRequestsWith(env.rs, token)
	}
	return o
}

var (
	// unauthenticated is the answer to a request without a token.
	unauthenticated = authOutcome{Status: 401, Challenge: wantChallenge, Code: "authentication_error",
		Metadata: publicURL + "/.well-known/oauth-protected-resource/mcp"}
	// unauthorized is the answer to a token that cannot be used.
	unauthorized = authOutcome{Status: 401, Challenge: wantTokenChallenge, Code: "authentication_error",
		Metadata: publicURL + "/.well-known/oauth-protected-resource/mcp"}
	forbidden = authOutcome{Status: 403, Code: "permission_error"}
)

// withRS is o with the RS requests the token is expected to cause.
func withRS(o authOutcome, rs ...string) authOutcome { o.RS = rs; return o }

// TestHostedJWTAuth covers the JWT path (JWKS and configured keys) and its
// fallbacks. Every refused token must not reach the RS at all, except
// where the RS schema probe is the documented authority.
func TestHostedJWTAuth(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	env := startHosted(t, hosted.Options{PublicURL: publicURL, Auth: bearerauth.Options{
		JWT: &bearerauth.JWTOptions{Issuer: is.iss, JWKSURL: is.jwksURL, Keys: is.hmacKeys(t)},
	}}, adapter.Config{})
	now := env.clock.Now()
	c := is.claims(now)
	probe := "GET /v1/schema"
	client := authOutcome{Status: 200, ToolRan: true}
	cases := []struct {
		name  string
		auth  string // full Authorization header; "" = none
		token string // the bearer, to look for at the RS
		want  authOutcome
	}{
		{"anonymous", "", "", unauthenticated},
		{"basic scheme", "Basic dXNlcjpwYXNz", "", unauthenticated},
		{"bearer without token", "Bearer ", "", unauthenticated},
		{"bearer with space", "Bearer abc def", "abc", unauthorized},
		{"bearer with non-ASCII", "Bearer abc\u00e9def", "abc\u00e9def", unauthorized},
		// One grammar (RFC 6750 b64token) for the door and the
		// RS client; a token outside it is 401 with the challenge, not 503.
		{"bearer outside b64token", "Bearer abc!def", "abc!def", unauthorized},
		{"bearer with '=' inside", "Bearer ab=cd", "ab=cd", unauthorized},
		{"oversized bearer", "Bearer " + strings.Repeat("a", 5000), strings.Repeat("a", 5000), unauthorized},
		{"expired JWT", "", is.sign(t, "RS256", with(c, map[string]any{"exp": now.Add(-time.Hour).Unix(), "iat": now.Add(-2 * time.Hour).Unix(), "nbf": now.Add(-2 * time.Hour).Unix()})), unauthorized},
		{"JWT not yet valid", "", is.sign(t, "RS256", with(c, map[string]any{"nbf": now.Add(time.Hour).Unix()})), unauthorized},
		{"JWT without exp", "", is.sign(t, "RS256", with(c, map[string]any{"exp": nil})), unauthorized},
		{"foreign-audience JWT", "", is.sign(t, "RS256", with(c, map[string]any{"aud": "https://other.example/mcp"})), unauthorized},
		{"foreign-issuer JWT", "", is.sign(t, "RS256", with(c, map[string]any{"iss": "https://evil.example"})), unauthorized},
		{"JWT signed by an unpublished key", "", is.sign(t, "rogue", c), unauthorized},
		{"unsigned JWT (alg none)", "", is.sign(t, "none", c), unauthorized},
		{"owner JWT", "", is.sign(t, "RS256", with(c, map[string]any{"pdpp_token_kind": "owner"})), forbidden},
		{"owner JWT (ES256)", "", is.sign(t, "ES256", with(c, map[string]any{"pdpp_token_kind": "owner"})), forbidden},
		{"control-plane JWT (HS256 key)", "", is.sign(t, "HS256", with(c, map[string]any{"pdpp_token_kind": "control_plane"})), forbidden},
		{"owner role JWT claiming client", "", is.sign(t, "RS256", with(c, map[string]any{"role": "owner"})), forbidden},
		{"owner scope JWT", "", is.sign(t, "RS256", with(c, map[string]any{"scope": "read pdpp:owner"})), forbidden},
		// A verified client JWT reaches the tool; the mock RS does not know
		// it and answers 401, so the MCP answer is the HTTP 401 challenge
		// (the client refreshes its token), never a tool result (10.6).
		{"client JWT (RS256 via JWKS)", "", is.sign(t, "RS256", c), withRS(unauthorized, probe)},
		{"client JWT (ES256 via JWKS)", "", is.sign(t, "ES256", with(c, map[string]any{"sub": "user-2"})), withRS(unauthorized, probe)},
		{"client JWT (HS256 configured key)", "", is.sign(t, "HS256", with(c, map[string]any{"sub": "user-3"})), withRS(unauthorized, probe)},
		// No kind claim: the issuer vouched for the token, not its kind, so
		// the RS probe decides; the mock RS does not know it → 401.
		{"kindless JWT falls back to the RS", "", is.sign(t, "RS256", with(c, map[string]any{"pdpp_token_kind": nil, "sub": "user-4"})), withRS(unauthorized, probe)},
		{"opaque client token (schema probe)", "", demodata.GmailToken, withRS(client, probe)},
		{"opaque owner token (schema probe)", "", demodata.OwnerToken, withRS(forbidden, probe)},
		{"opaque expired token (schema probe)", "", demodata.ExpiredToken, withRS(unauthorized, probe)},
		{"opaque revoked token (schema probe)", "", demodata.RevokedToken, withRS(unauthorized, probe)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			auth := tc.auth
			if auth == "" && tc.token != "" {
				auth = "Bearer " + tc.token
			}
			res := post(t, env.url, auth, toolsCallSchema, nil)
			got := outcomeOf(t, env, res, tc.token)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s\nbody: %s", diff, res.Body)
			}
		})
	}
}

// TestHostedIntrospectionAuth covers RFC 7662: owner and inactive tokens
// are decided by the endpoint and never reach the RS; an active token
// without a kind falls back to the RS probe.
func TestHostedIntrospectionAuth(t *testing.T) {
	t.Parallel()
	const (
		ownerOpaque    = "opaque-owner-token-0001"
		inactiveOpaque = "opaque-revoked-token-0002"
	)
	in := newIntrospection(t, map[string]map[string]any{
		demodata.GmailToken: {"active": true, "pdpp_token_kind": "client", "scope": "read"},
		demodata.SlackToken: {"active": true}, // no kind: the RS decides
		ownerOpaque:         {"active": true, "pdpp_token_kind": "owner"},
		demodata.OwnerToken: {"active": true, "token_kind": "owner"},
		inactiveOpaque:      {"active": false, "pdpp_token_kind": "client"},
	})
	env := startHosted(t, hosted.Options{PublicURL: publicURL, Auth: bearerauth.Options{
		Introspection: &bearerauth.IntrospectionOptions{URL: in.url, ClientID: "cli_mcp", ClientSecret: "s3cret"},
	}}, adapter.Config{})
	cases := []struct {
		name      string
		token     string
		want      authOutcome
		wantAsked int
	}{
		{"client via introspection", demodata.GmailToken, authOutcome{Status: 200, ToolRan: true, RS: []string{"GET /v1/schema"}}, 1},
		{"kindless active falls back to the RS", demodata.SlackToken, authOutcome{Status: 200, ToolRan: true, RS: []string{"GET /v1/schema"}}, 1},
		{"owner opaque via introspection", ownerOpaque, forbidden, 1},
		{"RS owner token via introspection", demodata.OwnerToken, forbidden, 1},
		{"inactive token", inactiveOpaque, unauthorized, 1},
		{"unknown token", "never-issued-token", unauthorized, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Twice: the second answer comes from the verdict cache.
			for range 2 {
				res := post(t, env.url, "Bearer "+tc.token, toolsCallSchema, nil)
				got := outcomeOf(t, env, res, tc.token)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("outcome (-want +got):\n%s\nbody: %s", diff, res.Body)
				}
			}
			if got := in.count(tc.token); got != tc.wantAsked {
				t.Errorf("introspection asked %d times, want %d (cached verdict)", got, tc.wantAsked)
			}
		})
	}
}

// TestHostedAuthUnavailable: when the authority cannot answer, the adapter
// says 503 and neither guesses nor lets the token through.
func TestHostedAuthUnavailable(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	is.jwksDown.Store(true)
	in := newIntrospection(t, nil)
	in.failed.Store(true)
	jwtEnv := startHosted(t, hosted.Options{PublicURL: publicURL, Auth: bearerauth.Options{
		JWT: &bearerauth.JWTOptions{Issuer: is.iss, JWKSURL: is.jwksURL}}}, adapter.Config{})
	introEnv := startHosted(t, hosted.Options{PublicURL: publicURL, Auth: bearerauth.Options{
		Introspection: &bearerauth.IntrospectionOptions{URL: in.url, ClientID: "cli_mcp", ClientSecret: "s3cret"}}}, adapter.Config{})
	badCreds := startHosted(t, hosted.Options{PublicURL: publicURL, Auth: bearerauth.Options{
		Introspection: &bearerauth.IntrospectionOptions{URL: in.url, ClientID: "cli_mcp", ClientSecret: "wrong"}}}, adapter.Config{})
	jwtTok := is.sign(t, "RS256", is.claims(jwtEnv.clock.Now()))
	cases := []struct {
		name  string
		env   *hostedEnv
		token string
	}{
		{"JWKS down", jwtEnv, jwtTok},
		{"introspection 500", introEnv, demodata.GmailToken},
		{"introspection rejects our client credentials", badCreds, demodata.GmailToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := post(t, tc.env.url, "Bearer "+tc.token, toolsCallSchema, nil)
			got := outcomeOf(t, tc.env, res, tc.token)
			want := authOutcome{Status: 503, Code: "rs_unavailable"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s\nbody: %s", diff, res.Body)
			}
		})
	}
}

// TestHostedJWTNeedsAudience: without a PublicURL (or explicit Audience)
// the audience would come from the Host header, so JWTs are refused.
func TestHostedJWTNeedsAudience(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	env := startHosted(t, hosted.Options{Auth: bearerauth.Options{
		JWT: &bearerauth.JWTOptions{Issuer: is.iss, JWKSURL: is.jwksURL}}}, adapter.Config{})
	c := with(is.claims(env.clock.Now()), map[string]any{"aud": env.url + "/mcp"})
	res := post(t, env.url, "Bearer "+is.sign(t, "RS256", c), toolsCallSchema, nil)
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401: %s", res.Status, res.Body)
	}
	if got := is.jwksHits.Load(); got != 0 {
		t.Errorf("JWKS fetched %d times; an unverifiable audience must not even fetch keys", got)
	}
}
