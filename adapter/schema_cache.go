package adapter

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// schemaCache holds each grant's compact schema document: soft state keyed
// by the token hash, bounded in entries, short-lived, never shared across
// tokens. Concurrent misses for one grant share a single RS call.
type schemaCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	max     int
	now     func() time.Time
	entries map[string]*schemaEntry
}

type schemaEntry struct {
	ready   chan struct{}
	doc     *schemaindex.Doc
	err     error
	fetched time.Time
}

func newSchemaCache(ttl time.Duration, max int, now func() time.Time) *schemaCache {
	return &schemaCache{ttl: ttl, max: max, now: now, entries: map[string]*schemaEntry{}}
}

// get returns the grant's parsed compact schema, fetching it when absent or
// stale. Errors are not cached beyond the in-flight call.
func (c *schemaCache) get(ctx context.Context, rs *rsclient.Client, g Grant) (*schemaindex.Doc, error) {
	c.mu.Lock()
	e, ok := c.entries[g.Key]
	if ok {
		select {
		case <-e.ready:
			if e.err != nil || c.now().Sub(e.fetched) > c.ttl {
				ok = false
			}
		default: // in flight: wait below
		}
	}
	if !ok {
		e = &schemaEntry{ready: make(chan struct{})}
		c.evictLocked()
		c.entries[g.Key] = e
		c.mu.Unlock()
		e.doc, e.err = fetchSchema(ctx, rs, g)
		e.fetched = c.now()
		close(e.ready)
		if e.err != nil {
			c.mu.Lock()
			if c.entries[g.Key] == e {
				delete(c.entries, g.Key)
			}
			c.mu.Unlock()
		}
		return e.doc, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.ready:
		return e.doc, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// evictLocked drops expired entries, then the oldest, to stay under max.
func (c *schemaCache) evictLocked() {
	if len(c.entries) < c.max {
		return
	}
	var oldestKey string
	var oldest time.Time
	for k, e := range c.entries {
		select {
		case <-e.ready:
		default:
			continue
		}
		if c.now().Sub(e.fetched) > c.ttl {
			delete(c.entries, k)
			continue
		}
		if oldestKey == "" || e.fetched.Before(oldest) {
			oldestKey, oldest = k, e.fetched
		}
	}
	if len(c.entries) >= c.max && oldestKey != "" {
		delete(c.entries, oldestKey)
	}
}

func fetchSchema(ctx context.Context, rs *rsclient.Client, g Grant) (*schemaindex.Doc, error) {
	body, _, err := rs.Schema(ctx, g.Bearer, rsclient.SchemaQuery{View: "compact"})
	if err != nil {
		return nil, err
	}
	doc, err := schemaindex.Parse(body, schemaindex.Source{GrantKey: g.Key})
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(doc.Bearer.TokenKind, "client") {
		// Owner (or unknown) authority is refused everywhere, not only at
		// the hosted door: a stdio cache entry may be mislabelled.
		return nil, errOwnerToken
	}
	return doc, nil
}

// prmCache remembers the RS's protected-resource metadata (search modes).
// It is not per token: the document is public.
type prmCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	now     func() time.Time
	doc     *rsclient.ProtectedResourceMetadata
	fetched time.Time
}

func newPRMCache(ttl time.Duration, now func() time.Time) *prmCache {
	return &prmCache{ttl: ttl, now: now}
}

func (c *prmCache) get(ctx context.Context, rs *rsclient.Client) (*rsclient.ProtectedResourceMetadata, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.doc != nil && c.now().Sub(c.fetched) <= c.ttl {
		return c.doc, nil
	}
	doc, _, err := rs.ProtectedResourceMetadata(ctx)
	if err != nil {
		return nil, err
	}
	c.doc, c.fetched = doc, c.now()
	return doc, nil
}

// errOwnerToken refuses a bearer whose RS schema reports non-client
// authority (owner or control-plane).
var errOwnerToken = newAdapterError("owner_token_refused",
	"this credential is not a grant-scoped client token; owner and control-plane tokens are refused")
