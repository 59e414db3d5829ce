package bearerauth

import (
	"sync"
	"time"
)

// verdictCache remembers token verdicts: soft state keyed by the token
// hash (never the token), bounded in entries, short-lived, and never kept
// past the token's own expiry. Errors are never cached.
type verdictCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	max     int
	now     func() time.Time
	entries map[string]verdictEntry
}

type verdictEntry struct {
	verdict Verdict
	expires time.Time
}

func newVerdictCache(ttl time.Duration, max int, now func() time.Time) *verdictCache {
	return &verdictCache{ttl: ttl, max: max, now: now, entries: map[string]verdictEntry{}}
}

func (c *verdictCache) get(key string) (Verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return VerdictUnknown, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return VerdictUnknown, false
	}
	return e.verdict, true
}

// put stores d until min(now+ttl, d.expires). A decision whose token has
// already expired is not stored.
func (c *verdictCache) put(key string, d decision) {
	now := c.now()
	exp := now.Add(c.ttl)
	if !d.expires.IsZero() && d.expires.Before(exp) {
		exp = d.expires
	}
	if !now.Before(exp) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		c.evictLocked(now)
	}
	c.entries[key] = verdictEntry{verdict: d.verdict, expires: exp}
}

// evictLocked drops expired entries, then the one expiring first, so the
// map never grows past max.
func (c *verdictCache) evictLocked(now time.Time) {
	var firstKey string
	var first time.Time
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
			continue
		}
		if firstKey == "" || e.expires.Before(first) {
			firstKey, first = k, e.expires
		}
	}
	if len(c.entries) >= c.max && firstKey != "" {
		delete(c.entries, firstKey)
	}
}
