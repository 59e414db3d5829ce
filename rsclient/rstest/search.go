package rstest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient/rstest/internal/searchindex"
)

// searchAllowed is the search allowlist (§2.8); hybrid drops cursor.
var searchAllowed = []string{"q", "limit", "cursor", "streams", "filter", "connection_id", "connector_instance_id"}

// authoredFields are copied into authored_at, first present wins.
var authoredFields = []string{"sent_at", "authored_at", "created_at", "source_created_at", "occurred_at", "updated_at"}

// searchCursor is the decoded base64url search cursor. K is a semantic
// snapshot's per-connection size, fixed by its first page's limit.
type searchCursor struct {
	Off  int    `json:"off"`
	Snap string `json:"snap"`
	K    int    `json:"k,omitempty"`
}

// searchReq is a validated search request.
type searchReq struct {
	mode  string
	text  string
	limit int
	off   int
	// perConnection is a semantic snapshot's nearest documents kept per
	// connection: from the first page's limit, then from the cursor.
	perConnection int
	targets       map[csKey]*target
	filters       []filterClause
	snap          string
	warnings      []any
	// lexicalGap marks the connection streams missing from the lexical
	// index (Options.LexicalGaps).
	lexicalGap map[csKey]bool
	// client is a client-token search: its lexical skipped-source warnings
	// name no connector, as the reference's do.
	client bool
}

// search serves /v1/search and, when mounted, /semantic and /hybrid.
func (s *Server) search(c *call, mode string) (obj, *apiError) {
	sr, err := s.parseSearch(c, mode)
	if err != nil {
		return nil, err
	}
	q := searchindex.Query{Text: sr.text, Allow: sr.allow, FieldAllowed: sr.fieldAllowed(mode)}
	var hits []searchindex.Hit
	var total int
	hasMore := false
	var lexScore, semScore map[searchindex.DocKey]float64
	switch mode {
	case modeLexical:
		hits, total = s.ix.search.LexicalPage(q, sr.off, sr.limit)
		hasMore = sr.off+len(hits) < total
	case modeSemantic:
		q.PerConnection = sr.perConnection
		hits, total = s.ix.search.SemanticPage(q, sr.off, sr.limit)
		hasMore = sr.off+len(hits) < total
	default:
		lex, _ := s.ix.search.LexicalPage(q, 0, sr.limit)
		qs := q
		qs.FieldAllowed = sr.fieldAllowed(modeSemantic)
		sem, _ := s.ix.search.SemanticPage(qs, 0, sr.limit)
		lexScore, semScore = scoreMap(lex), scoreMap(sem)
		hits = searchindex.Hybrid(lex, sem, sr.limit)
		// has_more says only whether the merge of the two first pages was
		// cut to limit (reference implementation:
		// operations/rs-search-hybrid/index.ts, executeSearchHybrid): with
		// semantic neighbours for any query, "either side has more" would
		// be true of every hybrid search.
		union := map[searchindex.DocKey]bool{}
		for k := range lexScore {
			union[k] = true
		}
		for k := range semScore {
			union[k] = true
		}
		hasMore = len(union) > len(hits)
		total = len(hits)
	}
	data := []obj{}
	for _, h := range hits {
		data = append(data, s.hitObj(sr, h, lexScore, semScore))
	}
	body := obj{{"has_more", hasMore}, {"object", "list"}}
	next := ""
	if hasMore && mode != modeHybrid {
		sc := searchCursor{Off: sr.off + len(hits), Snap: sr.snap}
		if mode == modeSemantic {
			sc.K = sr.perConnection
		}
		b, _ := json.Marshal(sc)
		cur := cursorPrefix(mode) + base64.RawURLEncoding.EncodeToString(b)
		body = append(body, kv{"next_cursor", cur})
		next = withParam(c.r.URL.RawQuery, "cursor", cur)
	}
	body = append(body, kv{"data", data})
	meta := obj{}
	if mode == modeLexical {
		meta = append(meta, kv{"count", total}, kv{"count_accuracy", "exact"},
			kv{"recall", obj{{"complete", true}, {"ranking_scope", "all_matches"}, {"truncated", false},
				{"ranked_candidate_count", total}, {"sources_searched_count", sr.sources(mode)}}})
	} else { // semantic and hybrid count nothing (captures 0120, 0121)
		meta = append(meta, kv{"count", obj{{"kind", "none"}}})
	}
	meta = append(meta, kv{"warnings", nonNil(sr.searchWarnings(mode))})
	body = append(body, kv{"meta", meta}, kv{"url", c.r.URL.Path})
	return s.finishList(c, body, next), nil
}

// scoreMap indexes hit scores by key.
func scoreMap(hs []searchindex.Hit) map[searchindex.DocKey]float64 {
	m := make(map[searchindex.DocKey]float64, len(hs))
	for _, h := range hs {
		m[h.Key] = h.Score
	}
	return m
}

// parseSearch validates the search parameters and resolves the scope, in
// the reference's order: gate, q, limit, scope, filters, cursor.
func (s *Server) parseSearch(c *call, mode string) (*searchReq, *apiError) {
	q := c.q
	if err := searchGate(c, mode); err != nil {
		return nil, err
	}
	sr := &searchReq{mode: mode, targets: map[csKey]*target{}, lexicalGap: s.ix.lexicalGap, client: !c.p.owner}
	sr.text, _ = q.one("q")
	if strings.TrimSpace(sr.text) == "" {
		return nil, newErr("invalid_request", "q", "q is required and must be non-empty")
	}
	var w any
	sr.limit, w = parseLimit(q, "limit")
	if w != nil {
		sr.warnings = append(sr.warnings, w)
	}
	sr.perConnection = semanticPerConnection(sr.limit)
	streams := q.vals["streams"]
	connID, err := s.searchScope(c, sr, streams)
	if err != nil {
		return nil, err
	}
	if err := s.searchFilters(q, sr, streams); err != nil {
		return nil, err
	}
	sr.snap = snapshotID(mode, sr.text, streams, connID, c.p, c.r.URL.RawQuery)
	if err := sr.parseCursor(q); err != nil {
		return nil, err
	}
	return sr, nil
}

// searchGate runs the checks made before any value is read: hybrid has no
// cursor, the allowlist, and the owner-only parameters on a client token.
func searchGate(c *call, mode string) *apiError {
	q := c.q
	if mode == modeHybrid && q.has("cursor") {
		return newErr("invalid_request", "cursor", "hybrid search does not support cursor pagination")
	}
	if err := q.checkAllowed(searchAllowed...); err != nil {
		return err
	}
	if !c.p.owner {
		return q.rejectClientExtras()
	}
	return nil
}

// searchScope reads connection_id and resolves the searched targets into
// sr, returning the connection id ("" when not scoped) for the snapshot.
func (s *Server) searchScope(c *call, sr *searchReq, streams []string) (string, *apiError) {
	connID, aw, err := connectionParam(c.q)
	if err != nil {
		return "", err
	}
	if aw != nil {
		sr.warnings = append(sr.warnings, aw)
	}
	if err := s.searchTargets(c.p, sr, streams, connID); err != nil {
		return "", err
	}
	return connID, nil
}

// searchFilters parses filter[...], which needs exactly one streams value.
func (s *Server) searchFilters(q *query, sr *searchReq, streams []string) *apiError {
	if !q.has("filter") {
		return nil
	}
	if len(streams) != 1 {
		return newErr("invalid_request", "filter", "filter[...] requires exactly one streams value")
	}
	// Filters are checked against one declaration, as the reference
	// does; pick it deterministically (dataset connection order), not by
	// map iteration.
	t := s.firstTarget(sr.targets)
	if t == nil {
		return nil
	}
	var err *apiError
	sr.filters, err = parseFilters(q, t)
	return err
}

// parseCursor decodes the cursor parameter into sr.off. As the reference
// (operations/rs-search-lexical/index.ts and rs-search-semantic/index.ts
// of reference-implementation): a cursor that does not decode is
// "malformed"; one whose snapshot was taken for another query, mode or
// token — a refreshed token of the same grant included — "does not
// match this query and grant authority". Neither names a param.
func (sr *searchReq) parseCursor(q *query) *apiError {
	raw, ok := q.one("cursor")
	if !ok {
		return nil
	}
	body, prefixed := strings.CutPrefix(raw, cursorPrefix(sr.mode))
	b, derr := base64.RawURLEncoding.DecodeString(strings.TrimRight(body, "="))
	var sc searchCursor
	if derr != nil || !prefixed || len(raw) > maxCursorBytes || json.Unmarshal(b, &sc) != nil || sc.Off < 0 || sc.Snap == "" {
		return newErr("invalid_cursor", "", "Cursor is malformed")
	}
	if sc.Snap != sr.snap {
		return newErr("invalid_cursor", "", "Cursor does not match this query and grant authority")
	}
	sr.off = sc.Off
	if sc.K > 0 {
		sr.perConnection = sc.K
	}
	return nil
}

// semanticPerConnection is how many nearest records a semantic snapshot
// keeps per connection for a first page of limit: the reference's
// resolveSemanticPerConnectorLimit (server/search-semantic.ts), enough to
// survive collapsing field hits into records without paying for the
// public maximum. The reference caps field hits before collapsing them;
// capping records keeps the same bound.
func semanticPerConnection(limit int) int {
	n := max(1, min(limit, 100))
	return min(100, max(25, (3*n+1)/2, n+10))
}

// cursorPrefix marks a semantic cursor as the reference RS does
// ("sem1.", capture 0120); lexical cursors carry none.
func cursorPrefix(mode string) string {
	if mode == modeSemantic {
		return "sem1."
	}
	return ""
}

// searchTargets resolves the (connection, stream) pairs searched.
func (s *Server) searchTargets(p *principal, sr *searchReq, streams []string, connID string) *apiError {
	want := map[string]bool{}
	for _, st := range streams {
		if !p.owner && p.grantStream(st) == nil {
			return newErr("grant_stream_not_allowed", "", "Stream '%s' not in grant", st)
		}
		want[st] = true
	}
	connOK := connID == ""
	for _, it := range s.schemaItems(p) {
		for _, st := range it.streams {
			for _, cn := range st.conns {
				if connID != "" && cn.ID == connID {
					connOK = true
				}
				if (len(want) > 0 && !want[st.info.decl.Name]) || (connID != "" && cn.ID != connID) {
					continue
				}
				k := csKey{cn.ID, st.info.decl.Name}
				sr.targets[k] = &target{conn: cn, info: st.info, gs: st.gs, set: s.ix.recs[k]}
			}
		}
	}
	if !connOK {
		return newErr("invalid_argument", "connection_id", "Connection '%s' is not addressable under this authorization", connID)
	}
	return nil
}

// allow admits a document visible under the grant and filters.
func (sr *searchReq) allow(k searchindex.DocKey) bool {
	t := sr.targets[csKey{k.ConnectionID, k.Stream}]
	if t == nil || t.set == nil {
		return false
	}
	r := t.set.byID[k.RecordID]
	return r != nil && admit(t, r, sr.filters)
}

// fieldAllowed limits matching and snippets to declared + granted fields
// of the mode.
func (sr *searchReq) fieldAllowed(mode string) func(searchindex.DocKey, string) bool {
	return func(k searchindex.DocKey, f string) bool {
		t := sr.targets[csKey{k.ConnectionID, k.Stream}]
		if t == nil || !t.granted(f) || t.info.decl.Query.Search == nil {
			return false
		}
		sd := t.info.decl.Query.Search
		if mode == modeSemantic {
			return contains(sd.SemanticFields, f)
		}
		return contains(sd.LexicalFields, f) && !sr.lexicalGap[csKey{k.ConnectionID, k.Stream}]
	}
}

// sources counts the searched connections (the reference's fan-out
// bindings: 2 across two connections, 1 with connection_id; 0118, 0123)
// that have declared search fields.
func (sr *searchReq) sources(mode string) int {
	conns := map[string]bool{}
	for k, t := range sr.targets {
		if sd := t.info.decl.Query.Search; sd != nil && (len(sd.LexicalFields) > 0 || (mode != modeLexical && len(sd.SemanticFields) > 0)) {
			conns[k.conn] = true
		}
	}
	return len(conns)
}

// snapshotID binds a cursor to the exact query and the token that asked:
// the reference keys its snapshot by an authority key over the query and
// the token's resolved grant, and a refreshed token of the same grant
// does not match it (measured on the reference).
func snapshotID(mode, text string, streams []string, connID string, p *principal, raw string) string {
	h := fnv.New64a()
	ss := append([]string(nil), streams...)
	sort.Strings(ss)
	who := "owner"
	if p.grant != nil {
		who = p.grant.ID
	}
	who += "/" + p.token
	filt := []string{}
	for _, part := range strings.Split(raw, "&") {
		if strings.HasPrefix(part, "filter") {
			filt = append(filt, part)
		}
	}
	sort.Strings(filt)
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s", mode, text, strings.Join(ss, ","), connID, who, strings.Join(filt, "&"))
	return fmt.Sprintf("snap_%016x", h.Sum64())
}

// firstTarget is the target whose connection comes first in the dataset.
func (s *Server) firstTarget(targets map[csKey]*target) *target {
	var best *target
	bestIdx := -1
	for _, t := range targets {
		idx := len(s.ds.Connections)
		for i := range s.ds.Connections {
			if s.ds.Connections[i].ID == t.conn.ID {
				idx = i
				break
			}
		}
		if best == nil || idx < bestIdx || (idx == bestIdx && t.conn.ID < best.conn.ID) {
			best, bestIdx = t, idx
		}
	}
	return best
}

// searchWarnings are a search's meta.warnings: the request's own, then
// the sources it skipped. Hybrid runs a lexical and a semantic search and
// keeps the first warning of each (code, param) pair, its own first, then
// the lexical ones, then the semantic ones — so of several skipped
// connections it names only the first (reference implementation:
// operations/rs-search-hybrid/index.ts, executeSearchHybrid's
// pushWarning).
func (sr *searchReq) searchWarnings(mode string) []any {
	if mode != modeHybrid {
		return append(sr.warnings, sr.skippedSources(mode)...)
	}
	all := append(append(append([]any(nil), sr.warnings...), sr.skippedSources(modeLexical)...), sr.skippedSources(modeSemantic)...)
	var out []any
	seen := map[string]bool{}
	for _, w := range all {
		o, _ := w.(obj)
		code, _ := o.get("code")
		param, _ := o.get("param")
		key := fmt.Sprint(code) + "::" + fmt.Sprint(param)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, w)
	}
	return out
}

// skippedSources are the real RS's source_skipped_not_applicable warnings
// (D19): one per searched connection none of whose target streams has a
// field of the mode, so the search could not look at it (a semantic
// search over threads answers 200, 0 results and this warning). mode is
// lexical or semantic; searchWarnings merges both for hybrid.
func (sr *searchReq) skippedSources(mode string) []any {
	applies := map[string]bool{}
	keys := map[string]*target{}
	for k, t := range sr.targets {
		if _, seen := keys[k.conn]; !seen {
			keys[k.conn] = t
		}
		if sd := t.info.decl.Query.Search; sd != nil && anyGranted(t, modeFields(sd, mode)) {
			applies[k.conn] = true
		}
	}
	var conns []string
	for c := range keys {
		if !applies[c] {
			conns = append(conns, c)
		}
	}
	sort.Strings(conns)
	var out []any
	for _, c := range conns {
		// The reference's client-token lexical plan has no connector id
		// (source ""); its semantic plan names the binding's connector
		// (operations/rs-search-lexical/index.ts and
		// operations/rs-search-semantic/index.ts, executeSearch*, the
		// skippedSources of resolveClientBindings).
		src := ""
		if mode == modeSemantic || !sr.client {
			t := keys[c]
			if src = t.info.connector.SourceID; src == "" {
				src = t.info.connector.Key
			}
		}
		out = append(out, warning("source_skipped_not_applicable", "", obj{{"source", src}, {"connection_id", c}},
			fmt.Sprintf("Connection '%s' under connector '%s' is not applicable to this query and was skipped.", c, src)))
	}
	return out
}

// modeFields are the declared search fields of a mode.
func modeFields(sd *SearchDecl, mode string) []string {
	if mode == modeSemantic {
		return sd.SemanticFields
	}
	return sd.LexicalFields
}

// anyGranted reports whether the target's grant includes any of fields.
func anyGranted(t *target, fields []string) bool {
	for _, f := range fields {
		if t.granted(f) {
			return true
		}
	}
	return false
}
