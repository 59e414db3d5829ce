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

// hitDetailCache keeps what hits were titled from: the title and event
// time text of each record's projected payload, decoded once when read.
type hitDetailCache struct {
	c *softcache.Cache[hitDetail]
}

// hitDetail is one record's title and event-time text as a hit shows
// them ("" when the record has none).
type hitDetail struct {
	title, time string
}

func newHitDetailCache(now func() time.Time) *hitDetailCache {
	return &hitDetailCache{c: softcache.New[hitDetail](softcache.Options{
		TTL: hitDetailTTL, ErrorTTL: -1, MaxEntries: hitDetailEntries, FetchTimeout: docFetchTimeout, Now: now,
	})}
}

// hitDetailKey is the cache key of hit h's record read for want: the
// token's key, the record, the fields asked.
func hitDetailKey(h *searchHit, want hitFields) string {
	return strings.Join([]string{h.grant.Key, h.ConnectionID, h.Ref.Stream, h.Ref.RecordID, want.title, want.time}, "\x00")
}

// hitDetailRead is one hit's title and event-time read: the cache key
// and what the RS call needs, copied from the hit, so a read that
// outlives its page never touches the page.
type hitDetailRead struct {
	key, bearer string
	want        hitFields
	q           rsclient.RecordQuery
}

// newHitDetailRead is hit h's read of the fields want names.
func newHitDetailRead(h *searchHit, want hitFields) hitDetailRead {
	return hitDetailRead{key: hitDetailKey(h, want), bearer: h.grant.Bearer, want: want,
		q: rsclient.RecordQuery{Stream: h.Ref.Stream, RecordID: h.Ref.RecordID, ConnectionID: h.ConnectionID, Fields: want.names()}}
}

// startHitDetail starts reading r (or finds it in the cache) and returns
// at once; Wait on the result waits for it. Concurrent reads of one
// record share one RS call.
//
// The read runs detached from the page (softcache.Start): it starts
// whatever ctx's state, a page that stops waiting at its title budget
// leaves it running, and its answer still fills the cache for the next
// page; nothing waits for it then. It waits for a slot of the
// process's refining-read limit inside that detached fetch, so the slot
// is the one RS call's, whichever pages wait for it, and a read queued
// behind other users' titles is not dropped with the page either; the
// cache's FetchTimeout bounds the wait and the read together.
func (s *Server) startHitDetail(ctx context.Context, r hitDetailRead) softcache.Started[hitDetail] {
	return s.hitDetails.c.Start(ctx, r.key, func(ctx context.Context) (hitDetail, time.Time, error) {
		if s.titleReadDone != nil {
			defer s.titleReadDone()
		}
		release, err := s.refining.Acquire(ctx)
		if err != nil {
			return hitDetail{}, time.Time{}, err
		}
		rec, _, err := s.rs.Record(ctx, r.bearer, r.q)
		release()
		if err != nil {
			return hitDetail{}, time.Time{}, err
		}
		return decodeHitDetail(rec.Data, r.want), time.Time{}, nil
	})
}

// decodeHitDetail is the title and event-time text of a projected
// payload; a payload that is not an object gives neither. The strings are
// copies: the cache never holds on to an RS answer's body.
func decodeHitDetail(data json.RawMessage, want hitFields) hitDetail {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return hitDetail{}
	}
	var d hitDetail
	if want.time != "" {
		d.time = scalarText(m[want.time])
	}
	if want.title != "" {
		d.title = scalarText(m[want.title])
	}
	return d
}
