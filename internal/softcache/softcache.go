// Package softcache is the one cache mechanism of the adapter: schema
// documents, the RS's protected-resource metadata, token verdicts and
// signing keys all go through it.
//
// It is soft state: every entry is bounded in age (and may expire earlier,
// e.g. a token verdict never outlives the token), the map is bounded in
// entries, and losing it costs only a refetch. Concurrent misses for one key
// share a single fetch (singleflight); no lock is held while fetching; the
// fetch runs detached from any one caller, bounded by its own timeout, so a
// caller that gives up never fails the others; each caller waits only as
// long as its own context allows. Failures are remembered briefly, as the
// typed error the fetch returned, so a failing or slow authority is asked at
// most once per error TTL instead of once per caller.
package softcache

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Defaults applied to zero Options fields.
const (
	DefaultTTL          = 30 * time.Second
	DefaultErrorTTL     = 2 * time.Second
	DefaultMaxEntries   = 1024
	DefaultFetchTimeout = 10 * time.Second
)

// ErrFetchPanic is the cached error of a fetch that panicked.
var ErrFetchPanic = errors.New("softcache: fetch panicked")

// Options bounds a cache. The zero value is usable.
type Options struct {
	// TTL is the longest a fetched value is served; default 30s.
	TTL time.Duration
	// ErrorTTL is how long a failed fetch is remembered and its error
	// returned without asking again; default 2s. Negative: never cached.
	ErrorTTL time.Duration
	// MaxEntries bounds the number of keys held (values and errors);
	// default 1024. When full, expired entries go first, then the entry
	// closest to expiry.
	MaxEntries int
	// FetchTimeout bounds one fetch, whoever waits for it; default 10s.
	FetchTimeout time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Fetch loads the value for a key. ctx is detached from the callers and
// bounded by FetchTimeout. A non-zero expires shortens the entry's life
// below TTL (never lengthens it); an expires not after now is returned to
// the waiting callers but not stored.
type Fetch[V any] func(ctx context.Context) (v V, expires time.Time, err error)

// Cache maps string keys to values of type V. Safe for concurrent use.
type Cache[V any] struct {
	opts    Options
	flights singleflight.Group

	mu      sync.Mutex
	entries map[string]entry[V]
	// inflight is the current fetch per key; Forget marks it so its
	// outcome is not stored. It holds only fetches under way.
	inflight map[string]*flight
}

// flight is one fetch under way.
type flight struct{ forgotten bool }

type entry[V any] struct {
	val     V
	err     error
	expires time.Time
}

// result carries one fetch's outcome through singleflight.
type result[V any] struct {
	val V
	err error
}

// New returns an empty cache bounded by opts.
func New[V any](opts Options) *Cache[V] {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.ErrorTTL == 0 {
		opts.ErrorTTL = DefaultErrorTTL
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.FetchTimeout <= 0 {
		opts.FetchTimeout = DefaultFetchTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cache[V]{opts: opts, entries: map[string]entry[V]{}, inflight: map[string]*flight{}}
}

// Get returns the fresh cached value or error for key, or runs fetch once
// for all concurrent callers of key. A caller whose ctx ends stops waiting
// with ctx.Err(); the fetch goes on for the others and for the cache.
func (c *Cache[V]) Get(ctx context.Context, key string, fetch Fetch[V]) (V, error) {
	if v, err, ok := c.lookup(key); ok {
		return v, err
	}
	if err := ctx.Err(); err != nil {
		var zero V
		return zero, err
	}
	return c.start(ctx, key, fetch).Wait(ctx)
}

// Started is a Start's outcome: what was held for the key, or the fetch
// under way. Wait reads it, once.
type Started[V any] struct {
	val V
	err error
	ch  <-chan singleflight.Result // nil when val and err were held
}

// Start is Get without the waiting: it returns the fresh value or error
// held for key, or runs fetch once for all concurrent callers of key (as
// Get does) and returns at once. The fetch starts whatever ctx's state:
// it runs detached from every caller, so a batch of fetches started in a
// loop all start, however long the loop takes, and each fills the cache
// even when nobody waits for it any more.
func (c *Cache[V]) Start(ctx context.Context, key string, fetch Fetch[V]) Started[V] {
	if v, err, ok := c.lookup(key); ok {
		return Started[V]{val: v, err: err}
	}
	return c.start(ctx, key, fetch)
}

func (c *Cache[V]) start(ctx context.Context, key string, fetch Fetch[V]) Started[V] {
	// The fetch keeps the first caller's values (loggers, request ids) but
	// none of its cancellation.
	detached := context.WithoutCancel(ctx)
	ch := c.flights.DoChan(key, func() (any, error) {
		return c.load(detached, key, fetch), nil
	})
	return Started[V]{ch: ch}
}

// Wait returns the started fetch's outcome, or ctx.Err() when ctx ends
// first (the fetch goes on for the others and for the cache). Call it at
// most once.
func (s Started[V]) Wait(ctx context.Context) (V, error) {
	if s.ch == nil {
		return s.val, s.err
	}
	select {
	case r := <-s.ch:
		res := r.Val.(result[V])
		return res.val, res.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// Peek returns the fresh cached value for key without fetching. ok is
// false when nothing fresh is held; a cached error is returned with ok.
func (c *Cache[V]) Peek(key string) (V, error, bool) { return c.lookup(key) }

// WouldFetch reports whether a Get of key now would start a fetch: nothing
// fresh is held for it (value or remembered error) and no fetch for it is
// under way. Callers that pay per fetch (a rate budget for an authority)
// charge only these; the others share or reuse a fetch already paid for.
func (c *Cache[V]) WouldFetch(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.inflight[key]; f != nil && !f.forgotten {
		return false
	}
	e, ok := c.entries[key]
	return !ok || !c.opts.Now().Before(e.expires)
}

// Forget drops key: the next Get fetches again, and a fetch already in
// flight for it is neither stored nor shared with later callers.
func (c *Cache[V]) Forget(key string) {
	c.mu.Lock()
	delete(c.entries, key)
	if f := c.inflight[key]; f != nil {
		f.forgotten = true
	}
	c.mu.Unlock()
	c.flights.Forget(key)
}

// Len is the number of keys held, fresh or not yet swept.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *Cache[V]) lookup(key string) (V, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, nil, false
	}
	if !c.opts.Now().Before(e.expires) {
		delete(c.entries, key)
		var zero V
		return zero, nil, false
	}
	return e.val, e.err, true
}

// load runs fetch under its own deadline and stores the outcome before
// the flight ends, so no caller can slip between the two and fetch again.
func (c *Cache[V]) load(ctx context.Context, key string, fetch Fetch[V]) result[V] {
	f := &flight{}
	c.mu.Lock()
	c.inflight[key] = f
	c.mu.Unlock()
	v, exp, err := c.run(ctx, fetch)
	now := c.opts.Now()
	limit := now.Add(c.opts.TTL)
	if err != nil {
		var zero V
		v = zero
		limit = now.Add(c.opts.ErrorTTL)
		if c.opts.ErrorTTL < 0 {
			limit = now
		}
	}
	if !exp.IsZero() && exp.Before(limit) {
		limit = exp
	}
	c.finish(key, f, entry[V]{val: v, err: err, expires: limit}, now)
	return result[V]{val: v, err: err}
}

// run calls fetch under FetchTimeout. A panic becomes ErrFetchPanic: the
// fetch runs on singleflight's goroutine, where nothing else would recover.
func (c *Cache[V]) run(ctx context.Context, fetch Fetch[V]) (v V, exp time.Time, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.FetchTimeout)
	defer cancel()
	defer func() {
		if recover() != nil {
			var zero V
			v, exp, err = zero, time.Time{}, ErrFetchPanic
		}
	}()
	return fetch(ctx)
}

// finish ends flight f and stores its outcome unless it was forgotten
// meanwhile or is already expired.
func (c *Cache[V]) finish(key string, f *flight, e entry[V], now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[key] == f {
		delete(c.inflight, key)
	}
	if f.forgotten || !e.expires.After(now) {
		return
	}
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.opts.MaxEntries {
		c.evictLocked(now)
	}
	c.entries[key] = e
}

// evictLocked makes room for one entry: expired entries first, then the
// one that would expire soonest.
func (c *Cache[V]) evictLocked(now time.Time) {
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
	if len(c.entries) >= c.opts.MaxEntries && firstKey != "" {
		delete(c.entries, firstKey)
	}
}
