package rstest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"time"
)

// maxCursorBytes bounds opaque cursor input.
const maxCursorBytes = 4096

// pageCursor is the decoded form of a record-page cursor. The reference
// encodes the same members; stream and connection bind it to its list.
type pageCursor struct {
	ConnectionID string   `json:"connection_id"`
	CursorValue  any      `json:"cursor_value"`
	Kind         string   `json:"kind"`
	Order        string   `json:"order"`
	PrimaryKey   []string `json:"primary_key"`
	Session      string   `json:"session"`
	Stream       string   `json:"stream"`
}

// encodePageCursor makes an opaque standard-base64 cursor after key.
func encodePageCursor(k sortKey, order, stream, conn string) string {
	b, _ := json.Marshal(pageCursor{ConnectionID: conn, CursorValue: k.val, Kind: "page",
		Order: strings.ToUpper(order), PrimaryKey: []string{k.id}, Session: "records", Stream: stream})
	return base64.StdEncoding.EncodeToString(b)
}

// decodePageCursor validates a cursor for this list and direction.
func decodePageCursor(raw, order, stream, conn string) (sortKey, *apiError) {
	bad := func(why string) (sortKey, *apiError) {
		return sortKey{}, newErr("invalid_cursor", "cursor", "Invalid cursor: %s", why)
	}
	if raw == "" || len(raw) > maxCursorBytes {
		return bad("empty or too long")
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return bad("not base64")
	}
	var pc pageCursor
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&pc); err != nil || pc.Kind != "page" || pc.Session != "records" || len(pc.PrimaryKey) != 1 {
		return bad("malformed")
	}
	if pc.Stream != stream || pc.ConnectionID != conn {
		return bad("issued for a different stream or connection")
	}
	if !strings.EqualFold(pc.Order, order) {
		return bad("issued for order=" + strings.ToLower(pc.Order) + "; reuse it with the same order/sort")
	}
	return keyOf(pc.CursorValue, pc.PrimaryKey[0]), nil
}

// admit reports whether a record is visible and passes the filters.
func admit(t *target, r *rec, filters []filterClause) bool {
	var p map[string]any
	if t.needsPayload() || len(filters) > 0 {
		p = decodePayload(r.Data)
	}
	if !t.visible(r, p) {
		return false
	}
	for i := range filters {
		if !filters[i].match(p) {
			return false
		}
	}
	return true
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
