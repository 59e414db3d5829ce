package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pdpp/pdpp-mcp/rsclient"
	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// maxRSPage is the RS's largest search page.
const maxRSPage = 100

// searchSource is one grant a search fans out to.
type searchSource struct {
	grant        Grant
	streams      []string // requested streams ∩ the grant's; nil = all
	connectionID string
}

// sourceState is one source's position in the merged result. The whole
// merged paging state lives in the cursor, none on the server.
type sourceState struct {
	K string `json:"k"`           // first 8 chars of the grant key: guards slot order
	C string `json:"c,omitempty"` // RS cursor of the page to continue from ("" = first page)
	O int    `json:"o,omitempty"` // hits of that page already returned
	R int    `json:"r,omitempty"` // hits of this source returned so far
	D bool   `json:"d,omitempty"` // exhausted
}

type searchCursor struct {
	V int           `json:"v"`
	H string        `json:"h"` // binds the cursor to the query arguments
	S []sourceState `json:"s"`
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

// searchPage is a merged page ready to render.
type searchPage struct {
	hits       []searchHit
	hasMore    bool
	nextCursor string
	warnings   []warning
	recall     []string
	multiConn  bool
}

func queryHash(a searchArgs, filter rsclient.Filter) string {
	f, _ := json.Marshal(filter)
	h := sha256.Sum256([]byte(strings.Join([]string{a.Q, a.Mode, strings.Join(a.Streams, "\x1f"), a.ConnectionID, fmt.Sprint(a.Limit), string(f)}, "\x1e")))
	return base64.RawURLEncoding.EncodeToString(h[:9])
}

// searchFanIn runs one merged search page across the source set.
func (s *Server) searchFanIn(ctx context.Context, a searchArgs, filter rsclient.Filter) (*searchPage, *toolError) {
	sources, ix, te := s.searchSources(ctx, a)
	if te != nil {
		return nil, te
	}
	hash := queryHash(a, filter)
	state := make([]sourceState, len(sources))
	for i, src := range sources {
		state[i].K = src.grant.Key[:8]
	}
	if a.Cursor != "" {
		c, err := decodeSearchCursor(a.Cursor)
		if err != nil || c.H != hash || len(c.S) != len(sources) {
			return nil, newAdapterError("invalid_cursor", "this search cursor does not belong to these search arguments; repeat the first search", field{"param", "cursor"})
		}
		for i := range c.S {
			if c.S[i].K != state[i].K {
				return nil, newAdapterError("invalid_cursor", "this search cursor was issued for another set of grants; repeat the first search", field{"param", "cursor"})
			}
		}
		state = c.S
	}

	page := &searchPage{}
	cands := make([][]candidate, len(sources))
	moreAfter := make([]bool, len(sources))
	recalls := make([][]string, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	sem := make(chan struct{}, s.cfg.FanOutConcurrency)
	for i, src := range sources {
		if state[i].D {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			sctx, cancel := context.WithTimeout(ctx, s.cfg.SourceTimeout)
			defer cancel()
			cands[i], moreAfter[i], recalls[i], errs[i] = s.sourceCandidates(sctx, src, a, filter, state[i])
			for j := range cands[i] {
				cands[i][j].source = i
			}
		}()
	}
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err == nil {
			page.recall = append(page.recall, recalls[i]...)
			continue
		}
		failed++
		if failed == len(sources) {
			return nil, fromError(err) // nothing to degrade to
		}
		page.warnings = append(page.warnings, warning{Code: "source_unavailable",
			Message: fmt.Sprintf("source %d of %d failed (%s); its hits are missing from this page", i+1, len(sources), errorCode(err))})
		state[i].D = true
	}

	merged := rankMerge(cands, a.Limit)
	taken := make([]int, len(sources))
	tf := newTitleFields(ix)
	for _, c := range merged {
		taken[c.source]++
		page.hits = append(page.hits, newSearchHit(c.hit, ix, tf, s.rs.BaseURL()))
	}
	for i := range sources {
		if state[i].D {
			continue
		}
		state[i] = advance(state[i], cands[i], taken[i], moreAfter[i])
		if !state[i].D {
			page.hasMore = true
		}
	}
	if page.hasMore {
		page.nextCursor = encodeSearchCursor(searchCursor{V: 1, H: hash, S: state})
	}
	conns := map[string]bool{}
	for _, h := range page.hits {
		conns[h.ConnectionID] = true
	}
	page.multiConn = len(conns) > 1
	return page, nil
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
	st.R += k
	if k < len(cands) {
		c := cands[k]
		st.C, st.O = c.cursor, c.offset
		return st
	}
	if len(cands) > 0 {
		last := cands[len(cands)-1]
		if last.next == "" && !moreAfter {
			st.D = true
			return st
		}
		st.C, st.O = last.next, 0
		if last.next == "" { // the RS has more but cannot page (hybrid): re-read and skip
			st.C, st.O = "", st.R
		}
		return st
	}
	if !moreAfter {
		st.D = true
	}
	return st
}

func encodeSearchCursor(c searchCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeSearchCursor(s string) (searchCursor, error) {
	var c searchCursor
	if len(s) > 8192 {
		return c, fmt.Errorf("cursor too long")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, err
	}
	if c.V != 1 {
		return c, fmt.Errorf("unknown cursor version")
	}
	for _, st := range c.S {
		if st.O < 0 || st.R < 0 || st.O > 10000 {
			return c, fmt.Errorf("cursor out of range")
		}
	}
	return c, nil
}

// searchSources lists the grants a search reads: the one owning
// connection_id, else every grant whose streams intersect the request.
func (s *Server) searchSources(ctx context.Context, a searchArgs) ([]searchSource, *schemaindex.Index, *toolError) {
	grants, te := s.sourceGrants(ctx)
	if te != nil {
		return nil, nil, te
	}
	ix, _, _ := s.sourceIndex(ctx, grants) // labels and stream intersection; search works without it
	if a.ConnectionID != "" {
		g, te := s.route(ctx, "", a.ConnectionID)
		if te != nil {
			return nil, nil, te
		}
		return []searchSource{{grant: g, streams: a.Streams, connectionID: a.ConnectionID}}, ix, nil
	}
	if len(grants) == 1 || ix == nil {
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
