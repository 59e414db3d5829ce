package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// searchSources lists what a search reads: the grant owning connection_id,
// else the grants whose streams intersect the request, each (connection,
// stream) read through one grant only, so a hit comes once however many
// grants cover it (searchOwners). grant_id narrows the search to that
// grant. Every requested stream and the connection_id are checked against
// the index first, so a name outside the grants costs no RS call.
func (set *sourceSet) searchSources(a searchArgs) ([]searchSource, *toolError) {
	if te := set.checkNames(a.ConnectionID, a.Streams...); te != nil {
		return nil, te
	}
	if a.ConnectionID != "" {
		g, te := set.route("", a.ConnectionID)
		if te != nil {
			return nil, te
		}
		return []searchSource{{grant: g, streams: a.Streams, connectionID: a.ConnectionID}}, nil
	}
	grants := set.grants
	if set.picked != "" {
		g, te := set.pickedSearchGrant(a.Streams)
		if te != nil {
			return nil, te
		}
		grants = []Grant{g}
	}
	if len(grants) == 1 {
		return []searchSource{{grant: grants[0], streams: a.Streams}}, nil
	}
	own := set.searchOwners(grants, a.Streams)
	var out []searchSource
	for _, g := range grants {
		out = append(out, own.sourcesOf(g)...)
	}
	if len(out) == 0 { // every grant failed to read and none has a cached index
		return nil, newAdapterError("source_unavailable", "no grant that could be read has the requested streams; retry shortly, or call schema", field{"param", "streams"})
	}
	for _, n := range own.notes { // modeFinds lists the sources again
		if !slices.Contains(set.warns, n) {
			set.warns = append(set.warns, n)
		}
	}
	return out, nil
}

// pickedSearchGrant is the grant grant_id names, when it serves any of
// the requested streams (any stream when none is requested).
func (set *sourceSet) pickedSearchGrant(streams []string) (Grant, *toolError) {
	var serving []string
	for _, g := range set.grants {
		have := set.ix.GrantStreams(g.Key)
		if !slices.ContainsFunc(have, func(st string) bool { return len(streams) == 0 || slices.Contains(streams, st) }) {
			continue
		}
		if g.ID == set.picked {
			return g, nil
		}
		if g.ID != "" && !slices.Contains(serving, g.ID) {
			serving = append(serving, g.ID)
		}
	}
	return Grant{}, unknownGrantError(set.picked, serving, firstStream(streams), "")
}

// pair is one (connection, stream) a search reads.
type pair struct{ connectionID, stream string }

// searchOwnership is which grant reads each (connection, stream) pair of
// a search over several grants.
type searchOwnership struct {
	set    *sourceSet
	pairs  map[string][]pair // grant key → the pairs it serves, in index order
	owner  map[pair]string   // pair → the grant key that reads it
	notes  []warning         // pairs whose grants neither cover the other
	noted  map[string]bool   // connections already noted
	wanted []string          // the requested streams (nil = every stream)
}

// searchOwners assigns every (connection, stream) pair the grants serve to
// one grant: the only one, else the one whose coverage of the pair
// includes every other's (tokens of one grant id are one grant). When
// none does (two grants on one connection, each giving fields or a time
// window the other lacks) the first in grant order reads it and the page
// says so, naming the grant_id that searches the other.
func (set *sourceSet) searchOwners(grants []Grant, streams []string) *searchOwnership {
	own := &searchOwnership{set: set, pairs: map[string][]pair{}, owner: map[pair]string{}, noted: map[string]bool{}, wanted: streams}
	servers := map[pair][]string{}
	var order []pair
	for _, g := range grants {
		for st, cov := range set.ix.GrantCoverage(g.Key, "", "") {
			if len(streams) > 0 && !slices.Contains(streams, st) {
				continue
			}
			conns := cov.Connections
			if len(conns) == 0 { // a connector without connections: the stream is one source
				conns = []string{""}
			}
			for _, cn := range conns {
				p := pair{cn, st}
				own.pairs[g.Key] = append(own.pairs[g.Key], p)
				if len(servers[p]) == 0 {
					order = append(order, p)
				}
				if !slices.Contains(servers[p], g.Key) {
					servers[p] = append(servers[p], g.Key)
				}
			}
		}
	}
	byName := func(x, y pair) int {
		return strings.Compare(x.connectionID+"\x1f"+x.stream, y.connectionID+"\x1f"+y.stream)
	}
	// Coverage is a map: order the pairs, so the sources (and the slots of
	// a search cursor) come out the same on every page.
	slices.SortFunc(order, byName)
	for k := range own.pairs {
		slices.SortFunc(own.pairs[k], byName)
	}
	for _, p := range order {
		keys := servers[p]
		if len(keys) == 1 {
			own.owner[p] = keys[0]
			continue
		}
		if key, ok := widestGrant(set.ix, keys, p.stream, p.connectionID); ok {
			own.owner[p] = key
			continue
		}
		own.owner[p] = keys[0]
		own.note(p, keys)
	}
	return own
}

// note says, once per connection, that its hits come from one of several
// grants of which none covers the others, and how to search another.
func (own *searchOwnership) note(p pair, keys []string) {
	if own.noted[p.connectionID] || len(own.notes) >= maxCandidates {
		return
	}
	own.noted[p.connectionID] = true
	ix := own.set.ix
	first := ix.GrantID(keys[0])
	var others []string
	for _, id := range grantIDs(ix, keys[1:]) {
		if id != first && !slices.Contains(others, id) {
			others = append(others, id)
		}
	}
	label := p.connectionID
	if e, ok := ix.Connection(p.connectionID); ok && e.DisplayName != "" {
		label += " (" + e.DisplayName + ")"
	}
	// Short: a warning line is cut at maxWarningText, and the step must
	// survive the cut.
	msg := fmt.Sprintf("connection %s: hits from grant %s only", label, first)
	if len(others) > 0 {
		msg += "; grant_id " + strings.Join(others[:min(len(others), 3)], " or ") + " searches the other"
	}
	msg += fmt.Sprintf(" (%d grants serve it, none known to cover the others)", len(keys))
	own.notes = append(own.notes, warning{Code: "grant_chosen", GrantID: first, Message: msg})
}

// sourcesOf is what grant g reads: nothing when other grants read every
// pair it serves; one source (the RS fans in over its connections) when
// it reads them all; else one source per connection, with the streams it
// reads there.
func (own *searchOwnership) sourcesOf(g Grant) []searchSource {
	var mine []pair
	for _, p := range own.pairs[g.Key] {
		if own.owner[p] == g.Key {
			mine = append(mine, p)
		}
	}
	switch {
	case len(mine) == 0:
		return nil
	case len(mine) == len(own.pairs[g.Key]):
		var both []string
		for _, p := range mine {
			if len(own.wanted) > 0 && !slices.Contains(both, p.stream) {
				both = append(both, p.stream)
			}
		}
		return []searchSource{{grant: g, streams: sortedStreams(both, own.wanted)}}
	}
	var out []searchSource
	byConn := map[string]int{}
	for _, p := range mine {
		i, ok := byConn[p.connectionID]
		if !ok {
			i = len(out)
			byConn[p.connectionID] = i
			out = append(out, searchSource{grant: g, connectionID: p.connectionID})
		}
		out[i].streams = append(out[i].streams, p.stream)
	}
	for i := range out {
		out[i].streams = sortedStreams(out[i].streams, own.wanted)
	}
	return out
}

// sortedStreams orders streams as the request named them (the index's
// order when it named none); nil stays nil (every stream of the grant).
func sortedStreams(streams, wanted []string) []string {
	if len(streams) == 0 {
		return nil
	}
	if len(wanted) > 0 {
		var out []string
		for _, st := range wanted {
			if slices.Contains(streams, st) {
				out = append(out, st)
			}
		}
		return out
	}
	out := slices.Clone(streams)
	slices.Sort(out)
	return out
}

// sourceCandidates reads up to limit unreturned hits of one source, from
// its saved position, following one more RS page when the first runs out.
// The RS's warnings ride along (D19: a semantic search over a stream
// without semantic fields answers 0 hits and source_skipped_not_applicable).
// When the RS no longer honours the saved RS cursor, the search is run
// again and the hits already returned are skipped (reissueSearch).
func (s *Server) sourceCandidates(ctx context.Context, src searchSource, a searchArgs, filter rsclient.Filter, st sourceState) sourceRead {
	r := s.readSource(ctx, src, a, filter, st, sourcePosition{cursor: st.RSCursor, skip: st.Offset}, 2)
	if st.RSCursor != "" && rsRefusedCursor(r.err) {
		return s.reissueSearch(ctx, src, a, filter, st)
	}
	return r
}

// sourcePosition is where a read of one source starts: skip hits into the
// RS page that cursor names ("" = the first page); lastHit, when set,
// fingerprints the hit expected just before that point.
type sourcePosition struct {
	cursor  string
	skip    int
	lastHit string
	// firstLimit, when set, is the limit of the first RS read (the one
	// that shapes the RS's result set); later reads ask for what is left.
	firstLimit int
}

// readSource reads up to a.Limit hits of src from pos, over at most pages
// RS pages. A skip past the end of a page carries over to the next one
// (only a re-issued search skips that far).
func (s *Server) readSource(ctx context.Context, src searchSource, a searchArgs, filter rsclient.Filter, st sourceState, pos sourcePosition, pages int) sourceRead {
	var r sourceRead
	cursor, skip := pos.cursor, pos.skip
	checkAt := -1 // how many hits to pass before the one lastHit names
	if pos.lastHit != "" && skip > 0 {
		checkAt = skip - 1
	}
	for n := 0; n < pages && len(r.cands) < a.Limit; n++ {
		sp, _, err := s.rs.Search(ctx, src.grant.Bearer, rsclient.SearchQuery{Mode: a.Mode, Q: a.Q, Streams: src.streams,
			Limit: pos.limit(n, a.Limit+skip), Cursor: cursor, ConnectionID: src.connectionID, Filter: filter})
		if err != nil {
			return sourceRead{err: err}
		}
		r.notePage(sp)
		checkAt = r.checkLastHit(sp.Data, checkAt, pos.lastHit)
		for i := skip; i < len(sp.Data); i++ {
			r.cands = append(r.cands, candidate{hit: sp.Data[i], rank: st.Returned + len(r.cands), cursor: cursor, offset: i, next: sp.NextCursor})
		}
		if sp.NextCursor == "" {
			r.shifted = r.shifted || checkAt >= 0 // the ranking ends before the delivered part does
			r.moreAfter = sp.HasMore && len(sp.Data) > skip
			return r
		}
		cursor, skip = sp.NextCursor, max(0, skip-len(sp.Data))
	}
	r.moreAfter = true
	return r
}

// limit is the RS limit of read n (0-based) that wants want hits.
func (pos sourcePosition) limit(n, want int) int {
	if n == 0 && pos.firstLimit > 0 {
		return pos.firstLimit
	}
	return min(want, maxRSPage)
}

// notePage keeps what an RS page says besides its hits: a recall that is
// not exhaustive, and its warnings.
func (r *sourceRead) notePage(sp *rsclient.SearchPage) {
	if rc := sp.Meta.Recall; rc != nil && ((rc.Complete != nil && !*rc.Complete) || rc.RankingScope == "candidate_window") {
		r.recall = append(r.recall, recallNote(rc))
	}
	r.rsWarns = appendNewWarnings(r.rsWarns, sp.Meta.Warnings)
}

// checkLastHit compares the hit checkAt hits into data (-1: none to
// check) with the fingerprint lastHit, marking the read shifted when they
// differ, and returns how far into the next page the check still is.
func (r *sourceRead) checkLastHit(data []rsclient.SearchHit, checkAt int, lastHit string) int {
	switch {
	case checkAt < 0:
		return -1
	case checkAt < len(data):
		r.shifted = hitPrint(data[checkAt]) != lastHit
		return -1
	}
	return checkAt - len(data)
}

// rsRefusedCursor reports whether err is the RS refusing a search cursor
// it issued. The adapter's cursor is sealed, so the RS cursor inside is
// one the RS gave; the RS still refuses it when the token presenting it
// is not the one that began the search (the reference binds its search
// snapshot to the token's authority, so a refreshed token of the same
// grant is refused, as measured on the reference:
// reference-implementation/operations/rs-search-lexical/index.ts) or when its snapshot expired (five minutes
// there).
func rsRefusedCursor(err error) bool {
	var rsErr *rsclient.Error
	return errors.As(err, &rsErr) && rsErr.Status == http.StatusBadRequest && rsErr.Code == "invalid_cursor"
}

// maxReissueSkip bounds how many already-returned hits of one source a
// re-issued search may skip: at most this many hits (and ten RS pages)
// are re-read to continue a search whose RS cursor was refused.
const maxReissueSkip = 1000

// reissueSearch continues a source whose RS cursor the RS refused: the
// same search again from its first page, skipping the hits this source
// already returned. Rankings are deterministic over unchanged data, so
// the continuation is where the refused cursor pointed; when the hit
// before it is not the last one returned (the data changed), the page
// says a hit may repeat or be missing.
func (s *Server) reissueSearch(ctx context.Context, src searchSource, a searchArgs, filter rsclient.Filter, st sourceState) sourceRead {
	if st.Returned > maxReissueSkip {
		return sourceRead{err: newAdapterError("invalid_cursor",
			fmt.Sprintf("the resource server no longer continues this search (it binds its search cursor to the token that began the search, and a refreshed token is another; or the search expired), and this search is %d hits into one source, more than the %d that are re-read to continue it; repeat the search narrowed with streams, connection_id or filter", st.Returned, maxReissueSkip),
			field{"param", "cursor"})}
	}
	first := st.FirstLimit
	if first == 0 { // a cursor from before FirstLimit: the first read asks for what is wanted
		first = min(st.Returned+a.Limit, maxRSPage)
	}
	pages := 1 + (max(0, st.Returned+a.Limit-first)+maxRSPage-1)/maxRSPage + 1
	r := s.readSource(ctx, src, a, filter, st, sourcePosition{skip: st.Returned, lastHit: st.LastHit, firstLimit: first}, pages)
	if r.err == nil && r.shifted {
		r.notes = append(r.notes, warning{Code: "search_restarted",
			Message: fmt.Sprintf("the resource server no longer continued this search from the last page (its cursor is bound to the token that began the search, or it expired), so the search ran again and skipped the %d hits already shown; the results changed since, so a hit may repeat or be missing", st.Returned)})
	}
	return r
}

// appendNewWarnings adds the warnings not yet in have (a second RS page
// repeats the first's).
func appendNewWarnings(have, more []rsclient.Warning) []rsclient.Warning {
	for _, w := range more {
		dup := false
		for _, h := range have {
			dup = dup || (h.Code == w.Code && h.Message == w.Message && string(h.Detail) == string(w.Detail))
		}
		if !dup && len(have) < maxRSWarnings {
			have = append(have, w)
		}
	}
	return have
}

// maxRSWarnings bounds the RS warnings one source adds to a page.
const maxRSWarnings = 8

func recallNote(r *rsclient.Recall) string {
	var facts []string
	if r.RankedCandidateCount != nil {
		facts = append(facts, fmt.Sprintf("ranked_candidate_count=%d", *r.RankedCandidateCount))
	}
	if r.CandidateWindowLimit != nil {
		facts = append(facts, fmt.Sprintf("candidate_window_limit=%d", *r.CandidateWindowLimit))
	}
	if r.TruncatedSourceCount != nil {
		facts = append(facts, fmt.Sprintf("truncated_source_count=%d", *r.TruncatedSourceCount))
	}
	return strings.Join(facts, ",")
}

// firstStream names the stream an RS refusal most likely concerns: the
// first requested one ("" when the search spans every stream).
func firstStream(streams []string) string {
	if len(streams) == 0 {
		return ""
	}
	return streams[0]
}
