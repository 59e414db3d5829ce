package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/pdpp/pdpp-mcp/internal/fanout"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// maxRSPage is the RS's largest search page.
const maxRSPage = 100

// searchSource is one grant a search fans out to.
type searchSource struct {
	grant        Grant
	streams      []string // requested streams ∩ the grant's; nil = all
	connectionID string
}

// candidate is one hit of one source with where it came from.
type candidate struct {
	hit    rsclient.SearchHit
	source int
	rank   int    // rank within its source across pages (0-based)
	cursor string // RS cursor of the page it is on
	offset int    // index within that page
	next   string // RS cursor after that page ("" = none)
}

// searchPage is a merged page's reads, ready to render (search_page.go).
type searchPage struct {
	hits     []searchHit
	warnings []warning
	recall   []string
	// sources is each hit's source (its index in the fan-out), ceiling
	// the result ceiling; next is the paging state after the page takes
	// taken[i] hits of source i (the page's render settles how many hits
	// it shows with it, search_page.go).
	sources []int
	ceiling int
	next    func(taken []int) (bool, string)
	// sourceCount is the fan-out's width (next's taken has one per source).
	sourceCount int
	// fields and searchTook are what the page's refinements need: the
	// streams' title fields, and how long the search took (the title
	// budget is measured in it).
	fields     *streamFields
	searchTook time.Duration
}

// searchFanIn runs one merged search page across the source set (R-7,
// Grants that could not be read are warnings on the page.
func (s *Server) searchFanIn(ctx context.Context, set *sourceSet, a searchArgs, filter rsclient.Filter, prev *searchCursor) (*searchPage, *toolError) {
	sources, te := set.searchSources(a)
	if te != nil {
		return nil, te
	}
	hash := queryHash(a, filter)
	state, te := resumeState(sources, hash, a.Limit, prev)
	if te != nil {
		return nil, te
	}
	page := &searchPage{warnings: append([]warning(nil), set.warns...)}
	started := s.now()
	reads := s.readSources(ctx, sources, a, filter, state)
	page.searchTook = s.now().Sub(started)
	if te := s.degradeFailures(set, sources, a, reads, state, page); te != nil {
		return nil, te
	}
	page.fields = newStreamFields(set.ix)
	page.takeHits(reads, sources, a.Limit, page.fields)
	page.ceiling = s.cfg.MaxResultBytes
	page.next = func(taken []int) (bool, string) {
		st := append([]sourceState(nil), state...)
		if !advanceAll(st, reads, taken) {
			return false, ""
		}
		return true, s.sealSearchCursor(searchCursor{Version: 1, QueryHash: hash, Sources: st, Args: a.shape()})
	}
	page.sourceCount = len(reads)
	return page, nil
}

// resumeState is the per-source paging state this page starts from: fresh
// for a first page, or the cursor's, which must have been issued for the
// same search arguments (hash) over the same grants in the same order.
func resumeState(sources []searchSource, hash string, firstLimit int, prev *searchCursor) ([]sourceState, *toolError) {
	state := make([]sourceState, len(sources))
	for i, src := range sources {
		state[i].GrantTag = grantTag(src.grant)
		state[i].FirstLimit = min(firstLimit, maxRSPage)
	}
	if prev == nil {
		return state, nil
	}
	c := *prev
	if c.QueryHash != hash || len(c.Sources) != len(sources) {
		return nil, newAdapterError("invalid_cursor", "this search cursor belongs to other search arguments: keep q (or query), mode, streams, filter and connection_id as on the first page (limit may change), or repeat the search without cursor", field{"param", "cursor"})
	}
	for i := range c.Sources {
		if c.Sources[i].GrantTag != state[i].GrantTag {
			return nil, newAdapterError("invalid_cursor", "this search cursor was issued for another set of grants (a refreshed token of the same grant continues it; another grant, or grants added or removed, does not); repeat the first search", field{"param", "cursor"})
		}
	}
	return c.Sources, nil
}

// sourceRead is what one source gave for this page.
type sourceRead struct {
	cands     []candidate
	moreAfter bool // the RS has hits beyond cands
	recall    []string
	rsWarns   []rsclient.Warning // the RS's meta.warnings, deduplicated
	notes     []warning          // the adapter's own notes on this source's read
	shifted   bool               // a re-issued search no longer matches the hits already returned
	err       error
}

// readSources reads every source not yet exhausted concurrently (at most
// FanOutConcurrency at a time, each within Waits.Source from when its read
// starts), so one slow grant costs the page its timeout, not the sum, and
// a source queued behind others still gets its whole wait. reads[i] is
// source i's; an exhausted source's is empty.
func (s *Server) readSources(ctx context.Context, sources []searchSource, a searchArgs, filter rsclient.Filter, state []sourceState) []sourceRead {
	reads := make([]sourceRead, len(sources))
	var live []int // the sources still to read
	for i := range sources {
		if !state[i].Done {
			live = append(live, i)
		}
	}
	// One live source runs on this goroutine (fanout runs a lone task
	// inline): no goroutine to start and hand the page back.
	got, errs := fanout.Run(ctx, len(live), fanout.Options{Limit: s.cfg.FanOutConcurrency, Timeout: s.cfg.Waits.Source},
		func(ctx context.Context, j int) (sourceRead, error) {
			i := live[j]
			return s.sourceCandidates(ctx, sources[i], a, filter, state[i]), nil
		})
	for j, i := range live {
		r := got[j]
		if errs[j] != nil { // still queued when the call ended
			r = sourceRead{err: errs[j]}
		}
		for k := range r.cands {
			r.cands[k].source = i
		}
		reads[i] = r
	}
	return reads
}

// degradeFailures collects the recall notes of the sources that answered
// and turns each failed source into a source_unavailable warning, marking
// it exhausted so later pages skip it. Only when every source failed is
// there nothing to degrade to: the last failure is the call's error.
func (s *Server) degradeFailures(set *sourceSet, sources []searchSource, a searchArgs, reads []sourceRead, state []sourceState, page *searchPage) *toolError {
	failed := 0
	for i, r := range reads {
		if r.err == nil {
			page.recall = append(page.recall, r.recall...)
			for _, w := range r.rsWarns {
				page.warnings = append(page.warnings, rsSearchWarning(w))
			}
			page.warnings = append(page.warnings, r.notes...)
			continue
		}
		failed++
		if failed == len(sources) {
			return s.rsRefusal(context.Background(), set, sources[i].grant, r.err,
				refusedRead{tool: "search", stream: firstStream(a.Streams), connectionID: a.ConnectionID, search: &a})
		}
		page.warnings = append(page.warnings, warning{Code: "source_unavailable",
			Message: fmt.Sprintf("source %d of %d failed (%s); its hits are missing from this page", i+1, len(sources), errorCode(r.err))})
		state[i].Done = true
	}
	return nil
}

// takeHits puts the best limit hits of all sources on the page and
// returns how many each source gave.
func (p *searchPage) takeHits(reads []sourceRead, sources []searchSource, limit int, fields *streamFields) []int {
	lists := make([][]candidate, len(reads))
	for i, r := range reads {
		lists[i] = r.cands
	}
	taken := make([]int, len(reads))
	for _, c := range rankMerge(lists, limit) {
		taken[c.source]++
		p.sources = append(p.sources, c.source)
		h := newSearchHit(c.hit, fields)
		h.grant = sources[c.source].grant
		p.hits = append(p.hits, h)
	}
	return taken
}

// advanceAll moves every live source past the hits the page took from it
// and reports whether any source has more.
func advanceAll(state []sourceState, reads []sourceRead, taken []int) bool {
	more := false
	for i := range state {
		if state[i].Done {
			continue
		}
		state[i] = advance(state[i], reads[i].cands, taken[i], reads[i].moreAfter)
		if !state[i].Done {
			more = true
		}
	}
	return more
}

// rankMerge fuses per-source ranked lists by reciprocal rank and keeps the
// best limit hits. Raw scores from different grants (BM25 over different
// corpora, cosine distances) are not comparable, so only ranks count: with
// equal source weights the fused score 1/(k+rank) orders hits by rank
// alone, ties going to the earlier source.
func rankMerge(lists [][]candidate, limit int) []candidate {
	var all []candidate
	for _, l := range lists {
		all = append(all, l...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].rank != all[j].rank {
			return all[i].rank < all[j].rank // 1/(k+rank) is monotonic in rank
		}
		return all[i].source < all[j].source
	})
	if len(all) > limit {
		all = all[:limit]
	}
	return all
}

// advance moves a source's state past the k candidates the page took.
func advance(st sourceState, cands []candidate, k int, moreAfter bool) sourceState {
	st.Returned += k
	if k > 0 {
		st.LastHit = hitPrint(cands[k-1].hit)
	}
	if k < len(cands) {
		c := cands[k]
		st.RSCursor, st.Offset = c.cursor, c.offset
		return st
	}
	if len(cands) > 0 {
		last := cands[len(cands)-1]
		if last.next == "" && !moreAfter {
			st.Done = true
			return st
		}
		st.RSCursor, st.Offset = last.next, 0
		if last.next == "" { // the RS has more but cannot page (hybrid): re-read and skip
			st.RSCursor, st.Offset = "", st.Returned
		}
		return st
	}
	if !moreAfter {
		st.Done = true
	}
	return st
}

// rsSearchWarning is an RS search warning as a page line: its code and
// message, and the connection (and source) its detail names, so a skipped
// connection is named even when the RS's message does not (D19).
func rsSearchWarning(w rsclient.Warning) warning {
	var d struct {
		ConnectionID string `json:"connection_id"`
		Source       string `json:"source"`
	}
	_ = json.Unmarshal(w.Detail, &d)
	msg := w.Message
	if msg == "" {
		msg = "(no message)"
	}
	if d.ConnectionID != "" {
		msg += " (connection_id=" + d.ConnectionID
		if d.Source != "" {
			msg += ", source " + connectorKey(d.Source)
		}
		msg += ")"
	}
	return warning{Code: w.Code, Message: msg}
}
