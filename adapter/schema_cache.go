package adapter

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/bearer"
	"github.com/pdpp/pdpp-mcp/internal/softcache"
	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// Soft-state bounds of the RS document caches.
const (
	// schemaCacheEntries bounds the grants whose schema is held at once.
	schemaCacheEntries = 1024
	// schemaErrorTTL is how long a failed schema read is answered from
	// memory: a failing RS is asked once per grant per this period, not
	// once per call.
	schemaErrorTTL = 2 * time.Second
	// prmTTL and prmErrorTTL: the RS's public metadata changes rarely; a
	// failure is retried after a short pause.
	prmTTL      = 5 * time.Minute
	prmErrorTTL = 10 * time.Second
	// docFetchTimeout bounds one RS document fetch, whoever waits for it.
	docFetchTimeout = rsclient.DefaultTimeout
)

// schemaCache holds each grant's parsed compact schema document, keyed by
// the token hash and never shared across tokens.
//
// Beside it, last keeps each grant's last good document for lastGoodTTL:
// while a refresh fails, routing still knows the grant's streams (the call
// then carries a source_unavailable warning) instead of answering
// unknown_stream for a stream that exists.
type schemaCache struct {
	c    *softcache.Cache[*schemaindex.Doc]
	last *softcache.Cache[*schemaindex.Doc]
	// names keeps each grant's id and label from its last readable schema
	// for a day, so a grant that stops reading (revoked, expired) is
	// named in warnings long after its schema stopped routing.
	names *softcache.Cache[grantName]
}

// grantNameTTL bounds how long a grant is named from an old schema.
const grantNameTTL = 24 * time.Hour

// grantName is how warnings name a grant: the RS's grant id and a label
// made of its connections' names.
type grantName struct{ ID, Label string }

// lastGoodTTL bounds how long a grant's last readable schema keeps routing
// its streams after refreshes start failing.
const lastGoodTTL = 15 * time.Minute

func newSchemaCache(ttl time.Duration, max int, now func() time.Time) *schemaCache {
	return &schemaCache{
		c: softcache.New[*schemaindex.Doc](softcache.Options{
			TTL: ttl, ErrorTTL: schemaErrorTTL, MaxEntries: max, FetchTimeout: docFetchTimeout, Now: now,
		}),
		last: softcache.New[*schemaindex.Doc](softcache.Options{
			TTL: lastGoodTTL, ErrorTTL: -1, MaxEntries: max, Now: now,
		}),
		names: softcache.New[grantName](softcache.Options{
			TTL: grantNameTTL, ErrorTTL: -1, MaxEntries: max, Now: now,
		}),
	}
}

// get returns the grant's parsed compact schema. Concurrent callers of one
// grant share one RS call; each waits only as long as its own ctx allows.
func (c *schemaCache) get(ctx context.Context, rs rsReads, g Grant) (*schemaindex.Doc, error) {
	doc, err := c.c.Get(ctx, g.Key, func(ctx context.Context) (*schemaindex.Doc, time.Time, error) {
		doc, err := fetchSchema(ctx, rs, g)
		return doc, time.Time{}, err
	})
	if last, _, _ := c.last.Peek(g.Key); err == nil && last != doc {
		// A newly read document becomes the grant's last good one.
		c.last.Forget(g.Key)
		_, _ = c.last.Get(context.WithoutCancel(ctx), g.Key, func(context.Context) (*schemaindex.Doc, time.Time, error) {
			return doc, time.Time{}, nil
		})
		c.names.Forget(g.Key)
		_, _ = c.names.Get(context.WithoutCancel(ctx), g.Key, func(context.Context) (grantName, time.Time, error) {
			labels := schemaindex.Merge(doc).GrantLabels(g.Key)
			return grantName{ID: doc.Bearer.GrantID, Label: truncateBytes(strings.Join(labels, ", "), maxGrantLabel)}, time.Time{}, nil
		})
	}
	return doc, err
}

// name is how the grant was last known; zero when it never read.
func (c *schemaCache) name(key string) grantName {
	n, _, _ := c.names.Peek(key)
	return n
}

// maxGrantLabel bounds a grant's label in a warning.
const maxGrantLabel = 80

// describe names grant i of n for a warning: by id and label when it was
// ever read, else by its position.
func (n grantName) describe(i, total int) string {
	switch {
	case n.ID != "" && n.Label != "":
		return fmt.Sprintf("grant %s (%s)", n.ID, n.Label)
	case n.ID != "":
		return "grant " + n.ID
	}
	return fmt.Sprintf("grant %d of %d (never read, so unnamed)", i+1, total)
}

// lastGood returns the grant's last successfully read schema while it is
// younger than lastGoodTTL, else nil. It never calls the RS.
func (c *schemaCache) lastGood(key string) *schemaindex.Doc {
	doc, _, _ := c.last.Peek(key)
	return doc
}

// forget drops a grant's schema, fresh and last good (its credential was
// replaced, or the RS refused a name the schema listed).
func (c *schemaCache) forget(g Grant) {
	c.c.Forget(g.Key)
	c.last.Forget(g.Key)
}

func fetchSchema(ctx context.Context, rs rsReads, g Grant) (*schemaindex.Doc, error) {
	body, _, err := rs.Schema(ctx, g.Bearer, rsclient.SchemaQuery{View: "compact"})
	if err != nil {
		return nil, err
	}
	doc, err := schemaindex.Parse(body, schemaindex.Source{GrantKey: g.Key})
	if err != nil {
		return nil, err
	}
	if !bearer.Served(doc.Bearer.TokenKind) {
		// Owner (or unknown) authority is refused everywhere, not only at
		// the hosted door: a stdio cache entry may be mislabelled.
		return nil, errOwnerToken
	}
	return doc, nil
}

// prmCache remembers the RS's protected-resource metadata (search modes,
// authorization servers). It is not per token: the document is public.
type prmCache struct {
	c *softcache.Cache[*rsclient.ProtectedResourceMetadata]
}

func newPRMCache(ttl time.Duration, now func() time.Time) *prmCache {
	return &prmCache{c: softcache.New[*rsclient.ProtectedResourceMetadata](softcache.Options{
		TTL: ttl, ErrorTTL: prmErrorTTL, MaxEntries: 1, FetchTimeout: docFetchTimeout, Now: now,
	})}
}

// get returns the metadata; concurrent callers share one RS call and each
// waits only as long as its own ctx allows.
func (c *prmCache) get(ctx context.Context, rs rsReads) (*rsclient.ProtectedResourceMetadata, error) {
	return c.c.Get(ctx, "prm", prmFetch(rs))
}

// prefetch starts reading the metadata when it is not held (or being
// read) and returns at once: a call that will need it later reads it
// beside its other reads, and get then joins that read.
func (c *prmCache) prefetch(ctx context.Context, rs rsReads) {
	if c.c.WouldFetch("prm") {
		c.c.Start(ctx, "prm", prmFetch(rs))
	}
}

func prmFetch(rs rsReads) softcache.Fetch[*rsclient.ProtectedResourceMetadata] {
	return func(ctx context.Context) (*rsclient.ProtectedResourceMetadata, time.Time, error) {
		doc, _, err := rs.ProtectedResourceMetadata(ctx)
		return doc, time.Time{}, err
	}
}

// errOwnerToken refuses a bearer whose RS schema reports non-client
// authority (owner or control-plane).
var errOwnerToken = newAdapterError("owner_token_refused",
	"this credential is not a grant-scoped client token; owner and control-plane tokens are refused")
