package bearerauth

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
)

// JWKS caching: keys are refetched after jwksTTL, or sooner when a token
// names an unknown kid (key rotation) — but at most once per
// jwksMinRefresh, so a flood of forged kids cannot hammer the issuer.
const (
	jwksTTL        = 5 * time.Minute
	jwksMinRefresh = 30 * time.Second
	jwksTimeout    = 5 * time.Second
)

// jwksCache holds the issuer's key set. Fetches are shared by concurrent
// callers and never run under a lock; a caller's cancellation does not
// fail the others.
type jwksCache struct {
	url string
	hc  *http.Client
	now func() time.Time
	c   *softcache.Cache[keySet]
	// last is the newest key set fetched, kept when a refetch fails.
	last atomic.Pointer[keySet]
}

// keySet is one fetched JWKS and when it was fetched.
type keySet struct {
	keys []VerificationKey
	at   time.Time
}

func newJWKSCache(url string, hc *http.Client, now func() time.Time) *jwksCache {
	return &jwksCache{url: url, hc: hc, now: now, c: softcache.New[keySet](softcache.Options{
		TTL: jwksTTL, ErrorTTL: jwksMinRefresh, MaxEntries: 1, FetchTimeout: jwksTimeout, Now: now,
	})}
}

// get returns the cached keys, fetching when stale, or once more when kid
// is unknown and the keys in hand are at least jwksMinRefresh old (a
// rotation). A fetch failure with keys in hand keeps the old keys; with
// none it is ErrUnavailable.
func (c *jwksCache) get(ctx context.Context, kid string) ([]VerificationKey, error) {
	ks, err := c.c.Get(ctx, "jwks", c.load)
	if err == nil && kid != "" && !hasKid(ks.keys, kid) && c.now().Sub(ks.at) >= jwksMinRefresh {
		c.c.Forget("jwks")
		ks, err = c.c.Get(ctx, "jwks", c.load)
	}
	if err != nil {
		return nil, ErrUnavailable
	}
	return ks.keys, nil
}

// load fetches the key set; on failure it serves the previous one for
// jwksMinRefresh, so a flapping issuer is retried without being hammered.
func (c *jwksCache) load(ctx context.Context) (keySet, time.Time, error) {
	keys, err := c.fetch(ctx)
	now := c.now()
	if err != nil {
		if prev := c.last.Load(); prev != nil {
			return keySet{keys: prev.keys, at: now}, now.Add(jwksMinRefresh), nil
		}
		return keySet{}, time.Time{}, err
	}
	ks := keySet{keys: keys, at: now}
	c.last.Store(&ks)
	return ks, time.Time{}, nil
}

func (c *jwksCache) fetch(ctx context.Context) ([]VerificationKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, ErrUnavailable
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySetBytes+1))
	if err != nil {
		return nil, err
	}
	return ParseKeySet(body)
}

func hasKid(keys []VerificationKey, kid string) bool {
	for _, k := range keys {
		if k.ID == kid {
			return true
		}
	}
	return false
}
