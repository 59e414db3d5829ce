// Package credcache reads the stdio credential cache that `pdpp connect`
// writes (<cache root>/clients/<host>.json): the scoped client tokens the
// stdio adapter reads with. Owner credentials anywhere in a file refuse the
// whole file. Only cmd uses it; the hosted door takes bearers per request.
package credcache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/bearer"
)

// Credential error codes; cmd maps them to exit codes.
const (
	CredNotConnected = "not_connected"      // no usable scoped credential (exit 78)
	CredExpired      = "credential_expired" // every cached credential expired (exit 78)
	CredInvalid      = "credential_invalid" // cache file unreadable or malformed (exit 78)
	CredOwnerRefused = "owner_token_refused"
	CredBadURL       = "invalid_provider_url" // (exit 64)
)

// maxCredentialFile bounds a cache file read.
const maxCredentialFile = 1 << 20

// CredentialError explains why no grant could be loaded.
type CredentialError struct {
	Code    string
	Message string
}

func (e *CredentialError) Error() string { return e.Message }

// cacheFile is the `pdpp connect` credential cache format. `credentials`
// (an array of the same objects) lets one file hold several grants for one
// provider; `credential` is the single-grant form the CLI writes.
type cacheFile struct {
	ProviderURL string             `json:"provider_url"`
	Scope       string             `json:"scope"`
	GrantID     string             `json:"grant_id"`
	Credential  *cachedCredential  `json:"credential"`
	Credentials []cachedCredential `json:"credentials"`
	// File-level kind fields: a file labelled owner is refused whole.
	PDPPTokenKind string `json:"pdpp_token_kind"`
	TokenKind     string `json:"token_kind"`
	Kind          string `json:"kind"`
	Role          string `json:"role"`
}

type cachedCredential struct {
	AccessToken   string `json:"access_token"`
	TokenType     string `json:"token_type"`
	ExpiresAt     string `json:"expires_at"`
	GrantID       string `json:"grant_id"`
	Scope         string `json:"scope"`
	PDPPTokenKind string `json:"pdpp_token_kind"`
	TokenKind     string `json:"token_kind"`
	Kind          string `json:"kind"`
	Role          string `json:"role"`
}

func (c cachedCredential) isOwner() bool {
	return anyOwner(c.PDPPTokenKind, c.TokenKind, c.Kind, c.Role)
}

// clientLabelled reports whether the entry's kind labels (pdpp_token_kind,
// token_kind, kind; the file's when the entry has none) all name a client
// token. Role is not a kind: it only ever refuses (owner).
func (c cachedCredential) clientLabelled(f *cacheFile) bool {
	kinds := nonEmpty(c.PDPPTokenKind, c.TokenKind, c.Kind)
	if len(kinds) == 0 {
		kinds = nonEmpty(f.PDPPTokenKind, f.TokenKind, f.Kind)
	}
	return len(kinds) > 0 && !slices.ContainsFunc(kinds, func(k string) bool { return !bearer.Served(k) })
}

func nonEmpty(labels ...string) []string {
	return slices.DeleteFunc(labels, func(l string) bool { return strings.TrimSpace(l) == "" })
}

// anyOwner reports whether any kind field names owner or control-plane
// authority, as the TypeScript adapter checks: no token sniffing, labels
// only (an unlabelled token is classified through the RS at start-up).
func anyOwner(kinds ...string) bool {
	return slices.ContainsFunc(kinds, bearer.OwnerLabel)
}

// NormalizeProviderURL applies the `pdpp connect` rules: https:// when no
// scheme, http or https only, no userinfo, query, fragment or trailing slash.
func NormalizeProviderURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", &CredentialError{CredBadURL, "missing provider URL"}
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", &CredentialError{CredBadURL, fmt.Sprintf("invalid provider URL %q: use http(s)://host[:port]", raw)}
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

// CacheFilePath is `<cacheRoot>/clients/<host>.json`, with every character
// of host[:port] outside [A-Za-z0-9.-] replaced by `_`.
func CacheFilePath(cacheRoot, providerURL string) (string, error) {
	norm, err := NormalizeProviderURL(providerURL)
	if err != nil {
		return "", err
	}
	u, _ := url.Parse(norm)
	var b strings.Builder
	for _, r := range u.Host {
		if r < 128 && (r == '.' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return filepath.Join(cacheRoot, "clients", b.String()+".json"), nil
}

// Token is one usable cached client token.
type Token struct {
	// Value is the bearer.
	Value string
	// ExpiresAt is the cache's `expires_at`; zero when absent or unparseable.
	ExpiresAt time.Time
	// ClientLabelled is true when the cache labels the token a grant-scoped
	// client token (every kind label present says client). Only unlabelled
	// tokens need the RS to classify them before serving; a mislabelled
	// owner token is still refused by every call's schema read.
	ClientLabelled bool
}

// Load reads every usable scoped client token cached for the provider, in
// file order without duplicates, and the cache file's path. An owner
// credential anywhere in the file refuses the whole load: the adapter never
// runs next to owner authority. Expired credentials are skipped; none left
// is an error with guidance naming `pdpp connect <url>`.
func Load(cacheRoot, providerURL string, now time.Time) ([]Token, string, error) {
	path, err := CacheFilePath(cacheRoot, providerURL)
	if err != nil {
		return nil, "", err
	}
	norm, _ := NormalizeProviderURL(providerURL)
	guidance := fmt.Sprintf("Run `pdpp connect %s` and try again.", norm)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, path, &CredentialError{CredNotConnected, fmt.Sprintf("No scoped PDPP credential cached for %s (%s). %s", norm, path, guidance)}
	}
	if err != nil {
		return nil, path, &CredentialError{CredInvalid, fmt.Sprintf("cannot read %s: %v. %s", path, err, guidance)}
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxCredentialFile+1))
	if err != nil || len(raw) > maxCredentialFile {
		return nil, path, &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s is unreadable or too large. %s", path, guidance)}
	}
	var cf cacheFile
	if err := json.Unmarshal(raw, &cf); err != nil {
		return nil, path, &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s is not valid JSON. %s", path, guidance)}
	}
	all := cf.Credentials
	if cf.Credential != nil {
		all = append([]cachedCredential{*cf.Credential}, all...)
	}
	owner := anyOwner(cf.PDPPTokenKind, cf.TokenKind, cf.Kind, cf.Role)
	for _, c := range all {
		owner = owner || c.isOwner()
	}
	if owner {
		// Checked before anything else in the file is used, so an owner
		// token is never handed to the RS client.
		return nil, path, &CredentialError{CredOwnerRefused, fmt.Sprintf("Cached credential for %s is an owner token; owner credentials are refused by the MCP adapter.", norm)}
	}
	if cf.ProviderURL != "" {
		// The file name keys on host:port only; a credential issued for
		// https://host must not be sent to http://host (or another path).
		if cached, err := NormalizeProviderURL(cf.ProviderURL); err != nil || cached != norm {
			return nil, path, &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s was written for another provider URL, not %s. %s", path, norm, guidance)}
		}
	}
	var tokens []Token
	seen := map[string]bool{}
	expired, unusable := 0, 0
	for _, c := range all {
		tok := strings.TrimSpace(c.AccessToken)
		if tok == "" || seen[tok] {
			continue
		}
		if !usableBearer(tok, c.TokenType) {
			unusable++
			continue
		}
		exp, err := time.Parse(time.RFC3339, c.ExpiresAt)
		if err != nil {
			exp = time.Time{}
		} else if !exp.After(now) {
			expired++
			continue
		}
		seen[tok] = true
		tokens = append(tokens, Token{Value: tok, ExpiresAt: exp, ClientLabelled: c.clientLabelled(&cf)})
	}
	switch {
	case len(tokens) > 0:
		return tokens, path, nil
	case expired > 0:
		return nil, path, &CredentialError{CredExpired, fmt.Sprintf("Cached PDPP credential for %s is expired. %s", norm, guidance)}
	case unusable > 0:
		return nil, path, &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s holds no usable Bearer token (wrong token_type or malformed token). %s", path, guidance)}
	default:
		return nil, path, &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s has no access_token. %s", path, guidance)}
	}
}

// usableBearer accepts a token the adapter can send as `Authorization:
// Bearer`: token_type Bearer (or absent), printable ASCII without spaces,
// bounded. Anything else (DPoP-bound, control characters) would fail at
// the RS or smuggle header bytes, so it is never sent.
func usableBearer(tok, tokenType string) bool {
	if tt := strings.TrimSpace(tokenType); tt != "" && !strings.EqualFold(tt, "Bearer") {
		return false
	}
	return bearer.WellFormed(tok)
}
