package adapter

import (
	"context"
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// searchSources lists the grants a search reads: the one owning
// connection_id, else every grant whose streams intersect the request.
func (s *Server) searchSources(ctx context.Context, a searchArgs) ([]searchSource, *schemaindex.Index, *toolError) {
	set, te := s.sources(ctx)
	if te != nil {
		return nil, nil, te
	}
	grants, ix := set.grants, set.ix
	if a.ConnectionID != "" {
		g, te := set.route("", a.ConnectionID)
		if te != nil {
			return nil, nil, te
		}
		return []searchSource{{grant: g, streams: a.Streams, connectionID: a.ConnectionID}}, ix, nil
	}
	if len(grants) == 1 {
		out := make([]searchSource, len(grants))
		for i, g := range grants {
			out[i] = searchSource{grant: g, streams: a.Streams}
		}
		return out, ix, nil
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
	if len(out) == 0 {
		return nil, nil, newAdapterError("unknown_stream", "no granted source has the requested streams; call schema for the stream index", field{"param", "streams"})
	}
	return out, ix, nil
}

// sourceCandidates reads up to limit unreturned hits of one source, from
// its saved position, following one more RS page when the first runs out.
func (s *Server) sourceCandidates(ctx context.Context, src searchSource, a searchArgs, filter rsclient.Filter, st sourceState) ([]candidate, bool, []string, error) {
	var out []candidate
	var recall []string
	cursor, skip := st.C, st.O
	for pages := 0; pages < 2 && len(out) < a.Limit; pages++ {
		want := a.Limit + skip
		if want > maxRSPage {
			want = maxRSPage
		}
		sp, _, err := s.rs.Search(ctx, src.grant.Bearer, rsclient.SearchQuery{Mode: a.Mode, Q: a.Q, Streams: src.streams,
			Limit: want, Cursor: cursor, ConnectionID: src.connectionID, Filter: filter})
		if err != nil {
			return nil, false, nil, err
		}
		if r := sp.Meta.Recall; r != nil && ((r.Complete != nil && !*r.Complete) || r.RankingScope == "candidate_window") {
			recall = append(recall, recallNote(r))
		}
		for i := skip; i < len(sp.Data); i++ {
			out = append(out, candidate{hit: sp.Data[i], rank: st.R + len(out), cursor: cursor, offset: i, next: sp.NextCursor})
		}
		if sp.NextCursor == "" {
			return out, sp.HasMore && len(sp.Data) > skip, recall, nil
		}
		cursor, skip = sp.NextCursor, 0
	}
	return out, true, recall, nil
}

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
