package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
)

// searchSources lists the grants a search reads: the one owning
// connection_id, else every grant whose streams intersect the request.
// Every requested stream and the connection_id are checked against the
// index first, so a name outside the grants costs no RS call.
func (set *sourceSet) searchSources(a searchArgs) ([]searchSource, *toolError) {
	if te := set.checkNames(a.ConnectionID, a.Streams...); te != nil {
		return nil, te
	}
	grants, ix := set.grants, set.ix
	if a.ConnectionID != "" {
		g, te := set.route("", a.ConnectionID)
		if te != nil {
			return nil, te
		}
		return []searchSource{{grant: g, streams: a.Streams, connectionID: a.ConnectionID}}, nil
	}
	if len(grants) == 1 {
		return []searchSource{{grant: grants[0], streams: a.Streams}}, nil
	}
	var out []searchSource
	for _, g := range grants {
		have := ix.GrantStreams(g.Key)
		if len(a.Streams) == 0 {
			if len(have) > 0 {
				out = append(out, searchSource{grant: g})
			}
			continue
		}
		var both []string
		for _, st := range a.Streams {
			if contains(have, st) {
				both = append(both, st)
			}
		}
		if len(both) > 0 { // never send a grant stream names it does not have
			out = append(out, searchSource{grant: g, streams: both})
		}
	}
	if len(out) == 0 { // every grant failed to read and none has a cached index
		return nil, newAdapterError("source_unavailable", "no grant that could be read has the requested streams; retry shortly, or call schema", field{"param", "streams"})
	}
	return out, nil
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
			Limit: min(a.Limit+skip, maxRSPage), Cursor: cursor, ConnectionID: src.connectionID, Filter: filter})
		if err != nil {
			return sourceRead{err: err}
		}
		if rc := sp.Meta.Recall; rc != nil && ((rc.Complete != nil && !*rc.Complete) || rc.RankingScope == "candidate_window") {
			r.recall = append(r.recall, recallNote(rc))
		}
		r.rsWarns = appendNewWarnings(r.rsWarns, sp.Meta.Warnings)
		if checkAt >= 0 && checkAt < len(sp.Data) {
			r.shifted = hitPrint(sp.Data[checkAt]) != pos.lastHit
			checkAt = -1
		} else if checkAt >= 0 {
			checkAt -= len(sp.Data)
		}
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

// rsRefusedCursor reports whether err is the RS refusing a search cursor
// it issued. The adapter's cursor is sealed, so the RS cursor inside is
// one the RS gave; the RS still refuses it when the token presenting it
// is not the one that began the search (the reference binds its search
// snapshot to the token's authority, so a refreshed token of the same
// grant is refused: D22, reference-implementation/operations/
// rs-search-lexical/index.ts) or when its snapshot expired (five minutes
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
	pages := (st.Returned+a.Limit+maxRSPage-1)/maxRSPage + 1
	r := s.readSource(ctx, src, a, filter, st, sourcePosition{skip: st.Returned, lastHit: st.LastHit}, pages)
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
