package rstest

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"time"
)

// recordsPageCursor is the records-session cursor, members in the
// reference's (alphabetical) order. primary_key holds the key values.
type recordsPageCursor struct {
	CursorValue any    `json:"cursor_value"`
	Kind        string `json:"kind"`
	Order       string `json:"order"`
	PrimaryKey  []any  `json:"primary_key"`
	Session     string `json:"session"`
}

// encodePageCursor makes an opaque records cursor after key. It names
// neither stream nor connection, as the reference's does.
func encodePageCursor(k sortKey, order string) string {
	return encodeCursorJSON(recordsPageCursor{CursorValue: k.val, Kind: kindPage, Order: strings.ToUpper(order),
		PrimaryKey: keyValues(k.id), Session: sessionRecords})
}

// keyValues is a canonical key string as primary-key values: a compound
// key's JSON array, else the single value.
func keyValues(id string) []any {
	var parts []any
	if strings.HasPrefix(id, "[") && json.Unmarshal([]byte(id), &parts) == nil {
		return parts
	}
	return []any{id}
}

// keyString is the inverse of keyValues.
func keyString(vals []any) (string, bool) {
	if len(vals) == 1 {
		if s, ok := vals[0].(string); ok {
			return s, true
		}
	}
	b, err := json.Marshal(vals)
	return string(b), err == nil
}

// recordsPosition is the reference's normalizePaginationCursor: a records
// cursor for the request's order.
func recordsPosition(pc *wireCursor, order string) (sortKey, *apiError) {
	var vals []any
	if pc.session() != sessionRecords || json.Unmarshal(pc.PrimaryKey, &vals) != nil || vals == nil {
		return sortKey{}, newErr("invalid_cursor", "", malformedCursor)
	}
	if pc.Order != strings.ToUpper(order) {
		return sortKey{}, newErr("invalid_cursor", "", cursorOrderDiffer)
	}
	id, ok := keyString(vals)
	if !ok {
		return sortKey{}, newErr("invalid_cursor", "", malformedCursor)
	}
	return keyOf(pc.CursorValue, id), nil
}

// admitData reports whether a record's payload lies inside the grant's
// time window and passes the filters, whether or not it is a tombstone (the
// changes feed asks this of a record's last live state).
func admitData(t *target, r *rec, filters []filterClause) bool {
	var p map[string]any
	if t.needsPayload() || len(filters) > 0 {
		p = decodePayload(r.Data)
	}
	if !t.inWindow(p) {
		return false
	}
	for i := range filters {
		if !filters[i].match(p) {
			return false
		}
	}
	return true
}

// admit reports whether a record is visible and passes the filters.
func admit(t *target, r *rec, filters []filterClause) bool {
	return !r.Deleted && admitData(t, r, filters)
}

// pageTarget returns up to limit admitted records strictly after `after`
// in the given order, and whether more exist.
func pageTarget(t *target, order string, after *sortKey, limit int, filters []filterClause) ([]*rec, bool) {
	if t.set == nil {
		return nil, false
	}
	list := t.set.asc
	if order == "desc" {
		list = t.set.desc
	}
	start := 0
	if after != nil {
		less := lessFor(order)
		start = sort.Search(len(list), func(i int) bool { return less(*after, list[i].key) })
	}
	var out []*rec
	for _, r := range list[start:] {
		if !admit(t, r, filters) {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, r)
	}
	return out, false
}

// countTarget counts admitted records (grant-filtered, page-independent).
func countTarget(t *target, filters []filterClause) int {
	if t.set == nil {
		return 0
	}
	n := 0
	for _, r := range t.set.asc {
		if admit(t, r, filters) {
			n++
		}
	}
	return n
}

// windowMeta is meta.window over the consent-time field (window=exact).
func windowMeta(lr *listReq) obj {
	total := 0
	var lo, hi time.Time
	for i := range lr.sc.targets {
		t := &lr.sc.targets[i]
		field := t.info.decl.ConsentTimeField
		if t.set == nil {
			continue
		}
		for _, r := range t.set.asc {
			if !admit(t, r, lr.filters) {
				continue
			}
			total++
			if field == "" {
				continue
			}
			s, _ := decodePayload(r.Data)[field].(string)
			if at, ok := parseTime(s); ok {
				if lo.IsZero() || at.Before(lo) {
					lo = at
				}
				if at.After(hi) {
					hi = at
				}
			}
		}
	}
	w := obj{{"total", total}}
	if !lo.IsZero() {
		w = append(w, kv{"earliest_at", rfc3339ms(lo)}, kv{"latest_at", rfc3339ms(hi)})
	}
	return w
}

// recordItem renders one record envelope with its projected payload.
func (s *Server) recordItem(t *target, r *rec, keep func(string) bool) obj {
	o := obj{{"object", "record"}, {"id", r.ID}, {"stream", r.Stream},
		{"data", json.RawMessage(projectRaw(r.Data, keep))}, {"emitted_at", rfc3339ms(r.EmittedAt)},
		{"connection_id", t.conn.ID}, {"connector_instance_id", t.conn.ID}}
	if t.conn.DisplayName != "" {
		o = append(o, kv{"display_name", t.conn.DisplayName})
	}
	return o
}

// finishList adds links (self + next) and returns the body.
func (s *Server) finishList(c *call, body obj, next string) obj {
	var n any
	if next != "" {
		n = c.r.URL.Path + "?" + next
	}
	body = append(body, kv{"links", obj{{"self", c.r.URL.RequestURI()}, {"next", n}}})
	return ensureMeta(body)
}

// finish adds links.self and default meta to a non-list body.
func (s *Server) finish(c *call, body obj) obj {
	body = append(body, kv{"links", obj{{"self", c.r.URL.RequestURI()}}})
	return ensureMeta(body)
}

// ensureMeta adds the default meta (count none, no warnings) when absent.
func ensureMeta(body obj) obj {
	if _, ok := body.get("meta"); !ok {
		body = append(body, kv{"meta", obj{{"count", obj{{"kind", "none"}}}, {"warnings", []any{}}}})
	}
	return body
}

// withParam returns raw with every `name` parameter replaced by value.
func withParam(raw, name, value string) string {
	var keep []string
	for _, p := range strings.Split(raw, "&") {
		k, _, _ := strings.Cut(p, "=")
		if dk, err := url.QueryUnescape(k); p == "" || (err == nil && dk == name) {
			continue
		}
		keep = append(keep, p)
	}
	keep = append(keep, url.QueryEscape(name)+"="+url.QueryEscape(value))
	return strings.Join(keep, "&")
}

// nonNil keeps empty warning lists as [] rather than null.
func nonNil(ws []any) []any {
	if ws == nil {
		return []any{}
	}
	return ws
}
