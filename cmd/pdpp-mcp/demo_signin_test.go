package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// demoSignIn is a host's saved sign-in: its client, its tokens.
type demoSignIn struct {
	conf  *oauth2.Config
	token *oauth2.Token
}

const demoCallback = "http://127.0.0.1:9/callback"

var stopAtRedirect = &http.Client{Timeout: 10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// signInKnowingOnlyTheURL signs in as a generic host: 401 → PRM → the AS
// metadata it names → registration → authorize (the browser follows
// redirects to the callback) → token.
func signInKnowingOnlyTheURL(t *testing.T, mcpURL string) demoSignIn {
	t.Helper()
	res, err := http.Post(mcpURL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	_, prmURL, ok := strings.Cut(res.Header.Get("WWW-Authenticate"), `resource_metadata="`)
	if res.StatusCode != http.StatusUnauthorized || !ok {
		t.Fatalf("no challenge: %s %v", res.Status, res.Header)
	}
	prmURL, _, _ = strings.Cut(prmURL, `"`)
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	decodeGet(t, prmURL, &prm)
	var md struct {
		Issuer, AuthorizationEndpoint, TokenEndpoint, RegistrationEndpoint string
	}
	var raw map[string]any
	decodeGet(t, prm.AuthorizationServers[0]+"/.well-known/oauth-authorization-server", &raw)
	md.Issuer, _ = raw["issuer"].(string)
	md.AuthorizationEndpoint, _ = raw["authorization_endpoint"].(string)
	md.TokenEndpoint, _ = raw["token_endpoint"].(string)
	md.RegistrationEndpoint, _ = raw["registration_endpoint"].(string)
	reg, _ := json.Marshal(map[string]any{"client_name": "saved host", "redirect_uris": []string{demoCallback}, "token_endpoint_auth_method": "none"})
	res, err = http.Post(md.RegistrationEndpoint, "application/json", bytes.NewReader(reg))
	if err != nil {
		t.Fatal(err)
	}
	var cl struct {
		ClientID string `json:"client_id"`
	}
	_ = json.NewDecoder(res.Body).Decode(&cl)
	res.Body.Close()
	conf := &oauth2.Config{ClientID: cl.ClientID, RedirectURL: demoCallback,
		Endpoint: oauth2.Endpoint{AuthURL: md.AuthorizationEndpoint, TokenURL: md.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
	return demoSignIn{conf: conf, token: authorizeAndExchange(t, conf, mcpURL)}
}

// authorizeAndExchange runs authorize (following redirects up to the
// callback) and the code exchange.
func authorizeAndExchange(t *testing.T, conf *oauth2.Config, mcpURL string) *oauth2.Token {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	next := conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", mcpURL))
	for !strings.HasPrefix(next, demoCallback) {
		res, err := stopAtRedirect.Get(next)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
		res.Body.Close()
		if res.StatusCode != http.StatusFound {
			t.Fatalf("authorize at %s: %s %s", next, res.Status, body)
		}
		next = res.Header.Get("Location")
	}
	u, _ := url.Parse(next)
	tok, err := conf.Exchange(context.Background(), u.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	return tok
}

func decodeGet(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", u, res.Status, err)
	}
}

// countWork calls aggregate count on the Work connection with bearer and
// returns the HTTP status and the tool's text.
func countWork(t *testing.T, mcpURL, bearer string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"aggregate","arguments":{"stream":"messages","connection_id":%q,"metric":"count"}}}`,
		demodata.GmailWorkConnectionID)
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	return res.StatusCode, string(b)
}

// A host signs in header-free against `demo --real-auth` (the
// AS in the real AS's posture behind the adapter's sign-in front), the
// demo restarts, and the host's saved sign-in keeps working: its access
// token still reads, its refresh token still refreshes, its registered
// client still authorizes (no logout, no new registration).
func TestDemoSignInSurvivesARestart(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	home := t.TempDir()
	args := []string{"--addr", freeLoopbackAddr(t), "--rs-addr", freeLoopbackAddr(t), "--json", "--real-auth"}
	var ready struct {
		MCPURL string          `json:"mcp_url"`
		SignIn json.RawMessage `json:"sign_in_authorization_details"`
	}
	p := startDemoIn(t, bin, home, args...)
	if err := json.Unmarshal([]byte(p.line(t, 60*time.Second)), &ready); err != nil || ready.SignIn == nil {
		t.Fatalf("ready line: %v %s", err, ready.SignIn)
	}
	saved := signInKnowingOnlyTheURL(t, ready.MCPURL)
	status, before := countWork(t, ready.MCPURL, saved.token.AccessToken)
	if status != http.StatusOK || !strings.Contains(before, "= ") {
		t.Fatalf("before the restart: %d %s", status, before)
	}
	p.stop(t, syscall.SIGINT)

	p = startDemoIn(t, bin, home, args...)
	p.line(t, 60*time.Second)
	status, after := countWork(t, ready.MCPURL, saved.token.AccessToken)
	if status != http.StatusOK || after != before {
		t.Errorf("saved access token after the restart: %d %s\nwant the answer before: %s", status, after, before)
	}
	saved.token.Expiry = time.Now().Add(-time.Minute) // make the token source refresh
	fresh, err := saved.conf.TokenSource(context.Background(), saved.token).Token()
	if err != nil {
		t.Fatalf("saved refresh token after the restart: %v", err)
	}
	if status, text := countWork(t, ready.MCPURL, fresh.AccessToken); status != http.StatusOK || text != before {
		t.Errorf("refreshed token: %d %s", status, text)
	}
	again := authorizeAndExchange(t, saved.conf, ready.MCPURL) // the registered client is still known
	if status, _ := countWork(t, ready.MCPURL, again.AccessToken); status != http.StatusOK {
		t.Errorf("a new sign-in with the saved client: %d", status)
	}
}

// callMCP posts one tools/call to the adapter with bearer and returns the
// HTTP status and the raw response.
func callMCP(t *testing.T, mcpURL, bearer, tool string, args map[string]any) (int, string) {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + string(params) + `}`
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+bearer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, string(b)
}

// A next_cursor the hosted demo printed before a restart continues after
// it: the demo keeps its cursor secret in its cache root like its other
// state.
func TestDemoCursorSurvivesARestart(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	home := t.TempDir()
	args := []string{"--addr", freeLoopbackAddr(t), "--rs-addr", freeLoopbackAddr(t), "--json"}
	var ready struct {
		MCPURL string `json:"mcp_url"`
		Bearer string `json:"bearer"`
	}
	p := startDemoIn(t, bin, home, args...)
	if err := json.Unmarshal([]byte(p.line(t, 60*time.Second)), &ready); err != nil || ready.Bearer == "" {
		t.Fatalf("ready line: %v", err)
	}
	page := map[string]any{"stream": "messages", "connection_id": demodata.GmailWorkConnectionID, "limit": 5}
	status, first := callMCP(t, ready.MCPURL, ready.Bearer, "query_records", page)
	m := regexp.MustCompile(`next_cursor=([A-Za-z0-9_-]+)`).FindStringSubmatch(first)
	if status != http.StatusOK || m == nil {
		t.Fatalf("first page: %d %.400s", status, first)
	}
	p.stop(t, syscall.SIGINT)

	p = startDemoIn(t, bin, home, args...)
	p.line(t, 60*time.Second)
	page["cursor"] = m[1]
	delete(page, "limit")
	status, second := callMCP(t, ready.MCPURL, ready.Bearer, "query_records", page)
	if status != http.StatusOK || strings.Contains(second, "invalid_cursor") || !strings.Contains(second, "query_records stream=messages records=5") {
		t.Fatalf("the cursor issued before the restart, after it: %d %.400s", status, second)
	}
}
