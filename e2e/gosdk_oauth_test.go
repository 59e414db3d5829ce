package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// grantCounter counts token-endpoint requests by grant_type, as the Go
// SDK's OAuth handler sends them.
type grantCounter struct {
	mu     sync.Mutex
	grants map[string]int
}

func (c *grantCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/oauth/token") && r.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		_ = r.Body.Close()
		form, _ := url.ParseQuery(string(body))
		c.mu.Lock()
		c.grants[form.Get("grant_type")]++
		c.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (c *grantCounter) count(grant string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.grants[grant]
}

// browserFetcher plays the browser for the Go SDK: it requests the
// authorize URL without following the redirect and returns the code and
// state the redirect carries, or the OAuth error it carries.
func browserFetcher(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		return nil, err
	}
	_ = resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil {
		return nil, fmt.Errorf("authorize answered %s without a usable redirect", resp.Status)
	}
	q := loc.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("authorization failed: %s: %s", e, q.Get("error_description"))
	}
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}

// goSignIn connects the Go SDK client to mcpURL with no token: its
// AuthorizationCodeHandler discovers the authorization server from the
// 401, registers, and authorizes with code + PKCE.
func goSignIn(ctx context.Context, mcpURL string, counter *grantCounter) (*mcp.ClientSession, error) {
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "pdpp-mcp e2e (Go SDK)", RedirectURIs: []string{"http://127.0.0.1:9/oauth/callback"},
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: browserFetcher,
		Client:                   &http.Client{Transport: counter, Timeout: 30 * time.Second},
	})
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "pdpp-mcp-e2e-oauth", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL, OAuthHandler: h}, nil)
}

// TestGoSDKSignIn: the official Go SDK client signs in with no token given
// to it (discovery from the adapter's 401, RFC 7591 registration, code +
// PKCE, exchange), reads a record, and keeps reading after its access
// token expired. Unlike the TypeScript SDK, which refreshes on the 401
// (TestTypeScriptSDKSignIn), the Go SDK's oauth2 token source refreshes
// before sending once a token is within 10 s of expiry, so with 3 s tokens
// it refreshes on every request: the proof is one code exchange, at least
// one refresh, and both reads carrying the record. A denying authorization
// server ends the connection attempt in access_denied.
func TestGoSDKSignIn(t *testing.T) {
	t.Parallel()
	recordID := demodata.GmailWorkConnectionID + "/messages:" + demodata.SharedRecordID
	read := func(ctx context.Context, cs *mcp.ClientSession) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": recordID}})
		if err != nil {
			return "", err
		}
		if len(res.Content) == 0 {
			return "", errors.New("no content")
		}
		text, _ := res.Content[0].(*mcp.TextContent)
		if res.IsError || text == nil {
			return "", fmt.Errorf("isError result: %+v", res.Content[0])
		}
		return text.Text, nil
	}
	t.Run("journey", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		counter := &grantCounter{grants: map[string]int{}}
		cs, err := goSignIn(ctx, startSignInStack(t, "--token-ttl", oauthTokenTTL.String()), counter)
		if err != nil {
			t.Fatalf("sign-in: %v", err)
		}
		defer cs.Close()
		for i, wait := range []time.Duration{0, oauthTokenTTL + 1500*time.Millisecond} {
			// waits for the spawned mockrs's real clock to end the first
			// access token: the binary has no clock a test can move.
			time.Sleep(wait)
			text, err := read(ctx, cs)
			if err != nil || !strings.Contains(text, sharedSubject) {
				t.Fatalf("read %d (after %s): %v\n%.300s", i, wait, err, text)
			}
		}
		if got := counter.count("authorization_code"); got != 1 {
			t.Errorf("%d code exchanges, want 1 for the session", got)
		}
		if got := counter.count("refresh_token"); got < 1 {
			t.Errorf("no refresh after the access token expired")
		}
		t.Logf("Go SDK: 1 sign-in, %d refreshes, reads before and after expiry", counter.count("refresh_token"))
	})
	t.Run("denied", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		counter := &grantCounter{grants: map[string]int{}}
		cs, err := goSignIn(ctx, startSignInStack(t, "--auth-deny"), counter)
		if err == nil {
			_ = cs.Close()
			t.Fatal("connected although the authorization server denied")
		}
		if !strings.Contains(err.Error(), "access_denied") || counter.count("authorization_code") != 0 {
			t.Errorf("denied sign-in: %v (%d code exchanges); want access_denied and none", err, counter.count("authorization_code"))
		}
	})
}
