package rstest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeClock is a settable clock safe for concurrent handlers.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestTokenTTL: client tokens expire as on the real RS (D13, second
// probe): 403 permission_error grant_expired "Grant has expired" without a
// challenge; a minted token works until its own expiry.
func TestTokenTTL(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: base}
	s, ts := newTestServer(t, testDataset(), Options{Now: clock.Now, TokenTTL: 600 * time.Second})
	if r := get(t, ts.URL, "/v1/schema", gmailTok); r.status != 200 {
		t.Fatalf("fresh token: %s", r.raw)
	}
	clock.Advance(599 * time.Second)
	fresh, err := s.MintClientToken("grt_8c1d2e3f4a5b6c7d")
	if err != nil || fresh.ExpiresIn != 600 || fresh.ExpiresAt == nil || !fresh.ExpiresAt.Equal(base.Add(1199*time.Second)) {
		t.Fatalf("mint: %+v %v", fresh, err)
	}
	clock.Advance(time.Second)
	r := get(t, ts.URL, "/v1/streams/messages/records?connection_id="+connA, gmailTok)
	if code, _ := r.errCode(); r.status != 403 || code != "grant_expired" || at(r.body, "error", "type") != "permission_error" ||
		at(r.body, "error", "message") != "Grant has expired" || r.header.Get("WWW-Authenticate") != "" {
		t.Errorf("expired token: %d %s", r.status, r.raw)
	}
	if r := get(t, ts.URL, "/v1/streams/messages/records?connection_id="+connA, fresh.AccessToken); r.status != 200 {
		t.Errorf("minted token: %s", r.raw)
	}
	if r := get(t, ts.URL, "/v1/schema", ownerTok); r.status != 200 {
		t.Errorf("owner tokens never expire: %s", r.raw)
	}
	clock.Advance(600 * time.Second)
	if r := get(t, ts.URL, "/v1/schema", fresh.AccessToken); r.status != 403 {
		t.Errorf("minted token past its ttl: %s", r.raw)
	}
	if _, err := s.MintClientToken("grt_nope"); !errors.Is(err, ErrUnknownGrant) {
		t.Errorf("unknown grant: %v", err)
	}
}

func TestNoTokenTTLNeverExpires(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: base}
	s, ts := newTestServer(t, testDataset(), Options{Now: clock.Now})
	clock.Advance(365 * 24 * time.Hour)
	if r := get(t, ts.URL, "/v1/schema", gmailTok); r.status != 200 {
		t.Errorf("%s", r.raw)
	}
	m, _ := s.MintClientToken("grt_8c1d2e3f4a5b6c7d")
	if m.ExpiresAt != nil || m.ExpiresIn != 0 || s.Summary("x").Grants[0].ExpiresAt != nil {
		t.Errorf("no ttl, yet an expiry: %+v", m)
	}
}

// TestMintEndpoint: the owner-only control route mints a token a client
// can use at once.
func TestMintEndpoint(t *testing.T) {
	t.Parallel()
	s, err := New(testDataset(), Options{TokenTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	post := func(path, tok string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	tests := []struct {
		name, path, tok string
		status          int
	}{
		{"owner", "/_mockrs/grants/grt_8c1d2e3f4a5b6c7d/token", ownerTok, 200},
		{"client refused", "/_mockrs/grants/grt_8c1d2e3f4a5b6c7d/token", gmailTok, 403},
		{"no bearer", "/_mockrs/grants/grt_8c1d2e3f4a5b6c7d/token", "", 401},
		{"unknown grant", "/_mockrs/grants/grt_nope/token", ownerTok, 404},
		{"bad path", "/_mockrs/grants/a/b/token", ownerTok, 404},
	}
	for _, tc := range tests {
		status, body := post(tc.path, tc.tok)
		if status != tc.status {
			t.Errorf("%s: %d %s", tc.name, status, body)
		}
		if tc.status != 200 {
			continue
		}
		var m MintedToken
		if err := json.Unmarshal(body, &m); err != nil || m.ExpiresIn != 60 || len(m.AccessToken) != 64 {
			t.Fatalf("%s: %s", tc.name, body)
		}
		if r := get(t, ts.URL, "/v1/schema", m.AccessToken); r.status != 200 {
			t.Errorf("minted token refused: %s", r.raw)
		}
	}
	if r := get(t, ts.URL, "/_mockrs/grants/grt_8c1d2e3f4a5b6c7d/token", ownerTok); r.status != 404 {
		t.Errorf("GET must not mint: %d", r.status)
	}
}

// TestPackageTokenIsUnknownSource: a grant-package token (what the real AS
// issues to a generic sign-in, D15) is refused on every /v1 read exactly
// as the real RS refuses it: 404 not_found "Unknown source: unknown".
func TestPackageTokenIsUnknownSource(t *testing.T) {
	t.Parallel()
	s, ts := newTestServer(t, testDataset(), Options{})
	m := s.MintPackageToken()
	if m.GrantID != "" || !strings.HasPrefix(m.GrantPackageID, "gpk_") {
		t.Fatalf("package token response: %+v", m)
	}
	for _, path := range []string{"/v1/schema", "/v1/streams/messages/records?connection_id=" + connA,
		"/v1/streams/messages/aggregate?metric=count", "/v1/search?q=project"} {
		r := get(t, ts.URL, path, m.AccessToken)
		code, _ := r.errCode()
		got := []any{r.status, code, at(r.body, "error", "message"), r.header.Get("WWW-Authenticate")}
		if diff := cmp.Diff([]any{404, "not_found", "Unknown source: unknown", ""}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
}
