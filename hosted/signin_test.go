package hosted_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/hosted"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// signInCallback is the redirect URI the test host registers; nothing
// listens there: the browser stand-in stops at the redirect.
const signInCallback = "http://127.0.0.1:9/oauth/callback"

// bothGmailDetails selects both Gmail connections: README's
// --sign-in-details example, read from README.md, so the example an
// operator copies is the one these tests sign in with.
var bothGmailDetails = readmeSignInExample()

// readmeSignInExample is the JSON block after "This is the demo's
// selection" in README.md ("" when missing: the tests using it fail).
func readmeSignInExample() string {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(string(raw), "This is the demo's selection")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, "```json\n")
	if !ok {
		return ""
	}
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// realPostureEnv is the mock RS with its AS in the real AS's posture (the
// demo dataset: two Gmail connections) and a hosted adapter in front of
// it, with the sign-in front when sel is configured.
type realPostureEnv struct {
	rs  *rstest.TestServer
	url string
}

func startRealPosture(t *testing.T, sel hosted.SignInSelection) realPostureEnv {
	t.Helper()
	ds, err := demodata.Build(demodata.Options{Records: 200})
	if err != nil {
		t.Fatal(err)
	}
	rs := rstest.NewServer(ds, rstest.WithRealAuthServer())
	t.Cleanup(rs.Close)
	rc, err := rsclient.New(rsclient.Config{BaseURL: rs.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := adapter.New(adapter.Config{Waits: adapter.UnboundedWaits, RS: rc, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	opts := hosted.Options{}
	if sel.Configured() {
		if opts.SignIn, err = hosted.DiscoverSignIn(t.Context(), a, sel, nil); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(hosted.New(a, opts))
	t.Cleanup(hs.Close)
	return realPostureEnv{rs: rs, url: hs.URL}
}

// signInTrace records what a host saw while signing in: the hops of the
// browser, and every /mcp answer.
type signInTrace struct {
	mu       sync.Mutex
	hops     []string // each authorize-step URL the browser visited
	mcp      []int    // statuses of /mcp answers
	refusals []string // WWW-Authenticate error_description of /mcp 401s
}

func (tr *signInTrace) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.URL.Path == "/mcp" {
		tr.mu.Lock()
		tr.mcp = append(tr.mcp, res.StatusCode)
		if m := challengeDescription.FindStringSubmatch(res.Header.Get("WWW-Authenticate")); m != nil {
			tr.refusals = append(tr.refusals, m[1])
		}
		tr.mu.Unlock()
	}
	return res, err
}

// browse plays the browser: it follows redirects from the authorize URL
// until one points at the host's callback, and returns the code there.
func (tr *signInTrace) browse(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	next := args.URL
	for range 5 {
		tr.mu.Lock()
		tr.hops = append(tr.hops, next)
		tr.mu.Unlock()
		if strings.HasPrefix(next, signInCallback) {
			loc, _ := url.Parse(next)
			q := loc.Query()
			if e := q.Get("error"); e != "" {
				return nil, fmt.Errorf("authorization failed: %s", e)
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, err
		}
		res, err := noFollow.Do(req)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		_ = res.Body.Close()
		if res.StatusCode != http.StatusFound {
			return nil, fmt.Errorf("%s answered %s: %s", next, res.Status, body)
		}
		next = res.Header.Get("Location")
	}
	return nil, errors.New("too many redirects")
}

// countLine reads an aggregate count's value.
var countLine = regexp.MustCompile(`= (\d+) over`)

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// connectKnowingOnlyTheURL is a generic host: the official Go SDK with
// its OAuth handler, given nothing but the MCP URL.
func connectKnowingOnlyTheURL(ctx context.Context, mcpURL string, tr *signInTrace) (*mcp.ClientSession, error) {
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "generic host", RedirectURIs: []string{signInCallback},
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: tr.browse,
		Client:                   &http.Client{Transport: tr, Timeout: 30 * time.Second},
	})
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "generic-host", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL, OAuthHandler: h,
		HTTPClient: &http.Client{Transport: tr, Timeout: 30 * time.Second}}, nil)
}

// A host that knows only the MCP URL signs in
// header-free against an AS in the real AS's posture, with two Gmail
// connections: 401 → protected-resource metadata (naming the adapter) →
// the adapter's AS metadata → registration at the RS's AS → authorize via
// the adapter, whose redirect adds the operator's selection → the AS's
// code → token at the RS's AS → a grant token that reads both connections.
// Without the front the AS issues a package token (the generic picker)
// and the very same host ends at the 401 that explains it.
func TestSignInFrontGivesAGenericHostAServableToken(t *testing.T) {
	t.Parallel()
	details, err := hosted.ParseAuthorizationDetails([]byte(bothGmailDetails))
	if err != nil {
		t.Fatal(err)
	}
	env := startRealPosture(t, hosted.SignInSelection{AuthorizationDetails: details})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tr := &signInTrace{}
	cs, err := connectKnowingOnlyTheURL(ctx, env.url+"/mcp", tr)
	if err != nil {
		t.Fatalf("sign-in: %v (hops %v)", err, tr.hops)
	}
	defer cs.Close()

	// The browser went adapter → RS's AS → host, and only the selection
	// was added on the way.
	if len(tr.hops) != 3 || !strings.HasPrefix(tr.hops[0], env.url+"/oauth/authorize?") ||
		!strings.HasPrefix(tr.hops[1], env.rs.URL+"/oauth/authorize?") {
		t.Fatalf("browser hops %v, want adapter, RS's AS, callback", tr.hops)
	}
	hostQ, asQ := queryOf(t, tr.hops[0]), queryOf(t, tr.hops[1])
	hostQ["authorization_details"] = []string{details}
	if diff := cmp.Diff(hostQ, asQ); diff != "" {
		t.Errorf("the AS got (-host's parameters plus the selection +what it got):\n%s", diff)
	}

	counts := map[string]string{}
	for _, conn := range []string{demodata.GmailWorkConnectionID, demodata.GmailPersonalConnectionID} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "aggregate", Arguments: map[string]any{
			"stream": "messages", "connection_id": conn, "metric": "count"}})
		if err != nil || res.IsError {
			t.Fatalf("aggregate on %s: %v %+v", conn, err, res)
		}
		counts[conn] = res.Content[0].(*mcp.TextContent).Text
	}
	for conn, text := range counts {
		if m := countLine.FindStringSubmatch(text); m == nil || m[1] == "0" {
			t.Errorf("connection %s: no records counted: %s", conn, text)
		}
	}
	for _, s := range tr.mcp {
		if s == http.StatusServiceUnavailable {
			t.Errorf("a /mcp answer was 503 (%v)", tr.mcp)
		}
	}
	t.Logf("signed in through the front; /mcp statuses %v; counts %v", tr.mcp, counts)
}

// queryOf is the decoded query of u.
func queryOf(t *testing.T, u string) url.Values {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Query()
}

// Without a configured selection, the same host signs in at the RS's AS
// directly (the PRM names it), gets a grant-package token, and ends at the
// 401 that says what the token is and how an operator enables sign-in —
// never a 503.
func TestSignInWithoutFrontEndsAtTheExplanation(t *testing.T) {
	t.Parallel()
	env := startRealPosture(t, hosted.SignInSelection{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tr := &signInTrace{}
	cs, err := connectKnowingOnlyTheURL(ctx, env.url+"/mcp", tr)
	if err == nil {
		_ = cs.Close()
		t.Fatal("connected with a package token")
	}
	if len(tr.hops) == 0 || !strings.HasPrefix(tr.hops[0], env.rs.URL+"/oauth/authorize?") {
		t.Fatalf("hops %v: want a sign-in at the RS's AS", tr.hops)
	}
	for _, s := range tr.mcp {
		if s == http.StatusServiceUnavailable {
			t.Errorf("a /mcp answer was 503 (%v)", tr.mcp)
		}
	}
	var explained bool
	for _, d := range tr.refusals {
		explained = explained || (strings.Contains(d, "grant-package token") && strings.Contains(d, "--sign-in-details"))
	}
	if !explained {
		t.Errorf("no 401 explained the package token and the operator's setting: %q (statuses %v)", tr.refusals, tr.mcp)
	}
}

// The front's documents agree: the PRM names the adapter's origin, whose
// RFC 8414 metadata has that issuer, its own authorize endpoint, and the
// RS's AS for registration and tokens; S256 only; no iss promised.
func TestSignInFrontMetadata(t *testing.T) {
	t.Parallel()
	env := startRealPosture(t, hosted.SignInSelection{ConnectorID: "slack"})
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(t, env.url+"/.well-known/oauth-protected-resource/mcp", &prm)
	var md map[string]any
	getJSON(t, env.url+"/.well-known/oauth-authorization-server", &md)
	got := map[string]any{"prm": prm.AuthorizationServers, "issuer": md["issuer"], "authorize": md["authorization_endpoint"],
		"token": md["token_endpoint"], "register": md["registration_endpoint"], "revoke": md["revocation_endpoint"],
		"pkce": md["code_challenge_methods_supported"], "iss": md["authorization_response_iss_parameter_supported"]}
	want := map[string]any{"prm": []string{env.url}, "issuer": env.url, "authorize": env.url + "/oauth/authorize",
		"token": env.rs.URL + "/oauth/token", "register": env.rs.URL + "/oauth/register", "revoke": env.rs.URL + "/oauth/revoke",
		"pkce": []any{"S256"}, "iss": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", u, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// The authorize step redirects only to the RS's AS, adds exactly the
// selection, and refuses (JSON 400, never a redirect to the host's URI)
// what would make it anything but the host's own sign-in.
func TestSignInFrontAuthorizeRefusals(t *testing.T) {
	t.Parallel()
	env := startRealPosture(t, hosted.SignInSelection{ConnectorID: "slack"})
	good := url.Values{"client_id": {"cli_x"}, "redirect_uri": {signInCallback}, "response_type": {"code"},
		"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}, "state": {"s"}, "resource": {env.url + "/mcp"}}
	with := func(k, v string) url.Values {
		q := url.Values{}
		for kk, vv := range good {
			q[kk] = vv
		}
		if v == "" {
			delete(q, k)
		} else {
			q.Set(k, v)
		}
		return q
	}
	type outcome struct {
		Status   int
		Location string // the redirect's target without its query
		Error    string
	}
	cases := []struct {
		name  string
		query string
		want  outcome
	}{
		{"host's request", good.Encode(), outcome{Status: 302, Location: env.rs.URL + "/oauth/authorize"}},
		{"the very same selection", with("connector_id", "slack").Encode(), outcome{Status: 302, Location: env.rs.URL + "/oauth/authorize"}},
		{"another connector", with("connector_id", "gmail").Encode(), outcome{Status: 400, Error: "invalid_request"}},
		{"its own authorization_details", with("authorization_details", bothGmailDetails).Encode(), outcome{Status: 400, Error: "invalid_request"}},
		{"no PKCE", with("code_challenge_method", "").Encode(), outcome{Status: 400, Error: "invalid_request"}},
		{"plain PKCE", with("code_challenge_method", "plain").Encode(), outcome{Status: 400, Error: "invalid_request"}},
		{"implicit flow", with("response_type", "token").Encode(), outcome{Status: 400, Error: "invalid_request"}},
		{"no redirect_uri", with("redirect_uri", "").Encode(), outcome{Status: 400, Error: "invalid_request"}},
		{"relative redirect_uri", with("redirect_uri", "/cb").Encode(), outcome{Status: 400, Error: "invalid_request"}},
		{"repeated client_id", good.Encode() + "&client_id=cli_y", outcome{Status: 400, Error: "invalid_request"}},
		{"oversized", good.Encode() + "&x=" + strings.Repeat("a", 9000), outcome{Status: 400, Error: "invalid_request"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := noFollow.Get(env.url + "/oauth/authorize?" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got := outcome{Status: res.StatusCode}
			if loc := res.Header.Get("Location"); loc != "" {
				got.Location, _, _ = strings.Cut(loc, "?")
				q := queryOf(t, loc)
				if q.Get("connector_id") != "slack" || len(q["connector_id"]) != 1 {
					t.Errorf("redirect %s does not carry the selection once", loc)
				}
			} else {
				var e map[string]string
				_ = json.NewDecoder(res.Body).Decode(&e)
				got.Error = e["error"]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
