// Package credcache is the stdio credential cache
// (<cache root>/clients/<host>.json): the scoped client tokens the stdio
// adapter reads with (Load), as `pdpp connect` and `pdpp-mcp connect`
// write them (Store), and their renewal with the cached refresh token
// (Refresher), one writer at a time under a lock file beside the cache.
// Owner credentials anywhere in a file refuse the whole file; anything but
// a regular file at the path is refused without blocking. It also keeps
// the stdio cursor secret beside the credentials (CursorSecret). Only cmd
// uses it; the hosted door takes bearers per request.
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
	"github.com/pdpp/pdpp-mcp/internal/regularfile"
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
	// MisplacedToken is a top-level access_token, a hand-written mistake:
	// never used (its kind labels would be ambiguous), only named in the
	// error, with the shape expected (CacheShape).
	MisplacedToken json.RawMessage `json:"access_token"`
	// File-level kind fields: a file labelled owner is refused whole.
	PDPPTokenKind string `json:"pdpp_token_kind"`
	TokenKind     string `json:"token_kind"`
	Kind          string `json:"kind"`
	Role          string `json:"role"`
	// RenewWith names the command that writes fresh credentials to this
	// file when it is not `pdpp connect` (the demo writes its own cache
	// and names itself), for the advice a credential_expired error gives.
	RenewWith string `json:"renew_with"`
	// TokenEndpoint and Client.ClientID are what a refresh sends to
	// (`pdpp-mcp connect` writes them; `pdpp connect` writes the client).
	TokenEndpoint string `json:"token_endpoint"`
	Client        struct {
		ClientID string `json:"client_id"`
	} `json:"client"`
}

// refreshable reports whether c can be renewed with its refresh token.
func (cf *cacheFile) refreshable(c cachedCredential) bool {
	return c.RefreshToken != "" && cf.Client.ClientID != "" && httpURL(cf.TokenEndpoint)
}

// maxRenewCommand bounds renew_with as an error message repeats it.
const maxRenewCommand = 200

// RenewCommand is the cache file's renew_with for providerURL: the command
// that writes its fresh credentials, when the file names one that is not
// `pdpp connect` (the demo's cache); "" otherwise, or when the file cannot
// be read. Control characters and overlong values are refused ("").
func RenewCommand(cacheRoot, providerURL string) string {
	path, err := CacheFilePath(cacheRoot, providerURL)
	if err != nil {
		return ""
	}
	cf, err := cacheLoad{path: path}.readFile()
	if err != nil || len(cf.RenewWith) > maxRenewCommand {
		return ""
	}
	for _, r := range cf.RenewWith {
		if r < 0x20 || r == 0x7f {
			return ""
		}
	}
	return strings.TrimSpace(cf.RenewWith)
}

type cachedCredential struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresAt   string `json:"expires_at"`
	GrantID     string `json:"grant_id"`
	Scope       string `json:"scope"`
	// RefreshToken and ObtainedAt are what `pdpp-mcp connect` adds: the
	// token a refresh presents and when the access token was issued.
	RefreshToken  string `json:"refresh_token"`
	ObtainedAt    string `json:"obtained_at"`
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
	// RefreshAt is when the token should be renewed with the cached
	// refresh token (Refresher): 4/5 into its lifetime. Zero when it
	// cannot be refreshed or does not expire.
	RefreshAt time.Time
}

// Load reads every usable scoped client token cached for the provider, in
// file order without duplicates, and the cache file's path. An owner
// credential anywhere in the file refuses the whole load: the adapter never
// runs next to owner authority. Expired credentials are skipped; none left
// is an error with guidance naming `pdpp-mcp connect <url>`.
func Load(cacheRoot, providerURL string, now time.Time) ([]Token, string, error) {
	path, err := CacheFilePath(cacheRoot, providerURL)
	if err != nil {
		return nil, "", err
	}
	norm, _ := NormalizeProviderURL(providerURL)
	l := cacheLoad{path: path, norm: norm, guidance: fmt.Sprintf("Run `%s` and try again.", ConnectCommand(norm, cacheRoot))}
	cf, err := l.readFile()
	if err != nil {
		return nil, path, err
	}
	if err := l.refuseOwner(cf); err != nil {
		return nil, path, err
	}
	if err := l.checkProviderURL(cf); err != nil {
		return nil, path, err
	}
	tokens, expired, unusable := usableTokens(cf, now)
	if len(tokens) > 0 {
		return tokens, path, nil
	}
	return nil, path, l.noTokenError(expired, unusable, len(cf.MisplacedToken) > 0)
}

// cacheLoad is one Load of one provider's cache file: what its error
// messages name (the file, the provider) and the guidance they end with.
type cacheLoad struct {
	path, norm, guidance string
}

// readFile reads and decodes the cache file, bounded in size. A missing
// file means the provider was never connected.
func (l cacheLoad) readFile() (*cacheFile, error) {
	f, _, err := regularfile.Open(l.path, "credential cache")
	if errors.Is(err, os.ErrNotExist) {
		return nil, &CredentialError{CredNotConnected, fmt.Sprintf("No scoped PDPP credential cached for %s (%s). %s", l.norm, l.path, l.guidance)}
	}
	if err != nil {
		return nil, &CredentialError{CredInvalid, fmt.Sprintf("cannot read %s: %v. %s", l.path, err, l.guidance)}
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxCredentialFile+1))
	if err != nil || len(raw) > maxCredentialFile {
		return nil, &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s is unreadable or too large. %s", l.path, l.guidance)}
	}
	var cf cacheFile
	if err := json.Unmarshal(raw, &cf); err != nil {
		return nil, &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s is not valid JSON. %s", l.path, l.guidance)}
	}
	return &cf, nil
}

// PermissionWarning is a warning when the credential cache file at path
// (CacheFilePath) lets other users read it, as the cursor secret's check
// warns: its bearer and refresh token then read the person's data. ""
// when the file is private or cannot be stat'ed.
func PermissionWarning(path string) string {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return regularfile.OthersMayRead(path, "credential cache", st)
}

// refuseOwner refuses the whole file when it or any entry is labelled
// owner. It runs before anything else in the file is used, so an owner
// token is never handed to the RS client.
func (l cacheLoad) refuseOwner(cf *cacheFile) error {
	owner := anyOwner(cf.PDPPTokenKind, cf.TokenKind, cf.Kind, cf.Role)
	for _, c := range cf.entries() {
		owner = owner || c.isOwner()
	}
	if owner {
		return &CredentialError{CredOwnerRefused, fmt.Sprintf("Cached credential for %s is an owner token; owner credentials are refused by the MCP adapter.", l.norm)}
	}
	return nil
}

// checkProviderURL refuses a file written for another provider URL. The
// file name keys on host:port only; a credential issued for https://host
// must not be sent to http://host (or another path).
func (l cacheLoad) checkProviderURL(cf *cacheFile) error {
	if cf.ProviderURL == "" {
		return nil
	}
	if cached, err := NormalizeProviderURL(cf.ProviderURL); err != nil || cached != l.norm {
		return &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s was written for another provider URL, not %s. %s", l.path, l.norm, l.guidance)}
	}
	return nil
}

// noTokenError explains why no token was usable, most telling reason
// first: some expired, else some unusable, else a token in the wrong
// place, else none at all.
func (l cacheLoad) noTokenError(expired, unusable int, misplaced bool) error {
	switch {
	case expired > 0:
		return &CredentialError{CredExpired, fmt.Sprintf("Cached PDPP credential for %s is expired. %s", l.norm, l.guidance)}
	case unusable > 0:
		return &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s holds no usable Bearer token (wrong token_type or malformed token). %s", l.path, l.guidance)}
	case misplaced:
		return &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s has access_token at the top level; it belongs inside \"credential\" (or each entry of \"credentials\"): %s. %s", l.path, CacheShape, l.guidance)}
	default:
		return &CredentialError{CredInvalid, fmt.Sprintf("credential cache %s has no access_token; expected %s. %s", l.path, CacheShape, l.guidance)}
	}
}

// CacheShape is the cache file's shape, as error messages and the README
// state it (expires_at and token_type optional; "credentials": [ … ]
// holds several grants).
const CacheShape = `{"provider_url":"https://rs.example","credential":{"access_token":"…","token_type":"Bearer","expires_at":"2099-01-01T00:00:00Z"}}`

// entries are the file's credentials in file order: the single-grant
// `credential` first, then the `credentials` array.
func (cf *cacheFile) entries() []cachedCredential {
	all := cf.Credentials
	if cf.Credential != nil {
		all = append([]cachedCredential{*cf.Credential}, all...)
	}
	return all
}

// usableTokens are the file's usable tokens in file order without
// duplicates, with counts of the entries skipped as expired and as not a
// usable bearer. An unparseable expires_at counts as no expiry.
func usableTokens(cf *cacheFile, now time.Time) (tokens []Token, expired, unusable int) {
	seen := map[string]bool{}
	for _, c := range cf.entries() {
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
		t := Token{Value: tok, ExpiresAt: exp, ClientLabelled: c.clientLabelled(cf)}
		if cf.refreshable(c) {
			obtained, _ := time.Parse(time.RFC3339, c.ObtainedAt)
			t.RefreshAt = refreshPoint(exp, obtained)
		}
		tokens = append(tokens, t)
	}
	return tokens, expired, unusable
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

// ConnectCommand is the command that signs in to providerURL and writes
// the cache under cacheRoot: `pdpp-mcp connect` with the cache root made
// absolute (the advice is followed in another terminal, whose directory
// is not the adapter's), each word shell-quoted.
func ConnectCommand(providerURL, cacheRoot string) string {
	cmd := "pdpp-mcp connect " + ShellQuote(providerURL)
	if cacheRoot == "" {
		return cmd
	}
	if abs, err := filepath.Abs(cacheRoot); err == nil {
		cacheRoot = abs
	}
	return cmd + " --cache-root " + ShellQuote(cacheRoot)
}

// ShellQuote quotes s for a POSIX shell when it holds anything but
// characters that need no quoting in a path or URL.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
