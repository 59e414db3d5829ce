package adapter

import (
	"context"
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
	// prmWait bounds how long a tool waits for the metadata it only uses
	// to list search modes; the fetch goes on and fills the cache for
	// later calls.
	prmWait = 2 * time.Second
	// docFetchTimeout bounds one RS document fetch, whoever waits for it.
	docFetchTimeout = rsclient.DefaultTimeout
)

// schemaCache holds each grant's parsed compact schema document, keyed by
// the token hash and never shared across tokens.
type schemaCache struct {
	c *softcache.Cache[*schemaindex.Doc]
}

func newSchemaCache(ttl time.Duration, max int, now func() time.Time) *schemaCache {
	return &schemaCache{c: softcache.New[*schemaindex.Doc](softcache.Options{
		TTL: ttl, ErrorTTL: schemaErrorTTL, MaxEntries: max, FetchTimeout: docFetchTimeout, Now: now,
	})}
}

// get returns the grant's parsed compact schema. Concurrent callers of one
// grant share one RS call; each waits only as long as its own ctx allows.
func (c *schemaCache) get(ctx context.Context, rs *rsclient.Client, g Grant) (*schemaindex.Doc, error) {
	return c.c.Get(ctx, g.Key, func(ctx context.Context) (*schemaindex.Doc, time.Time, error) {
		doc, err := fetchSchema(ctx, rs, g)
		return doc, time.Time{}, err
	})
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
func (c *prmCache) get(ctx context.Context, rs *rsclient.Client) (*rsclient.ProtectedResourceMetadata, error) {
	return c.c.Get(ctx, "prm", func(ctx context.Context) (*rsclient.ProtectedResourceMetadata, time.Time, error) {
		doc, _, err := rs.ProtectedResourceMetadata(ctx)
		return doc, time.Time{}, err
	})
}

// errOwnerToken refuses a bearer whose RS schema reports non-client
// authority (owner or control-plane).
var errOwnerToken = newAdapterError("owner_token_refused",
	"this credential is not a grant-scoped client token; owner and control-plane tokens are refused")
