package bearerauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func TestClaimedKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                                string
		pdppKind, tokenKind, kind, role, sc string
		want                                Verdict
		pkg, grant                          string
	}{
		{"client", "client", "", "", "", "read", VerdictClient, "", ""},
		{"client, case-insensitive", " Client ", "", "", "", "", VerdictClient, "", ""},
		{"token_kind client", "", "client", "", "", "", VerdictClient, "", ""},
		{"owner", "owner", "", "", "", "", VerdictRefused, "", ""},
		{"control plane", "control_plane", "", "", "", "", VerdictRefused, "", ""},
		{"mcp_package is a package token", "mcp_package", "", "", "", "", VerdictPackage, "", ""},
		// The reference AS's hosted-MCP picker token names a
		// grant_package_id and no grant_id (D15), whatever its kind label.
		{"package id without grant id", "client", "", "", "", "", VerdictPackage, "gpk_1", ""},
		{"token_kind grant_package", "", "grant_package", "", "", "", VerdictPackage, "", ""},
		{"package id beside a grant id is a grant token", "client", "", "", "", "", VerdictClient, "gpk_1", "grt_1"},
		{"owner package still refused", "owner", "", "owner", "", "", VerdictRefused, "gpk_1", ""},
		{"pdpp kind wins over token_kind", "owner", "client", "", "", "", VerdictRefused, "", ""},
		{"owner role beats client kind", "client", "", "", "owner", "", VerdictRefused, "", ""},
		{"owner kind beats client kind", "client", "", "OWNER", "", "", VerdictRefused, "", ""},
		{"owner scope", "client", "", "", "", "read owner:all", VerdictRefused, "", ""},
		{"pdpp owner scope", "", "", "", "", "pdpp:owner", VerdictRefused, "", ""},
		{"scope merely mentioning owner", "client", "", "", "", "read:owner_profile", VerdictClient, "", ""},
		{"no kind at all", "", "", "", "", "read", VerdictUnknown, "", ""},
	}
	for _, tc := range cases {
		if got := claimedKind(kindClaims{PDPPTokenKind: tc.pdppKind, TokenKind: tc.tokenKind, Kind: tc.kind, Role: tc.role, Scope: tc.sc, GrantPackageID: tc.pkg, GrantID: tc.grant}); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestVerdictLifetime: a verdict is remembered (negative ones too) until
// min(CacheTTL, the token's own expiry), Forget drops it, and the cache is
// bounded in entries.
func TestVerdictLifetime(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		tok := r.PostForm.Get("token")
		mu.Lock()
		asked[tok]++
		exp := now.Add(5 * time.Second).Unix()
		mu.Unlock()
		switch tok {
		case "short-lived":
			fmt.Fprintf(w, `{"active":true,"pdpp_token_kind":"client","exp":%d}`, exp)
		case "long-lived":
			fmt.Fprint(w, `{"active":true,"pdpp_token_kind":"client"}`)
		default:
			fmt.Fprint(w, `{"active":false}`)
		}
	}))
	defer srv.Close()
	v := New(Options{Introspection: &IntrospectionOptions{URL: srv.URL}, CacheTTL: 30 * time.Second, CacheSize: 3, Now: clock}, nil)
	type step struct {
		advance time.Duration
		token   string
		forget  bool
		known   bool // Remembered answers before Verify runs
		want    Verdict
		asked   int // introspection calls for token so far
	}
	steps := []step{
		{0, "short-lived", false, false, VerdictClient, 1},
		{4 * time.Second, "short-lived", false, true, VerdictClient, 1},
		{2 * time.Second, "short-lived", false, false, VerdictClient, 2}, // the token's exp passed: asked again
		{0, "long-lived", false, false, VerdictClient, 1},
		{29 * time.Second, "long-lived", false, true, VerdictClient, 1},
		{2 * time.Second, "long-lived", false, false, VerdictClient, 2}, // CacheTTL passed
		{0, "never-issued", false, false, VerdictInvalid, 1},
		{time.Second, "never-issued", false, true, VerdictInvalid, 1}, // negative cache
		{0, "long-lived", true, false, VerdictClient, 3},              // Forget: the RS refused it since
	}
	for i, st := range steps {
		advance(st.advance)
		if st.forget {
			v.Forget(st.token)
		}
		if rv, rerr, ok := v.Remembered(st.token); ok != st.known || ok && (rerr != nil || rv != st.want) {
			t.Errorf("step %d (%s): Remembered = %d, %v, %t; want %d, nil, %t", i, st.token, rv, rerr, ok, st.want, st.known)
		}
		got, err := v.Verify(context.Background(), st.token)
		mu.Lock()
		n := asked[st.token]
		mu.Unlock()
		if err != nil || got != st.want || n != st.asked {
			t.Errorf("step %d (%s): verdict %d, err %v, asked %d; want %d, nil, %d", i, st.token, got, err, n, st.want, st.asked)
		}
	}
	for i := range 10 {
		_, _ = v.Verify(context.Background(), fmt.Sprint("k", i))
	}
	if n := v.verdicts.Len(); n > 3 {
		t.Errorf("cache grew to %d entries, bound is 3", n)
	}
}

// TestRememberedFailure: an authority that failed is remembered for
// ErrorTTL as the failure itself (never as a verdict), so a request can
// answer 503 without waiting or spending a rate budget.
func TestRememberedFailure(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	defer srv.Close()
	v := New(Options{Introspection: &IntrospectionOptions{URL: srv.URL}, ErrorTTL: time.Minute}, nil)
	if _, _, ok := v.Remembered("tok"); ok {
		t.Fatal("Remembered answered before any check")
	}
	if _, err := v.Verify(context.Background(), "tok"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Verify: %v, want ErrUnavailable", err)
	}
	got, err, ok := v.Remembered("tok")
	if !ok || !errors.Is(err, ErrUnavailable) || got != VerdictUnknown {
		t.Errorf("Remembered = %d, %v, %t; want VerdictUnknown, ErrUnavailable, true", got, err, ok)
	}
	if v.WouldCheck("tok") {
		t.Error("WouldCheck with a remembered failure")
	}
}

func TestLooksLikeJWT(t *testing.T) {
	t.Parallel()
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256"}`))
	cases := map[string]bool{
		hdr + ".e30.sig": true,
		hdr + ".e30.":    true, // unsigned shape still goes to verification (and fails there)
		"opaque-token":   false,
		"a.b.c":          false,
		hdr + ".e30":     false,
		"." + hdr + ".x": false,
		base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"JWT"}`)) + ".e30.x": false,
	}
	for in, want := range cases {
		if got := looksLikeJWT(in); got != want {
			t.Errorf("looksLikeJWT(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzJWTVerify: arbitrary (mutated) tokens never verify as client or
// owner unless they are exactly a token our key signed.
func FuzzJWTVerify(f *testing.F) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	sign := func(c jwt.MapClaims, m jwt.SigningMethod) string {
		s, _ := jwt.NewWithClaims(m, c).SignedString(secret)
		return s
	}
	good := jwt.MapClaims{"iss": "https://as", "aud": "https://mcp/mcp", "exp": now.Add(time.Hour).Unix(), "pdpp_token_kind": "client"}
	valid := map[string]bool{sign(good, jwt.SigningMethodHS256): true}
	for t := range valid {
		f.Add(t)
	}
	f.Add(sign(good, jwt.SigningMethodHS512))
	f.Add("eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2FzIn0.")
	f.Add("a.b.c")
	v := newJWTVerifier(JWTOptions{Issuer: "https://as", Audience: "https://mcp/mcp", Keys: []VerificationKey{{Key: secret}}}, &http.Client{}, func() time.Time { return now })
	f.Fuzz(func(t *testing.T, tok string) {
		d, err := v.verify(t.Context(), tok)
		if err != nil {
			t.Fatalf("static keys never make verification unavailable: %v", err)
		}
		if (d.verdict == VerdictClient || d.verdict == VerdictRefused) && !valid[tok] {
			if _, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return secret, nil }, jwt.WithValidMethods([]string{"HS256", "HS384", "HS512"})); err != nil {
				t.Fatalf("unverifiable token accepted with verdict %d: %q", d.verdict, tok)
			}
		}
	})
}

// FuzzParseKeySet: any key file parses or fails cleanly, and every key it
// yields can only verify its own algorithm family.
func FuzzParseKeySet(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"oct","k":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`))
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := ParseKeySet(data)
		if err != nil {
			return
		}
		for _, k := range keys {
			if k.algFamily() == "" {
				t.Fatalf("key of unsupported type %T accepted", k.Key)
			}
		}
	})
}

func TestParseKeySet(t *testing.T) {
	t.Parallel()
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	pemEC := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	b64 := base64.RawURLEncoding.EncodeToString
	cases := []struct {
		name       string
		in         string
		wantFamily []string
		wantErr    string
	}{
		{"PEM EC public key", pemEC, []string{"ES"}, ""},
		{"JWKS oct", `{"keys":[{"kty":"oct","kid":"a","k":"` + b64([]byte(strings.Repeat("k", 32))) + `"}]}`, []string{"HS"}, ""},
		{"JWKS skips encryption keys", `{"keys":[{"kty":"oct","use":"enc","k":"` + b64([]byte(strings.Repeat("k", 32))) + `"},{"kty":"oct","k":"` + b64([]byte(strings.Repeat("j", 32))) + `"}]}`, []string{"HS"}, ""},
		{"short HMAC secret", `{"keys":[{"kty":"oct","k":"` + b64([]byte("short")) + `"}]}`, nil, "at least 32 bytes"},
		{"1024-bit RSA", `{"keys":[{"kty":"RSA","n":"` + b64(small.N.Bytes()) + `","e":"AQAB"}]}`, nil, "too small"},
		{"EC point off the curve", `{"keys":[{"kty":"EC","crv":"P-256","x":"` + b64(make([]byte, 32)) + `","y":"` + b64([]byte{1}) + `"}]}`, nil, "JWKS key 0"},
		{"PEM private key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", nil, "not a public key"},
		{"neither", "hello", nil, "neither"},
	}
	for _, tc := range cases {
		keys, err := ParseKeySet([]byte(tc.in))
		var fams []string
		for _, k := range keys {
			fams = append(fams, k.algFamily())
		}
		if diff := cmp.Diff(tc.wantFamily, fams); diff != "" {
			t.Errorf("%s: families (-want +got):\n%s", tc.name, diff)
		}
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}
