package credcache_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pdpp/pdpp-mcp/internal/credcache"
)

const credProvider = "http://127.0.0.1:7662"

var credNow = time.Date(2026, 4, 25, 15, 0, 0, 0, time.UTC)

// writeCache writes content as the cache file for credProvider and returns
// the cache root.
func writeCache(t *testing.T, content string) string {
	t.Helper()
	root := t.TempDir()
	if content == "" {
		return root
	}
	path, err := credcache.CacheFilePath(root, credProvider)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestCacheFilePath(t *testing.T) {
	t.Parallel()
	cases := []struct{ url, want string }{
		{"http://127.0.0.1:7662", "clients/127.0.0.1_7662.json"},
		{"https://provider.test/", "clients/provider.test.json"},
		{"provider.test", "clients/provider.test.json"},
		{"http://[::1]:8080", "clients/___1__8080.json"},
	}
	for _, tc := range cases {
		got, err := credcache.CacheFilePath("/c", tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if diff := cmp.Diff(filepath.Join("/c", tc.want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.url, diff)
		}
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		file     string   // "" = no file
		want     []string // bearers, in order
		wantCode string
		wantMsg  string // substring of the message
	}{
		{"missing file", "", nil, credcache.CredNotConnected, "Run `pdpp-mcp connect http://127.0.0.1:7662 --cache-root "},
		{"minimal", `{"credential":{"access_token":"tok-a"}}`, []string{"tok-a"}, "", ""},
		{"full TS shape", `{"provider_url":"http://127.0.0.1:7662/","scope":"s","credential":{"access_token":"tok-a","token_type":"Bearer","expires_at":"2026-05-01T00:00:00Z","grant_id":"g","scope":"s"}}`, []string{"tok-a"}, "", ""},
		{"several grants, duplicates dropped", `{"credential":{"access_token":"tok-a"},"credentials":[{"access_token":"tok-b"},{"access_token":"tok-a"},{"access_token":"tok-c","expires_at":"2020-01-01T00:00:00Z"}]}`, []string{"tok-a", "tok-b"}, "", ""},
		{"unparseable expires_at is not expired", `{"credential":{"access_token":"tok-a","expires_at":"soon"}}`, []string{"tok-a"}, "", ""},
		{"owner pdpp_token_kind", `{"credential":{"access_token":"tok-a","pdpp_token_kind":"owner"}}`, nil, credcache.CredOwnerRefused, "owner token"},
		{"owner token_kind", `{"credential":{"access_token":"tok-a","token_kind":"OWNER"}}`, nil, credcache.CredOwnerRefused, "owner token"},
		{"owner kind", `{"credential":{"access_token":"tok-a","kind":" owner "}}`, nil, credcache.CredOwnerRefused, "owner token"},
		{"owner role", `{"credential":{"access_token":"tok-a","role":"Owner"}}`, nil, credcache.CredOwnerRefused, "owner token"},
		{"owner among several", `{"credential":{"access_token":"tok-a"},"credentials":[{"access_token":"tok-b","role":"owner"}]}`, nil, credcache.CredOwnerRefused, "owner token"},
		{"owner label on the file", `{"pdpp_token_kind":"owner","credential":{"access_token":"tok-a"}}`, nil, credcache.CredOwnerRefused, "owner token"},
		{"owner even when expired", `{"credential":{"access_token":"tok-a","role":"owner","expires_at":"2020-01-01T00:00:00Z"}}`, nil, credcache.CredOwnerRefused, "owner token"},
		{"expired", `{"credential":{"access_token":"tok-a","expires_at":"2026-04-25T15:00:00Z"}}`, nil, credcache.CredExpired, "is expired. Run `pdpp-mcp connect"},
		{"no access token", `{"credential":{"token_type":"Bearer"}}`, nil, credcache.CredInvalid, "no access_token; expected " + credcache.CacheShape},
		{"the documented shape", strings.NewReplacer("https://rs.example", "http://127.0.0.1:7662", "…", "tok-a").Replace(credcache.CacheShape), []string{"tok-a"}, "", ""},
		{"top-level access token", `{"provider_url":"http://127.0.0.1:7662","access_token":"tok-a","token_type":"Bearer"}`, nil, credcache.CredInvalid,
			`has access_token at the top level; it belongs inside "credential" (or each entry of "credentials"): ` + credcache.CacheShape},
		{"not JSON", `{"credential":`, nil, credcache.CredInvalid, "not valid JSON"},
		{"DPoP token type", `{"credential":{"access_token":"tok-a","token_type":"DPoP"}}`, nil, credcache.CredInvalid, "no usable Bearer"},
		{"token with newline", `{"credential":{"access_token":"tok\nX-Evil: 1"}}`, nil, credcache.CredInvalid, "no usable Bearer"},
		{"written for https, used with http", `{"provider_url":"https://127.0.0.1:7662","credential":{"access_token":"tok-a"}}`, nil, credcache.CredInvalid, "another provider URL"},
		{"oversized file", `{"credential":{"access_token":"` + strings.Repeat("a", 1<<20) + `"}}`, nil, credcache.CredInvalid, "too large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := writeCache(t, tc.file)
			got, _, err := loadValues(root)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
			var ce *credcache.CredentialError
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if !errors.As(err, &ce) || ce.Code != tc.wantCode {
				t.Fatalf("error %v, want code %s", err, tc.wantCode)
			}
			if !strings.Contains(ce.Message, tc.wantMsg) {
				t.Errorf("message %q lacks %q", ce.Message, tc.wantMsg)
			}
			if strings.Contains(ce.Message, "tok-a") || strings.Contains(ce.Message, "tok\n") {
				t.Errorf("message leaks the token: %q", ce.Message)
			}
		})
	}
}

// ownerLabelled decodes content loosely and reports an owner label on the
// file or any credential.
func ownerLabelled(content string) bool {
	type kinds struct {
		A string `json:"pdpp_token_kind"`
		B string `json:"token_kind"`
		C string `json:"kind"`
		D string `json:"role"`
	}
	var f struct {
		kinds
		Credential  *kinds  `json:"credential"`
		Credentials []kinds `json:"credentials"`
	}
	if json.Unmarshal([]byte(content), &f) != nil {
		return false
	}
	all := append([]kinds{f.kinds}, f.Credentials...)
	if f.Credential != nil {
		all = append(all, *f.Credential)
	}
	for _, k := range all {
		for _, v := range []string{k.A, k.B, k.C, k.D} {
			if strings.EqualFold(strings.TrimSpace(v), "owner") {
				return true
			}
		}
	}
	return false
}

// FuzzLoad: any cache file content loads or fails cleanly; an
// owner-labelled file never yields a grant, and no token is ever quoted
// in an error.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"credential":{"access_token":"tok-a"}}`,
		`{"credential":{"access_token":"tok-a","role":"owner"}}`,
		`{"credentials":[{"access_token":"x","expires_at":"2020-01-01T00:00:00Z"}]}`,
		`{"provider_url":"http://127.0.0.1:7662","credential":{"access_token":"a b"}}`,
		`[]`, `null`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		root := t.TempDir()
		path, _ := credcache.CacheFilePath(root, credProvider)
		_ = os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		tokens, _, err := loadValues(root)
		if err == nil && len(tokens) == 0 {
			t.Fatal("no error and no tokens")
		}
		if err == nil && ownerLabelled(content) {
			t.Fatal("an owner-labelled cache loaded")
		}
		for _, tok := range tokens {
			if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
				t.Fatalf("unusable bearer loaded: %q", tok)
			}
			if err != nil && strings.Contains(err.Error(), tok) {
				t.Fatalf("error quotes a token")
			}
		}
	})
}

// Load keeps each token's expires_at so a running adapter can honour it.
func TestLoadKeepsExpiry(t *testing.T) {
	t.Parallel()
	root := writeCache(t, `{"credential":{"access_token":"tok-a","expires_at":"2026-05-01T00:00:00Z"},"credentials":[{"access_token":"tok-b","expires_at":"soon"}]}`)
	got, _, err := credcache.Load(root, credProvider, credNow)
	if err != nil {
		t.Fatal(err)
	}
	want := []credcache.Token{
		{Value: "tok-a", ExpiresAt: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)},
		{Value: "tok-b"}, // unparseable: unknown, not expired
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
}

// Load says which tokens the cache labels client: only those may skip the
// RS's start-up classification. Every kind label present must say client;
// an entry without any takes the file's; role never makes a token client.
func TestLoadClientLabels(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file string
		want       []bool // ClientLabelled per token, in order
	}{
		{"unlabelled", `{"credential":{"access_token":"tok-a"}}`, []bool{false}},
		{"pdpp_token_kind client", `{"credential":{"access_token":"tok-a","pdpp_token_kind":"client"}}`, []bool{true}},
		{"token_kind Client", `{"credential":{"access_token":"tok-a","token_kind":" Client "}}`, []bool{true}},
		{"kind client", `{"credential":{"access_token":"tok-a","kind":"client"}}`, []bool{true}},
		{"mcp_package is not client", `{"credential":{"access_token":"tok-a","pdpp_token_kind":"mcp_package"}}`, []bool{false}},
		{"labels disagree", `{"credential":{"access_token":"tok-a","pdpp_token_kind":"client","kind":"something"}}`, []bool{false}},
		{"role client is no kind", `{"credential":{"access_token":"tok-a","role":"client"}}`, []bool{false}},
		{"file label applies to unlabelled entries", `{"pdpp_token_kind":"client","credential":{"access_token":"tok-a"},"credentials":[{"access_token":"tok-b","kind":"other"}]}`, []bool{true, false}},
		{"per entry", `{"credentials":[{"access_token":"tok-a","pdpp_token_kind":"client"},{"access_token":"tok-b"}]}`, []bool{true, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			toks, _, err := credcache.Load(writeCache(t, tc.file), credProvider, credNow)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]bool, len(toks))
			for i, tok := range toks {
				got[i] = tok.ClientLabelled
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("client-labelled (-want +got):\n%s", diff)
			}
		})
	}
}

// loadValues is Load at credNow, keeping only the tokens' values (nil on
// error).
func loadValues(root string) ([]string, string, error) {
	toks, path, err := credcache.Load(root, credProvider, credNow)
	if err != nil {
		return nil, path, err
	}
	vals := make([]string, len(toks))
	for i, tok := range toks {
		vals[i] = tok.Value
	}
	return vals, path, nil
}

// TestREADMEStatesTheCacheShape: the shape the README documents is the one
// the error messages state and TestLoad loads.
func TestREADMEStatesTheCacheShape(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```json\n"+credcache.CacheShape+"\n```") {
		t.Errorf("README.md does not show the cache shape as a json block:\n%s", credcache.CacheShape)
	}
}

// The demo names itself as what renews its cache; a hand-written or
// hostile renew_with is bounded and refused when it holds control
// characters, and a file without one (pdpp connect's) names nothing.
func TestRenewCommand(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:7671"
	for _, tc := range []struct {
		name, renew, want string
	}{
		{"demo", "/usr/local/bin/pdpp-mcp demo", "/usr/local/bin/pdpp-mcp demo"},
		{"pdpp connect's file", "", ""},
		{"newline", "pdpp-mcp demo\nrm -rf ~", ""},
		{"overlong", strings.Repeat("x", 201), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path, err := credcache.CacheFilePath(root, url)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(map[string]any{"provider_url": url, "renew_with": tc.renew,
				"credential": map[string]any{"access_token": strings.Repeat("a", 64), "pdpp_token_kind": "client"}})
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, body, 0o600); err != nil {
				t.Fatal(err)
			}
			if got := credcache.RenewCommand(root, url); got != tc.want {
				t.Errorf("RenewCommand = %q, want %q", got, tc.want)
			}
		})
	}
	if got := credcache.RenewCommand(t.TempDir(), url); got != "" {
		t.Errorf("no file: %q", got)
	}
}
