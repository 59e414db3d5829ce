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
	pc, err := pageCursorParam(c.q)
	if err != nil {
		return nil, err
	}
	cs, hasCS := c.q.one("changes_since")
	cr, isChanges, cerr := changesRequest(cs, hasCS, pc)
	if cerr != nil {
		return nil, cerr
	}
	if isChanges {
		return s.changes(c, lr, cr)
	}
	after, err := lr.resumePosition(pc)
	if err != nil {
		return nil, err
	}
	pg := lr.collectPages(after)
	items, last := s.renderItems(lr, pg.rows)
	body := obj{{"data", items}, {"has_more", pg.hasMore}, {"object", "list"}}
	next := ""
	fanIn := len(lr.sc.targets) > 1
	if pg.hasMore && !fanIn && last != nil {
		cur := encodePageCursor(last.key, lr.order)
		body = append(body, kv{"next_cursor", cur})
		next = withParam(c.r.URL.RawQuery, "cursor", cur)
	}
	if pg.hasMore && fanIn {
		lr.warnings = append(lr.warnings, warning("partial_results", "connection_id", nil,
			"has_more=true and next_cursor is not emitted under multi-connection fan-in. Retry with `connection_id` to page a single connection."))
	}
	body = append(body, kv{"meta", lr.listMeta(pg.total)}, kv{"url", c.r.URL.Path})
	return s.finishList(c, body, next), nil
}

// pageCursorParam decodes the cursor parameter, nil when absent; a cursor
// that does not parse is invalid_cursor without a param.
func pageCursorParam(q *query) (*wireCursor, *apiError) {
	raw, ok := q.one("cursor")
	if !ok {
		return nil, nil
	}
	pc, ok := parsePageCursor(raw)
	if !ok {
		return nil, newErr("invalid_cursor", "", malformedCursor)
	}
	return pc, nil
}

// resumePosition is the sort key a page cursor resumes after, nil for the
// first page. A cursor names one connection's position, so fan-in refuses it.
func (lr *listReq) resumePosition(pc *wireCursor) (*sortKey, *apiError) {
	if pc == nil {
		return nil, nil
	}
	if len(lr.sc.targets) != 1 {
		return nil, newErr("invalid_cursor", "cursor", "cursor is not valid under multi-connection fan-in; retry with connection_id")
	}
	k, perr := recordsPosition(pc, lr.order)
	if perr != nil {
		return nil, perr
	}
	return &k, nil
}

// targetRec is a record together with the connection it was read from.
type targetRec struct {
	t *target
	r *rec
}

// listPages is what every target contributed to one /records page.
type listPages struct {
	rows    []targetRec
	hasMore bool
	total   int // exact match count, only computed when count != none
}

// collectPages reads each target's page in turn. A fan-in page is each
// connection's page in turn, not one merged order (captures 0091, 0095,
// 0156).
func (lr *listReq) collectPages(after *sortKey) listPages {
	var pg listPages
	for i := range lr.sc.targets {
		t := &lr.sc.targets[i]
		page, more := pageTarget(t, lr.order, after, lr.limit, lr.filters)
		pg.hasMore = pg.hasMore || more
		for _, r := range page {
			pg.rows = append(pg.rows, targetRec{t, r})
		}
		if lr.count != "none" {
			pg.total += countTarget(t, lr.filters)
		}
	}
	return pg
}

// renderItems projects (and expands) each row; it returns the items, never
// nil so an empty page encodes as [], and the last record for the cursor.
func (s *Server) renderItems(lr *listReq, rows []targetRec) ([]obj, *rec) {
	items := []obj{}
	var last *rec
	for _, g := range rows {
		item := s.recordItem(g.t, g.r, lr.keep)
		if len(lr.expand) > 0 {
			item = append(item, kv{"expanded", s.expandRecord(g.t, g.r, lr.expand)})
		}
		items = append(items, item)
		last = g.r
	}
	return items, last
}

// listMeta is a /records page's meta: count, warnings and, when asked for,
// the exact window.
func (lr *listReq) listMeta(total int) obj {
	var count any = obj{{"kind", "none"}}
	if lr.count != "none" {
		count = obj{{"kind", "exact"}, {"value", total}}
	}
	meta := obj{{"count", count}, {"warnings", nonNil(lr.warnings)}}
	if lr.window == "exact" {
		meta = append(meta, kv{"window", windowMeta(lr)})
	}
	return meta
}

// enumParam is a parameter restricted to a fixed vocabulary, with the
// reference's message for a value outside it.
type enumParam struct {
	name    string
	allowed []string
	msg     string
}

// Enumerated /records parameters, checked in this order after sort.
var (
	countParam  = enumParam{"count", []string{"none", "estimated", "exact"}, "count must be one of none, estimated, exact"}
	windowParam = enumParam{"window", []string{"none", "exact"}, "window must be one of none, exact"}
)

// read returns the parameter's value, or def when absent; a value outside
// the vocabulary is invalid_request on that param.
func (e enumParam) read(q *query, def string) (string, *apiError) {
	v, ok := q.one(e.name)
	if !ok {
		return def, nil
	}
	if !contains(e.allowed, v) {
		return "", newErr("invalid_request", e.name, "%s", e.msg)
	}
	return v, nil
}

// parseList validates every /records parameter except cursor and
// changes_since, in the reference's order: allowlist, client gate, scope.
func (s *Server) parseList(c *call, stream string) (*listReq, *apiError) {
	sc, err := s.listScope(c, stream)
	if err != nil {
		return nil, err
	}
	q := c.q
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
	if lr.count, err = countParam.read(q, lr.count); err != nil {
		return nil, err
	}
	if lr.window, err = windowParam.read(q, lr.window); err != nil {
		return nil, err
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

// listScope runs /records' first three checks: the allowlist, the
// owner-only parameters on a client token, then the stream scope.
func (s *Server) listScope(c *call, stream string) (*scope, *apiError) {
	if err := c.q.checkAllowed(recordsAllowed...); err != nil {
		return nil, err
	}
	if !c.p.owner {
		if err := c.q.rejectClientExtras(); err != nil {
			return nil, err
		}
	}
	return s.streamScope(c, stream)
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

// requestedFields is the fields parameter as a set (nil without one); a
// name the stream does not declare is refused with every such name.
func requestedFields(q *query, t *target) (map[string]bool, *apiError) {
	if !q.has("fields") {
		return nil, nil
	}
	want := map[string]bool{}
	var unknown []string
	for _, f := range q.list("fields") {
		if t.info.propIdx[f] == nil {
			unknown = append(unknown, f)
		}
		want[f] = true
	}
	if len(unknown) > 0 {
		return nil, unknownFieldErr(unknown)
	}
	return want, nil
}

// parseProjection turns fields/view into a keep predicate (grant-intersected).
func parseProjection(q *query, t *target) (func(string) bool, *apiError) {
	want, err := requestedFields(q, t)
	if err != nil {
		return nil, err
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
