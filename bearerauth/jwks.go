package bearerauth

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// JWKS caching: keys are refetched after jwksTTL, or sooner when a token
// names an unknown kid (key rotation) — but at most once per
// jwksMinRefresh, so a flood of forged kids cannot hammer the issuer.
const (
	jwksTTL        = 5 * time.Minute
	jwksMinRefresh = 30 * time.Second
	jwksTimeout    = 5 * time.Second
)

type jwksCache struct {
	url  string
	hc   *http.Client
	now  func() time.Time
	mu   sync.Mutex
	keys []VerificationKey
	at   time.Time // last successful fetch
	try  time.Time // last attempt
}

func newJWKSCache(url string, hc *http.Client, now func() time.Time) *jwksCache {
	return &jwksCache{url: url, hc: hc, now: now}
}

// get returns the cached keys, fetching when stale or when kid is unknown
// and the last attempt is old enough. A fetch failure with keys in hand
// keeps the old keys; with none it is ErrUnavailable.
func (c *jwksCache) get(ctx context.Context, kid string) ([]VerificationKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	stale := c.keys == nil || now.Sub(c.at) > jwksTTL
	unknown := kid != "" && !hasKid(c.keys, kid)
	if (stale || unknown) && (c.try.IsZero() || now.Sub(c.try) >= jwksMinRefresh || c.keys == nil) {
		c.try = now
		if keys, err := c.fetch(ctx); err == nil {
			c.keys, c.at = keys, now
		} else if c.keys == nil {
			return nil, ErrUnavailable
		}
	}
	return c.keys, nil
}

func (c *jwksCache) fetch(ctx context.Context) ([]VerificationKey, error) {
	ctx, cancel := context.WithTimeout(ctx, jwksTimeout)
	defer cancel()
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
