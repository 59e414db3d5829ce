package credcache_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// clock is a settable clock shared by the mock AS and the refresher.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// signedIn is a mock RS in the real AS's posture with 600 s tokens, one
// sign-in through it, and the cache that sign-in's credential was stored
// in, as `pdpp-mcp connect` stores it.
type signedIn struct {
	rs        *rstest.Server
	url, root string
	tokenHits *atomic.Int32
	first     *oauth2.Token
}

func signIn(t *testing.T, clk *clock) signedIn {
	t.Helper()
	ds, err := demodata.Build(demodata.Options{Records: 5})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := rstest.New(ds, rstest.Options{AuthRealPosture: true, TokenTTL: 600 * time.Second, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	hits := &atomic.Int32{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" {
			hits.Add(1)
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	const redirect = "http://127.0.0.1:9/cb"
	res, err := http.Post(hs.URL+"/oauth/register", "application/json", strings.NewReader(`{"client_name":"t","redirect_uris":["`+redirect+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var cl struct {
		ClientID string `json:"client_id"`
	}
	_ = json.NewDecoder(res.Body).Decode(&cl)
	res.Body.Close()
	conf := &oauth2.Config{ClientID: cl.ClientID, RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: hs.URL + "/oauth/authorize", TokenURL: hs.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noFollow.Get(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("connector_id", "slack")))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := res.Request.URL.Parse(res.Header.Get("Location"))
	tok, err := conf.Exchange(context.Background(), loc.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	now := clk.Now()
	_, err = credcache.Store(context.Background(), root, credcache.Connection{ProviderURL: hs.URL, AuthorizationServer: hs.URL,
		TokenEndpoint: hs.URL + "/oauth/token", ClientID: cl.ClientID, ClientName: "t",
		Credential: credcache.Credential{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken,
			ExpiresAt: now.Add(600 * time.Second), ObtainedAt: now}}, now)
	if err != nil {
		t.Fatal(err)
	}
	hits.Store(0)
	return signedIn{rs: srv, url: hs.URL, root: root, tokenHits: hits, first: tok}
}

// schemaStatus reads /v1/schema with tok.
func schemaStatus(t *testing.T, url, tok string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/schema", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// A credential is renewed 4/5 into its lifetime (480 s of 600), not
// before; the renewed one is timed from the refresher's clock; the file
// stays 0600 and keeps its other members.
func TestRefreshAtItsRefreshPoint(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 4, 25, 15, 0, 0, 0, time.UTC)
	clk := &clock{t: t0}
	s := signIn(t, clk)
	r := credcache.Refresher{CacheRoot: s.root, ProviderURL: s.url, Now: clk.Now}
	toks, path, err := credcache.Load(s.root, s.url, t0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(t0.Add(480*time.Second), toks[0].RefreshAt); diff != "" {
		t.Errorf("RefreshAt (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		at   time.Duration
		want credcache.RefreshOutcome
		hits int32
	}{
		{479 * time.Second, credcache.Current, 0},
		{480 * time.Second, credcache.Refreshed, 1},
		{481 * time.Second, credcache.Current, 1}, // the new one is due at 480+480
	} {
		clk.Set(t0.Add(tc.at))
		got, err := r.Refresh(context.Background(), "")
		if err != nil || got != tc.want || s.tokenHits.Load() != tc.hits {
			t.Errorf("at %s: %v %v, %d token requests; want %v, %d", tc.at, got, err, s.tokenHits.Load(), tc.want, tc.hits)
		}
	}
	toks, _, err = credcache.Load(s.root, s.url, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(t0.Add(480*time.Second+600*time.Second), toks[0].ExpiresAt); diff != "" {
		t.Errorf("renewed expires_at (-want +got):\n%s", diff)
	}
	if toks[0].Value == s.first.AccessToken || schemaStatus(t, s.url, toks[0].Value) != http.StatusOK {
		t.Errorf("the renewed token is not a new working token")
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %#o after a refresh", st.Mode().Perm())
	}
	var doc map[string]any
	raw, _ := os.ReadFile(path)
	_ = json.Unmarshal(raw, &doc)
	if doc["provider_url"] != s.url || doc["client"].(map[string]any)["client_name"] != "t" {
		t.Errorf("a refresh lost the file's other members: %v", doc)
	}
}

// A refused token is renewed at once, whatever its expiry; a refusal of a
// token the cache no longer holds renews nothing.
func TestRefreshARefusedToken(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	s := signIn(t, clk)
	r := credcache.Refresher{CacheRoot: s.root, ProviderURL: s.url, Now: clk.Now}
	if got, err := r.Refresh(context.Background(), s.first.AccessToken); err != nil || got != credcache.Refreshed {
		t.Fatalf("refused: %v %v", got, err)
	}
	if got, err := r.Refresh(context.Background(), s.first.AccessToken); err != nil || got != credcache.Current || s.tokenHits.Load() != 1 {
		t.Fatalf("refused again after another renewal: %v %v, %d requests", got, err, s.tokenHits.Load())
	}
}

// Many refreshers of one cache at once (each its own open of the lock
// file, as separate processes) send one refresh: the others wait for the
// lock, read the rotated credential and use it. The sign-in stays valid.
func TestConcurrentRefreshersSendOneRequest(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	s := signIn(t, clk)
	var wg sync.WaitGroup
	outcomes := make([]credcache.RefreshOutcome, 8)
	errs := make([]error, 8)
	for i := range outcomes {
		wg.Go(func() {
			r := credcache.Refresher{CacheRoot: s.root, ProviderURL: s.url, Now: clk.Now}
			outcomes[i], errs[i] = r.Refresh(context.Background(), s.first.AccessToken)
		})
	}
	wg.Wait()
	refreshed := 0
	for i := range outcomes {
		if errs[i] != nil {
			t.Errorf("refresher %d: %v", i, errs[i])
		}
		if outcomes[i] == credcache.Refreshed {
			refreshed++
		}
	}
	if refreshed != 1 || s.tokenHits.Load() != 1 {
		t.Errorf("%d refreshed, %d token requests; want 1 and 1", refreshed, s.tokenHits.Load())
	}
	toks, _, err := credcache.Load(s.root, s.url, clk.Now())
	if err != nil || schemaStatus(t, s.url, toks[0].Value) != http.StatusOK {
		t.Errorf("after the renewals the cached token does not work: %v", err)
	}
}

// A cache without a refresh token (a `pdpp connect` file) is never sent
// anywhere; an AS refusal is a RefreshError naming its code.
func TestRefreshWithoutRefreshTokenOrRefused(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	s := signIn(t, clk)
	path, _ := credcache.CacheFilePath(s.root, s.url)
	raw, _ := os.ReadFile(path)
	var doc map[string]map[string]any
	_ = json.Unmarshal(raw, &doc)

	cred := doc["credential"]
	cred["refresh_token"] = "not-issued-by-this-as"
	b, _ := json.Marshal(map[string]any{"provider_url": s.url, "token_endpoint": s.url + "/oauth/token", "client": doc["client"], "credential": cred})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := credcache.Refresher{CacheRoot: s.root, ProviderURL: s.url, Now: clk.Now}
	_, err := r.Refresh(context.Background(), s.first.AccessToken)
	var re *credcache.RefreshError
	if !errors.As(err, &re) || re.Code != "invalid_grant" || strings.Contains(err.Error(), "not-issued") {
		t.Errorf("unknown refresh token: %v", err)
	}

	delete(cred, "refresh_token")
	b, _ = json.Marshal(map[string]any{"provider_url": s.url, "credential": cred})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	before := s.tokenHits.Load()
	if got, err := r.Refresh(context.Background(), s.first.AccessToken); err != nil || got != credcache.NotRefreshable || s.tokenHits.Load() != before {
		t.Errorf("no refresh token: %v %v", got, err)
	}
	if toks, _, err := credcache.Load(s.root, s.url, clk.Now()); err != nil || !toks[0].RefreshAt.IsZero() {
		t.Errorf("a token without a refresh token has a refresh point: %v %+v", err, toks)
	}
	_ = filepath.Join
}

// A file labelled owner, at the top or on its credential, is never
// refreshed: nothing of it is sent anywhere.
func TestRefreshNeverSendsAnOwnerFile(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	s := signIn(t, clk)
	path, _ := credcache.CacheFilePath(s.root, s.url)
	orig, _ := os.ReadFile(path)
	for _, label := range []func(doc map[string]any){
		func(doc map[string]any) { doc["pdpp_token_kind"] = "owner" },
		func(doc map[string]any) { doc["credential"].(map[string]any)["role"] = "owner" },
	} {
		var doc map[string]any
		_ = json.Unmarshal(orig, &doc)
		label(doc)
		b, _ := json.Marshal(doc)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r := credcache.Refresher{CacheRoot: s.root, ProviderURL: s.url, Now: clk.Now}
		if got, err := r.Refresh(context.Background(), s.first.AccessToken); got != credcache.Current || err != nil || s.tokenHits.Load() != 0 {
			t.Errorf("owner file: %v %v, %d token requests", got, err, s.tokenHits.Load())
		}
	}
}

// cancelOnSend cancels the refresher's caller as its token request goes
// out: a host's SIGTERM in the middle of a renewal.
type cancelOnSend struct {
	cancel context.CancelFunc
	next   http.RoundTripper
}

func (c cancelOnSend) RoundTrip(r *http.Request) (*http.Response, error) {
	c.cancel()
	return c.next.RoundTrip(r)
}

// A renewal the caller gives up on mid-request still finishes and is
// written: the AS rotated the refresh token on receipt, so a file left
// holding the spent one would revoke the grant at the next refresh.
func TestRefreshOutlivesItsCallersCancellation(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	s := signIn(t, clk)
	ctx, cancel := context.WithCancel(context.Background())
	r := credcache.Refresher{CacheRoot: s.root, ProviderURL: s.url, Now: clk.Now,
		Client: &http.Client{Transport: cancelOnSend{cancel: cancel, next: http.DefaultTransport}}}
	if got, err := r.Refresh(ctx, s.first.AccessToken); err != nil || got != credcache.Refreshed {
		t.Fatalf("refresh cancelled mid-request: %v %v", got, err)
	}
	after := credcache.Refresher{CacheRoot: s.root, ProviderURL: s.url, Now: clk.Now}
	clk.Set(clk.Now().Add(500 * time.Second)) // past the renewed one's refresh point too
	if got, err := after.Refresh(context.Background(), ""); err != nil || got != credcache.Refreshed {
		t.Fatalf("the next renewal (with the rotated refresh token the file must hold): %v %v", got, err)
	}
}
