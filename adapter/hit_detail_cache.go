package adapter

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/softcache"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// A hit's title and event time come from one projected record read each
// (hit_details.go). Paging a search, asking again, or a second search
// that finds the same records would read them again: the projected
// payload is kept, per grant token and record, for hitDetailTTL. Soft
// state as the design allows it: keyed by a hash of the token (never
// shared across tokens), bounded, short-lived; a title or a sent time
// rarely changes, and when it does the page shows it within the TTL.
const (
	hitDetailTTL     = 5 * time.Minute
	hitDetailEntries = 4096
)

// hitDetailCache keeps the projected payloads hits were titled from.
type hitDetailCache struct {
	c *softcache.Cache[json.RawMessage]
}

func newHitDetailCache(now func() time.Time) *hitDetailCache {
	return &hitDetailCache{c: softcache.New[json.RawMessage](softcache.Options{
		TTL: hitDetailTTL, ErrorTTL: -1, MaxEntries: hitDetailEntries, FetchTimeout: hitDetailBudget, Now: now,
	})}
}

// read is hit h's record projected to fields, from the cache or the RS.
// Concurrent reads of one record share one RS call.
func (s *Server) readHitDetail(ctx context.Context, h *searchHit, fields []string) (json.RawMessage, error) {
	key := strings.Join(append([]string{h.grant.Key, h.ConnectionID, h.Ref.Stream, h.Ref.RecordID}, fields...), "\x00")
	return s.hitDetails.c.Get(ctx, key, func(ctx context.Context) (json.RawMessage, time.Time, error) {
		rec, _, err := s.rs.Record(ctx, h.grant.Bearer, rsclient.RecordQuery{Stream: h.Ref.Stream, RecordID: h.Ref.RecordID,
			ConnectionID: h.ConnectionID, Fields: fields})
		if err != nil {
			return nil, time.Time{}, err
		}
		return rec.Data, time.Time{}, nil
	})
}
