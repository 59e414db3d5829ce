package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/internal/testenv"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest"
	"github.com/pdpp/pdpp-mcp/rsclient/rstest/demodata"
)

// authRS is the mock RS with its authorization server in the real AS's
// posture (refresh tokens rotate; a reused one revokes the sign-in),
// client tokens living 10 minutes on its clock.
type authRS struct {
	*rstest.Server
	URL string
}

// realAuthRS starts an authRS; wrap, when set, sits in front of it.
func realAuthRS(t *testing.T, clock *mockClock, wrap ...func(http.Handler) http.Handler) *authRS {
	t.Helper()
	ds, err := demodata.Build(demodata.Options{Records: 20})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := rstest.New(ds, rstest.Options{AuthRealPosture: true, TokenTTL: 10 * time.Minute, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	for _, w := range wrap {
		h = w(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &authRS{Server: srv, URL: hs.URL}
}

// fakeBrowser follows the authorization URL as a browser does, through the
// AS's redirects to the loopback callback, and returns the callback's
// status and page.
func fakeBrowser(t *testing.T, authURL string) (int, string) {
	t.Helper()
	res, err := (&http.Client{Timeout: 20 * time.Second}).Get(authURL)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	return res.StatusCode, string(body)
}

// connectProcess runs `pdpp-mcp connect` in dir with --no-browser, acts as
// the person's browser on the URL it prints, and returns its exit code
// and output.
func connectProcess(t *testing.T, bin, dir string, browse func(string), args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"connect"}, append(args, "--no-browser", "--timeout", "40s")...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	cmd.WaitDelay = 5 * time.Second
	var stdout testenv.Output
	cmd.Stdout = &stdout
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		stderr.WriteString(line + "\n")
		if u, ok := strings.CutPrefix(line, "  http"); ok && browse != nil {
			go browse("http" + u)
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("connect did not finish; stderr:\n%s", stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

// tokenRequests counts the AS's token endpoint requests.
func tokenRequests(rs *authRS) int {
	n := 0
	for _, r := range rs.Requests() {
		if r.Path == "/oauth/token" {
			n++
		}
	}
	return n
}

// cachedConnection is the part of the written cache the tests check.
type cachedConnection struct {
	ProviderURL   string `json:"provider_url"`
	TokenEndpoint string `json:"token_endpoint"`
	RenewWith     string `json:"renew_with"`
	Client        struct {
		ClientID string `json:"client_id"`
	} `json:"client"`
	Credential struct {
		AccessToken, RefreshToken, ExpiresAt, GrantID string
	} `json:"credential"`
}

func readConnection(t *testing.T, path string) cachedConnection {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	var c cachedConnection
	if err := json.Unmarshal(raw, &c); err != nil || json.Unmarshal(raw, &m) != nil {
		t.Fatalf("cache %s: %v", path, err)
	}
	var cred map[string]string
	_ = json.Unmarshal(m["credential"], &cred)
	c.Credential.AccessToken, c.Credential.RefreshToken = cred["access_token"], cred["refresh_token"]
	c.Credential.ExpiresAt, c.Credential.GrantID = cred["expires_at"], cred["grant_id"]
	return c
}

// connected runs connect against rs with --connector slack and returns
// the cache file's path.
func connected(t *testing.T, bin, dir string, rs *authRS) string {
	t.Helper()
	var page string
	var mu sync.Mutex
	code, stdout, stderr := connectProcess(t, bin, dir, func(u string) {
		status, body := fakeBrowser(t, u)
		mu.Lock()
		page = fmt.Sprint(status, " ", body)
		mu.Unlock()
	}, rs.URL, "--connector", "slack")
	if code != 0 {
		t.Fatalf("connect exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(page, "200 ") || !strings.Contains(page, "signed in") {
		t.Errorf("the browser's callback page: %q", page)
	}
	path, _ := credcache.CacheFilePath(filepath.Join(dir, ".pdpp"), rs.URL)
	if !strings.Contains(stdout, path) {
		t.Errorf("stdout does not name the cache file %s:\n%s", path, stdout)
	}
	return path
}

// The header-free sign-in writes the cache stdio reads: 0600, with the
// refresh token, the client id and the token endpoint; the command that
// renews it is itself.
func TestConnectWritesTheStdioCache(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := realAuthRS(t, &mockClock{t: time.Now()})
	dir := t.TempDir()
	path := connected(t, bin, dir, rs)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("cache mode %#o, want 0600", st.Mode().Perm())
	}
	c := readConnection(t, path)
	switch {
	case c.Credential.RefreshToken == "" || c.Credential.AccessToken == "":
		t.Errorf("no access or refresh token cached: %+v", c.Credential.ExpiresAt)
	case c.Client.ClientID == "" || c.TokenEndpoint != rs.URL+"/oauth/token":
		t.Errorf("client %q, token endpoint %q", c.Client.ClientID, c.TokenEndpoint)
	case c.Credential.GrantID != demodata.SlackGrantID:
		t.Errorf("grant %q, want %s", c.Credential.GrantID, demodata.SlackGrantID)
	case c.RenewWith != "pdpp-mcp connect "+rs.URL+" --connector slack":
		t.Errorf("renew_with %q", c.RenewWith)
	}
	if _, err := time.Parse(time.RFC3339, c.Credential.ExpiresAt); err != nil {
		t.Errorf("expires_at %q: %v", c.Credential.ExpiresAt, err)
	}
	toks, _, err := credcache.Load(filepath.Join(dir, ".pdpp"), rs.URL, time.Now())
	if err != nil || len(toks) != 1 || toks[0].RefreshAt.IsZero() {
		t.Fatalf("stdio's reader: %v %+v", err, toks)
	}
}

// With no selection the reference AS issues a package token the RS
// refuses: connect says so and writes nothing.
func TestConnectWithoutSelectionExplainsAndWritesNothing(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := realAuthRS(t, &mockClock{t: time.Now()})
	dir := t.TempDir()
	code, _, stderr := connectProcess(t, bin, dir, func(u string) { fakeBrowser(t, u) }, rs.URL)
	if code == 0 {
		t.Fatalf("connect without a selection succeeded:\n%s", stderr)
	}
	for _, want := range []string{"neither --sign-in-details nor --connector", "grant-package token", "--sign-in-details FILE or --connector ID", "nothing was written"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	path, _ := credcache.CacheFilePath(filepath.Join(dir, ".pdpp"), rs.URL)
	if _, err := os.Stat(path); err == nil {
		t.Error("a cache file was written")
	}
}

// A stdio session started after connect keeps reading across two token
// lifetimes with no user action: each time the RS refuses the expired
// token the session renews it with the rotated refresh token, once.
func TestStdioRenewsAcrossTokenLifetimes(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	clock := &mockClock{t: time.Now()}
	rs := realAuthRS(t, clock)
	dir := t.TempDir()
	path := connected(t, bin, dir, rs)
	first := readConnection(t, path)
	s := startStdio(t, bin, dir, "--provider-url", rs.URL)
	read := map[string]any{"stream": "messages", "limit": 2}
	if code, text := s.call("query_records", read); code != "" {
		t.Fatalf("fresh token: %s", text)
	}
	seen := map[string]bool{first.Credential.RefreshToken: true}
	for lifetime := 1; lifetime <= 2; lifetime++ {
		before := tokenRequests(rs)
		clock.Advance(11 * time.Minute) // the RS's token lifetime passes
		if code, text := s.call("query_records", read); code != "" {
			t.Fatalf("lifetime %d: %s\nstderr:\n%s", lifetime, text, s.stderr.String())
		}
		if n := tokenRequests(rs) - before; n != 1 {
			t.Errorf("lifetime %d: %d token requests, want 1 refresh", lifetime, n)
		}
		c := readConnection(t, path)
		if seen[c.Credential.RefreshToken] {
			t.Errorf("lifetime %d: the refresh token did not rotate", lifetime)
		}
		seen[c.Credential.RefreshToken] = true
	}
	if n := strings.Count(s.stderr.String(), "renewed the cached credential"); n != 2 {
		t.Errorf("stderr reports %d renewals, want 2:\n%s", n, s.stderr.String())
	}
	for tok := range seen {
		if strings.Contains(s.stderr.String(), tok) {
			t.Errorf("stderr quotes a refresh token (%.6s…)", tok)
		}
	}
}

// refreshRace holds the first refresh request at the token endpoint
// until a second one arrives, or for holdFor when none does: two sessions
// that each read the cache and refresh while the other's refresh is in
// flight both present the same refresh token, and the AS revokes the
// sign-in. With the cache lock the second session waits instead, and no
// second request comes while the first is held.
type refreshRace struct {
	armed  atomic.Bool
	seen   atomic.Int32
	second chan struct{}
}

// holdFor is how long the first refresh is held when no second comes. It
// bounds the test's length only: a session that waits for the lock sends
// nothing during it, however slow the machine.
const holdFor = 2 * time.Second

func (rr *refreshRace) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rr.armed.Load() && r.URL.Path == "/oauth/token" {
			switch rr.seen.Add(1) {
			case 1:
				select {
				case <-rr.second:
				case <-time.After(holdFor):
				}
			case 2:
				close(rr.second)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Two stdio sessions on one cache whose token the RS refuses at the same
// moment renew it once: the second waits for the first's lock, sees the
// rotated credential and uses it. Presenting the spent refresh token again
// would make the AS revoke the sign-in, and both sessions would stop.
func TestTwoStdioSessionsRenewOnce(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	clock := &mockClock{t: time.Now()}
	race := &refreshRace{second: make(chan struct{})}
	rs := realAuthRS(t, clock, race.wrap)
	dir := t.TempDir()
	connected(t, bin, dir, rs)
	a := startStdio(t, bin, dir, "--provider-url", rs.URL)
	b := startStdio(t, bin, dir, "--provider-url", rs.URL)
	read := map[string]any{"stream": "messages", "limit": 2}
	for _, s := range []*stdioSession{a, b} {
		if code, text := s.call("query_records", read); code != "" {
			t.Fatalf("fresh token: %s", text)
		}
	}
	before := tokenRequests(rs)
	race.armed.Store(true)
	clock.Advance(11 * time.Minute)
	var wg sync.WaitGroup
	codes := make([]string, 2)
	for i, s := range []*stdioSession{a, b} {
		wg.Go(func() { codes[i], _ = s.call("query_records", read) })
	}
	wg.Wait()
	for round := range 2 { // still served afterwards: the sign-in was not revoked
		for i, s := range []*stdioSession{a, b} {
			if code, text := s.call("query_records", read); code != "" || codes[i] != "" {
				t.Fatalf("session %d round %d: %q %q %s\nstderr:\n%s", i, round, codes[i], code, text, s.stderr.String())
			}
		}
	}
	if n := tokenRequests(rs) - before; n != 1 {
		t.Errorf("%d token requests for one expiry, want 1", n)
	}
}

// A session started on a cache whose token already passed its refresh
// point (its expires_at edited into the past, as a host started after a
// night away finds it) renews before its first read.
func TestStdioRenewsAStaleCacheAtStartUp(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	rs := realAuthRS(t, &mockClock{t: time.Now()})
	dir := t.TempDir()
	path := connected(t, bin, dir, rs)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["credential"].(map[string]any)["expires_at"] = time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	edited, _ := json.Marshal(doc)
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	before := tokenRequests(rs)
	s := startStdio(t, bin, dir, "--provider-url", rs.URL)
	if code, text := s.call("query_records", map[string]any{"stream": "messages", "limit": 2}); code != "" {
		t.Fatalf("stale cache: %s\nstderr:\n%s", text, s.stderr.String())
	}
	if n := tokenRequests(rs) - before; n != 1 || !strings.Contains(s.stderr.String(), "renewed the cached credential") {
		t.Errorf("%d token requests, want 1 renewal:\n%s", n, s.stderr.String())
	}
}
