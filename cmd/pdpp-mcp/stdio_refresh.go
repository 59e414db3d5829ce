package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pdpp/pdpp-mcp/adapter"
	"github.com/pdpp/pdpp-mcp/internal/credcache"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// refreshTimeout bounds one renewal: the wait for another process's
// refresh plus this one's token request.
const refreshTimeout = 45 * time.Second

// stdioRenewal keeps a stdio session's cached credential fresh with its
// refresh token. Two moments call for it: the token's refresh point (the
// grants expire there, so the adapter's Reload runs before the token
// ends) and the RS refusing it (the RS client's transport sees the answer
// and renews the very token refused, before the adapter re-reads the
// cache for its retry). Either way credcache.Refresher does the work
// under the cache file's lock, so concurrent sessions renew once.
type stdioRenewal struct {
	refresher credcache.Refresher
	stderr    io.Writer
	// mu keeps this process's renewals and their messages in order.
	mu sync.Mutex
}

// newStdioRenewal renews the cache of providerURL under cacheRoot.
func newStdioRenewal(cacheRoot, providerURL string, stderr io.Writer) *stdioRenewal {
	return &stdioRenewal{refresher: credcache.Refresher{CacheRoot: cacheRoot, ProviderURL: providerURL}, stderr: stderr}
}

// start is the session's first load; it also warns when the cache file
// lets other users read it (its tokens read the person's data).
func (r *stdioRenewal) start(ctx context.Context, now time.Time) ([]credcache.Token, string, error) {
	path, _ := credcache.CacheFilePath(r.refresher.CacheRoot, r.refresher.ProviderURL)
	if warn := credcache.PermissionWarning(path); warn != "" {
		fmt.Fprintf(r.stderr, "pdpp-mcp: warning: %s\n", warn)
	}
	return r.load(ctx, now)
}

// load renews a token that is due, then reads the cache: at start-up (a
// cache older than its token) and as the adapter's Reload. When the
// renewal failed the tokens keep their real expiry, not their refresh
// point, so they serve until then; a failed read names the renewal's
// failure too.
func (r *stdioRenewal) load(ctx context.Context, now time.Time) ([]credcache.Token, string, error) {
	rerr := r.renew(ctx, "")
	toks, path, err := credcache.Load(r.refresher.CacheRoot, r.refresher.ProviderURL, now)
	switch {
	case err != nil && rerr != nil:
		return nil, path, fmt.Errorf("%w (renewing it failed: %v)", err, rerr)
	case err != nil:
		return nil, path, err
	case rerr != nil:
		for i := range toks {
			toks[i].RefreshAt = time.Time{}
		}
	}
	return toks, path, nil
}

// reload is the adapter's Reload.
func (r *stdioRenewal) reload(now time.Time) ([]credcache.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	toks, _, err := r.load(ctx, now)
	return toks, err
}

// renew runs one refresh, forced for refused ("" : only when due). A
// failure is reported and returned, never fatal.
func (r *stdioRenewal) renew(ctx context.Context, refused string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	out, err := r.refresher.Refresh(ctx, refused)
	switch {
	case err != nil:
		fmt.Fprintf(r.stderr, "pdpp-mcp: warning: could not renew the cached credential: %v\n", err)
	case out == credcache.Refreshed:
		path, _ := credcache.CacheFilePath(r.refresher.CacheRoot, r.refresher.ProviderURL)
		fmt.Fprintf(r.stderr, "pdpp-mcp: renewed the cached credential with its refresh token (%s)\n", path)
	}
	return err
}

// maxRefusalPeek bounds how much of a 401/403 answer is read to learn its
// error code; the whole answer still reaches the RS client.
const maxRefusalPeek = 64 << 10

// renewingTransport is the stdio RS client's transport: when the RS
// refuses a request's bearer (rsclient.CredentialRefused: 401, or 403
// grant_expired / grant_revoked), it renews that bearer's cached
// credential before handing the answer on.
type renewingTransport struct {
	base    http.RoundTripper
	renewal *stdioRenewal
}

// stdioTransport is a pooled transport like the RS client's own, with
// renewal on refusal.
func stdioTransport(renewal *stdioRenewal) http.RoundTripper {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = rsclient.DefaultMaxConnsPerHost
	base.MaxConnsPerHost = rsclient.DefaultMaxConnsPerHost
	return renewingTransport{base: base, renewal: renewal}
}

func (t renewingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err != nil || (res.StatusCode != http.StatusUnauthorized && res.StatusCode != http.StatusForbidden) {
		return res, err
	}
	peek, rerr := io.ReadAll(io.LimitReader(res.Body, maxRefusalPeek))
	res.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(peek), res.Body), res.Body}
	if rerr != nil {
		return res, nil
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(peek, &env)
	bearer, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if ok && rsclient.CredentialRefused(res.StatusCode, env.Error.Code) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), refreshTimeout)
		_ = t.renewal.renew(ctx, strings.TrimSpace(bearer))
		cancel()
	}
	return res, nil
}

// renewedGrants are cached tokens as grants that expire at their refresh
// point when they have one: the adapter then asks Reload for a renewal
// before the token ends.
func renewedGrants(tokens []credcache.Token, owners map[string]bool) []adapter.Grant {
	grants := make([]adapter.Grant, 0, len(tokens))
	for _, tok := range tokens {
		for _, g := range cachedGrants([]credcache.Token{tok}, owners) {
			if !tok.RefreshAt.IsZero() {
				g.Expires = tok.RefreshAt
			}
			grants = append(grants, g)
		}
	}
	return grants
}
