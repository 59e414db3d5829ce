package rstest

import (
	"strconv"
	"strings"
)

// recordsAllowed is the /records query allowlist (§2.4).
var recordsAllowed = []string{"changes_since", "connection_id", "connector_id", "connector_instance_id",
	"count", "cursor", "expand", "expand_limit", "fields", "filter", "limit", "order", "sort",
	"subject_id", "view", "window"}

// Page-size bounds shared by records and search.
const (
	defaultLimit = 25
	maxLimit     = 100
)

// listReq is a validated /records request.
type listReq struct {
	sc       *scope
	limit    int
	order    string // asc|desc
	orderSet bool
	sortSet  bool
	count    string
	window   string
	keep     func(string) bool
	filters  []filterClause
	expand   []expandReq
	warnings []any
}

// records serves GET /v1/streams/{stream}/records.
func (s *Server) records(c *call, stream string) (obj, *apiError) {
	lr, err := s.parseList(c, stream)
	if err != nil {
		return nil, err
	}
	var pc *wireCursor
	if raw, ok := c.q.one("cursor"); ok {
		if pc, ok = parsePageCursor(raw); !ok {
			return nil, newErr("invalid_cursor", "", malformedCursor)
		}
	}
	cs, hasCS := c.q.one("changes_since")
	cr, isChanges, cerr := changesRequest(cs, hasCS, pc)
	if cerr != nil {
		return nil, cerr
	}
	if isChanges {
		return s.changes(c, lr, cr)
	}
	var after *sortKey
	if pc != nil {
		if len(lr.sc.targets) != 1 {
			return nil, newErr("invalid_cursor", "cursor", "cursor is not valid under multi-connection fan-in; retry with connection_id")
		}
		k, perr := recordsPosition(pc, lr.order)
		if perr != nil {
			return nil, perr
		}
		after = &k
	}
	var items []obj
	hasMore := false
	total := 0
	var last *rec
	type got struct {
		t *target
		r *rec
	}
	var all []got
	for i := range lr.sc.targets {
		t := &lr.sc.targets[i]
		page, more := pageTarget(t, lr.order, after, lr.limit, lr.filters)
		hasMore = hasMore || more
		for _, r := range page {
			all = append(all, got{t, r})
		}
		if lr.count != "none" {
			total += countTarget(t, lr.filters)
		}
	}
	// A fan-in page is each connection's page in turn, not one merged
	// order (captures 0091, 0095, 0156).
	for _, g := range all {
		item := s.recordItem(g.t, g.r, lr.keep)
		if len(lr.expand) > 0 {
			item = append(item, kv{"expanded", s.expandRecord(g.t, g.r, lr.expand)})
		}
		items = append(items, item)
		last = g.r
	}
	if items == nil {
		items = []obj{}
	}
	body := obj{{"data", items}, {"has_more", hasMore}, {"object", "list"}}
	next := ""
	fanIn := len(lr.sc.targets) > 1
	if hasMore && !fanIn && last != nil {
		cur := encodePageCursor(last.key, lr.order)
		body = append(body, kv{"next_cursor", cur})
		next = withParam(c.r.URL.RawQuery, "cursor", cur)
	}
	if hasMore && fanIn {
		lr.warnings = append(lr.warnings, warning("partial_results", "connection_id", nil,
			"has_more=true and next_cursor is not emitted under multi-connection fan-in. Retry with `connection_id` to page a single connection."))
	}
	var count any = obj{{"kind", "none"}}
	if lr.count != "none" {
		count = obj{{"kind", "exact"}, {"value", total}}
	}
	meta := obj{{"count", count}, {"warnings", nonNil(lr.warnings)}}
	if lr.window == "exact" {
		meta = append(meta, kv{"window", windowMeta(lr)})
	}
	body = append(body, kv{"meta", meta}, kv{"url", c.r.URL.Path})
	return s.finishList(c, body, next), nil
}

// parseList validates every /records parameter except cursor and
// changes_since, in the reference's order: allowlist, client gate, scope.
func (s *Server) parseList(c *call, stream string) (*listReq, *apiError) {
	q := c.q
	if err := q.checkAllowed(recordsAllowed...); err != nil {
		return nil, err
	}
	if !c.p.owner {
		if err := q.rejectClientExtras(); err != nil {
			return nil, err
		}
	}
	sc, err := s.streamScope(c, stream)
	if err != nil {
		return nil, err
	}
	lr := &listReq{sc: sc, order: "desc", count: "none", window: "none", warnings: sc.warnings}
	var w any
	lr.limit, w = parseLimit(q, "limit")
	if w != nil {
		lr.warnings = append(lr.warnings, w)
	}
	t := &sc.targets[0]
	if err := lr.parseOrder(q, t.info); err != nil {
		return nil, err
	}
	if v, ok := q.one("count"); ok {
		if v != "none" && v != "estimated" && v != "exact" {
			return nil, newErr("invalid_request", "count", "count must be one of none, estimated, exact")
		}
		lr.count = v
	}
	if v, ok := q.one("window"); ok {
		if v != "none" && v != "exact" {
			return nil, newErr("invalid_request", "window", "window must be one of none, exact")
		}
		lr.window = v
	}
	if lr.keep, err = parseProjection(q, t); err != nil {
		return nil, err
	}
	if lr.filters, err = parseFilters(q, t); err != nil {
		return nil, err
	}
	if lr.expand, err = s.parseExpand(c, t); err != nil {
		return nil, err
	}
	return lr, nil
}

// parseLimit applies the default-25, clamp-at-100 rule (§2.4, §2.8).
func parseLimit(q *query, name string) (int, any) {
	v, ok := q.one(name)
	if !ok {
		return defaultLimit, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return defaultLimit, nil
	}
	if n > maxLimit {
		return maxLimit, warning("limit_clamped", name, obj{{"requested_limit", n}, {"max_limit", maxLimit}},
			"Requested limit="+strconv.Itoa(n)+" exceeds the maximum page size of 100; returned 100 records per page. Page forward with the returned cursor.")
	}
	return n, nil
}

// parseOrder validates order and sort; sort may only name cursor_field.
func (lr *listReq) parseOrder(q *query, info *streamInfo) *apiError {
	if v, ok := q.one("order"); ok {
		v = strings.ToLower(strings.TrimSpace(v))
		if v != "asc" && v != "desc" {
			return newErr("invalid_request", "order", "order must be asc or desc")
		}
		lr.order, lr.orderSet = v, true
	}
	if !q.has("sort") {
		return nil
	}
	lr.sortSet = true
	dir := ""
	toks := q.list("sort")
	if len(toks) == 0 {
		return newErr("invalid_sort", "sort", "sort must name the stream's cursor field")
	}
	for _, tok := range toks {
		d, f := "asc", tok
		if strings.HasPrefix(tok, "-") {
			d, f = "desc", tok[1:]
		}
		if f == "" || f != info.decl.CursorField {
			return newErr("invalid_sort", "sort", "Sort field '%s' is not advertised as sortable; check /v1/schema for the canonical sort vocabulary.", f)
		}
		if dir != "" && dir != d {
			return newErr("invalid_sort", "sort", "sort directions conflict")
		}
		dir = d
	}
	if lr.orderSet && lr.order != dir {
		return newErr("invalid_sort", "sort", "sort direction disagrees with order=%s", lr.order)
	}
	lr.order = dir
	return nil
}

// parseProjection turns fields/view into a keep predicate (grant-intersected).
func parseProjection(q *query, t *target) (func(string) bool, *apiError) {
	var want map[string]bool
	if q.has("fields") {
		want = map[string]bool{}
		for _, f := range q.list("fields") {
			if t.info.propIdx[f] == nil {
				return nil, newErr("unknown_field", "fields", "Unknown field '%s' for stream '%s'", f, t.info.decl.Name)
			}
			want[f] = true
		}
	}
	if v, ok := q.one("view"); ok {
		if want != nil {
			return nil, newErr("invalid_request", "view", "view and fields cannot be combined")
		}
		var found *View
		for i := range t.info.decl.Views {
			if t.info.decl.Views[i].ID == v {
				found = &t.info.decl.Views[i]
			}
		}
		if found == nil {
			return nil, newErr("invalid_request", "view", "Unknown view '%s' for stream '%s'", v, t.info.decl.Name)
		}
		want = map[string]bool{}
		for _, f := range found.Fields {
			want[f] = true
		}
	}
	if want == nil && (t.gs == nil || t.gs.Fields == nil) {
		return nil, nil
	}
	return func(f string) bool { return t.granted(f) && (want == nil || want[f]) }, nil
}
