package credcache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pdpp/pdpp-mcp/internal/regularfile"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Connection is what `pdpp-mcp connect` caches for one provider: the
// `pdpp connect` file (provider_url, authorization_server, scope, client,
// credential, created_at; packages/cli/src/connect/flow.ts of the
// reference implementation) plus what a refresh needs: the token endpoint,
// the credential's refresh_token and when it was obtained.
type Connection struct {
	ProviderURL, AuthorizationServer, TokenEndpoint string
	ClientID, ClientName                            string
	// RenewWith is the command that signs in again (the cache's
	// renew_with, named in credential_expired advice).
	RenewWith  string
	Credential Credential
}

// Credential is one issued access token and its refresh token.
type Credential struct {
	AccessToken, TokenType, RefreshToken, GrantID string
	// ExpiresAt is the access token's end (zero: not said).
	ExpiresAt time.Time
	// ObtainedAt is when it was issued; with ExpiresAt it gives the
	// lifetime a refresh is timed by.
	ObtainedAt time.Time
}

// members are the credential object's members as the cache holds them.
func (c Credential) members() map[string]any {
	m := map[string]any{"access_token": c.AccessToken, "token_type": orBearer(c.TokenType)}
	if !c.ExpiresAt.IsZero() {
		m["expires_at"] = c.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	if !c.ObtainedAt.IsZero() {
		m["obtained_at"] = c.ObtainedAt.UTC().Format(time.RFC3339Nano)
	}
	if c.GrantID != "" {
		m["grant_id"] = c.GrantID
	}
	if c.RefreshToken != "" {
		m["refresh_token"] = c.RefreshToken
	}
	return m
}

func orBearer(tokenType string) string {
	if strings.TrimSpace(tokenType) == "" {
		return "Bearer"
	}
	return tokenType
}

// lockTimeout bounds the wait for another process's refresh or store.
const lockTimeout = 30 * time.Second

// exchangeTimeout bounds a refresh's token request and write, once the
// lock is held.
const exchangeTimeout = 30 * time.Second

// Store writes c as the provider's cache file, replacing any earlier one,
// under the file's lock (a running stdio session refreshing at that moment
// finishes first and then reads this file), and returns its path. The file
// is written 0600 to a temporary name and renamed into place, so a reader
// sees the old file or the new one, never a part.
func Store(ctx context.Context, cacheRoot string, c Connection, now time.Time) (string, error) {
	norm, err := NormalizeProviderURL(c.ProviderURL)
	if err != nil {
		return "", err
	}
	path, _ := CacheFilePath(cacheRoot, norm)
	doc := map[string]any{
		"provider_url": norm, "authorization_server": c.AuthorizationServer, "token_endpoint": c.TokenEndpoint,
		"scope":      "",
		"client":     map[string]any{"client_id": c.ClientID, "client_name": c.ClientName, "token_endpoint_auth_method": "none"},
		"credential": c.Credential.members(),
		"created_at": now.UTC().Format(time.RFC3339Nano),
	}
	if c.RenewWith != "" {
		doc["renew_with"] = c.RenewWith
	}
	raw, err := marshalCache(doc)
	if err != nil {
		return path, err
	}
	ctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return path, err
	}
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return path, err
	}
	defer unlock()
	ensureGitignore(cacheRoot)
	return path, writeAtomic(path, raw)
}

// marshalCache is the file's bytes: indented JSON and a newline, as the
// CLI writes it.
func marshalCache(doc any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeAtomic writes raw to a private temporary file beside path, syncs
// it, renames it over path and syncs the directory.
func writeAtomic(path string, raw []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*") // 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename: nothing there
	_, werr := tmp.Write(raw)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir flushes dir's entries, so a file just renamed or linked into it
// survives a power cut as well as a crash (the file's own sync covers its
// bytes, not the name pointing at them): a rotated refresh token lost
// that way would leave the old one, which the authorization server then
// treats as reused and answers by revoking the grant. Best effort: the
// rename already happened, and some systems cannot sync a directory.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// ensureGitignore keeps the cache root out of version control, as `pdpp
// connect` does (a .gitignore of "*" and "!.gitignore"); an existing one
// that already ignores everything is left alone. Best effort.
func ensureGitignore(cacheRoot string) {
	path := filepath.Join(cacheRoot, ".gitignore")
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return
	}
	if bytes.Contains(cur, []byte("*")) {
		return
	}
	if len(cur) > 0 && !bytes.HasSuffix(cur, []byte("\n")) {
		cur = append(cur, '\n')
	}
	_ = os.WriteFile(path, append(cur, "*\n!.gitignore\n"...), 0o600)
}

// readRaw reads the cache file at path as a JSON object, bounded, refusing
// anything but a regular file.
func readRaw(path string) (map[string]json.RawMessage, error) {
	f, _, err := regularfile.Open(path, "credential cache")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxCredentialFile+1))
	if err != nil || len(raw) > maxCredentialFile {
		return nil, fmt.Errorf("credential cache %s is unreadable or too large", path)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("credential cache %s is not a JSON object", path)
	}
	return doc, nil
}
