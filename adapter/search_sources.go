package adapter

import (
	"context"
	"fmt"
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
func (s *Server) sourceCandidates(ctx context.Context, src searchSource, a searchArgs, filter rsclient.Filter, st sourceState) sourceRead {
	var r sourceRead
	cursor, skip := st.C, st.O
	for pages := 0; pages < 2 && len(r.cands) < a.Limit; pages++ {
		want := a.Limit + skip
		if want > maxRSPage {
			want = maxRSPage
		}
		sp, _, err := s.rs.Search(ctx, src.grant.Bearer, rsclient.SearchQuery{Mode: a.Mode, Q: a.Q, Streams: src.streams,
			Limit: want, Cursor: cursor, ConnectionID: src.connectionID, Filter: filter})
		if err != nil {
			return sourceRead{err: err}
		}
		if rc := sp.Meta.Recall; rc != nil && ((rc.Complete != nil && !*rc.Complete) || rc.RankingScope == "candidate_window") {
			r.recall = append(r.recall, recallNote(rc))
		}
		r.rsWarns = appendNewWarnings(r.rsWarns, sp.Meta.Warnings)
		for i := skip; i < len(sp.Data); i++ {
			r.cands = append(r.cands, candidate{hit: sp.Data[i], rank: st.R + len(r.cands), cursor: cursor, offset: i, next: sp.NextCursor})
		}
		if sp.NextCursor == "" {
			r.moreAfter = sp.HasMore && len(sp.Data) > skip
			return r
		}
		cursor, skip = sp.NextCursor, 0
	}
	r.moreAfter = true
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
