package rstest

import (
	"sort"
	"strings"
	"time"
)

// changesReq is a changes-feed request after cursor decoding: the session's
// since version, the version the page starts after, and the session's
// high-water mark (-1 means "the current version counter": a fresh
// changes_since read opens a new session).
type changesReq struct {
	since, after, max int
}

// changesRequest decides whether a /records read is a changes feed, as the
// reference does: a changes_since parameter wins over any cursor; otherwise
// a cursor of session "changes" continues its session.
func changesRequest(cs string, hasCS bool, pc *wireCursor) (*changesReq, bool, *apiError) {
	if hasCS {
		v, ok := parseChangesSince(cs)
		if !ok {
			return nil, false, newErr("invalid_cursor", "", malformedChanges)
		}
		return &changesReq{since: v, after: v, max: -1}, true, nil
	}
	if pc == nil || pc.session() != sessionChanges {
		return nil, false, nil
	}
	since, ok1 := jsonInt(pc.SinceVersion)
	after, ok2 := jsonInt(pc.AfterVersion)
	max, ok3 := jsonInt(pc.SessionMaxVersion)
	if !ok1 || !ok2 || !ok3 {
		return nil, false, newErr("invalid_cursor", "", malformedChanges)
	}
	return &changesReq{since: since, after: after, max: max}, true, nil
}

// changes serves the incremental feed of /records?changes_since= and its
// changes-session cursors. A page with more to come carries next_cursor
// (continues this session) and, like every changes page,
// next_changes_since: the session's high-water mark, which skips whatever
// the session has not yet returned.
func (s *Server) changes(c *call, lr *listReq, cr *changesReq) (obj, *apiError) {
	if err := changesUnsupported(c.q, lr); err != nil {
		return nil, err
	}
	t := &lr.sc.targets[0]
	set := t.set
	if set == nil {
		set = &recordSet{}
	}
	max := cr.max
	if max < 0 {
		max = set.maxVersion
	}
	if err := s.changesExpired(set, cr.since); err != nil {
		return nil, err
	}
	items, lastV, hasMore := s.changesPage(t, set, cr, max, lr)
	body := obj{{"data", items}, {"has_more", hasMore}, {"object", "list"}}
	next := ""
	if hasMore {
		cur := encodeChangesPage(cr.since, lastV, max)
		body = append(body, kv{"next_cursor", cur})
		next = changesNextQuery(c.r.URL.RawQuery, cur, encodeChangesSince(max))
	}
	body = append(body, kv{"next_changes_since", encodeChangesSince(max)},
		kv{"meta", obj{{"count", obj{{"kind", "none"}}}, {"warnings", nonNil(lr.warnings)}}}, kv{"url", c.r.URL.Path})
	return s.finishList(c, body, next), nil
}

// changesUnsupported refuses what a changes feed cannot honour, in the
// reference's order: ordering/counting parameters (all named in one
// message), expand, then a fan-in across connections.
func changesUnsupported(q *query, lr *listReq) *apiError {
	var bad []string
	for _, p := range []string{"sort", "count", "order", "window"} {
		if v, ok := q.one(p); ok && v != "" {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		verb := "is"
		if len(bad) > 1 {
			verb = "are"
		}
		return newErr("invalid_request", "", "%s %s not supported with changes_since", strings.Join(bad, ", "), verb)
	}
	if len(lr.expand) > 0 {
		return newErr("invalid_expand", "", "expand is not supported with changes_since")
	}
	if len(lr.sc.targets) > 1 {
		return newErr("invalid_argument", "changes_since",
			"`changes_since` is not supported across multiple connections. Retry with `connection_id` to bind the cursor to a single connection.").
			with("available_connections", availableConnections(lr.sc.targets)).with("retry_with", "connection_id")
	}
	return nil
}

// changesExpired reports cursor_expired when retention is on and since
// predates the oldest version still retained.
func (s *Server) changesExpired(set *recordSet, since int) *apiError {
	if s.opts.ChangesRetention <= 0 {
		return nil
	}
	if minV := set.minRetainedVersion(s.opts.Now().Add(-s.opts.ChangesRetention)); minV > 0 && since < minV-1 {
		return newErr("cursor_expired", "", "changes_since cursor is too old; full re-sync required")
	}
	return nil
}

// changesPage collects up to lr.limit visible change groups after
// cr.after and up to max; it returns them (never nil), the version of the
// last one, and whether another visible group follows within max.
func (s *Server) changesPage(t *target, set *recordSet, cr *changesReq, max int, lr *listReq) ([]obj, int, bool) {
	items, lastV := []obj{}, 0
	list := set.changes
	start := sort.Search(len(list), func(i int) bool { return list[i].latestV() > cr.after })
	for _, r := range list[start:] {
		if r.latestV() > max {
			break
		}
		item := s.changeItem(t, r, cr.since, lr)
		if item == nil {
			continue
		}
		if len(items) == lr.limit {
			return items, lastV, true
		}
		items = append(items, item)
		lastV = r.latestV()
	}
	return items, lastV, false
}

// changeItem renders one change group relative to the session's since
// version, or nil when the reference would skip it: a tombstone of a record
// the client could not see at since, or a record it cannot see now.
func (s *Server) changeItem(t *target, r *rec, since int, lr *listReq) obj {
	if r.snapshot(r.latestV()) == snapDeleted {
		if r.snapshot(since) != snapLive || !admitData(t, r, lr.filters) {
			return nil
		}
		o := obj{{"object", "record"}, {"id", r.ID}, {"stream", r.Stream}, {"deleted", true},
			{"deleted_at", rfc3339ms(r.deletedAt())}, {"emitted_at", rfc3339ms(r.EmittedAt)},
			{"connection_id", t.conn.ID}, {"connector_instance_id", t.conn.ID}}
		if t.conn.DisplayName != "" {
			o = append(o, kv{"display_name", t.conn.DisplayName})
		}
		return o
	}
	if !admitData(t, r, lr.filters) {
		return nil
	}
	return s.recordItem(t, r, lr.keep)
}

// deletedAt is the tombstone time (its emission time when unset).
func (r *rec) deletedAt() time.Time {
	if r.DeletedAt.Before(r.EmittedAt) {
		return r.EmittedAt
	}
	return r.DeletedAt
}

// changesNextQuery is the reference's links.next for a changes page: the
// request's parameters without cursor and changes_since, then the new
// cursor and the session's next_changes_since. (Following it verbatim
// re-opens at the high-water mark, because changes_since wins.)
func changesNextQuery(raw, cursor, since string) string {
	return withParam(withParam(raw, "cursor", cursor), "changes_since", since)
}
