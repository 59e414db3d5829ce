package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

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

// searchPage is a merged page ready to render.
type searchPage struct {
	hits       []searchHit
	hasMore    bool
	nextCursor string
	warnings   []warning
	recall     []string
	multiConn  bool
}

// searchFanIn runs one merged search page across the source set (R-7,
// Grants that could not be read are warnings on the page.
func (s *Server) searchFanIn(ctx context.Context, set *sourceSet, a searchArgs, filter rsclient.Filter, prev *searchCursor) (*searchPage, *toolError) {
	sources, te := set.searchSources(a)
	if te != nil {
		return nil, te
	}
	ix := set.ix
	hash := queryHash(a, filter)
	state := make([]sourceState, len(sources))
	for i, src := range sources {
		state[i].K = grantTag(src.grant)
	}
	if prev != nil {
		c := *prev
		if c.H != hash || len(c.S) != len(sources) {
			return nil, newAdapterError("invalid_cursor", "this search cursor belongs to other search arguments: keep q (or query), mode, streams, filter and connection_id as on the first page (limit may change), or repeat the search without cursor", field{"param", "cursor"})
		}
		for i := range c.S {
			if c.S[i].K != state[i].K {
				return nil, newAdapterError("invalid_cursor", "this search cursor was issued for another set of grants; repeat the first search", field{"param", "cursor"})
			}
		}
		state = c.S
	}

	page := &searchPage{warnings: append([]warning(nil), set.warns...)}
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
			return nil, s.rsError(set, sources[i].grant, err, firstStream(a.Streams), a.ConnectionID) // nothing to degrade to
		}
		page.warnings = append(page.warnings, warning{Code: "source_unavailable",
			Message: fmt.Sprintf("source %d of %d failed (%s); its hits are missing from this page", i+1, len(sources), errorCode(err))})
		state[i].D = true
	}

	merged := rankMerge(cands, a.Limit)
	taken := make([]int, len(sources))
	for _, c := range merged {
		taken[c.source]++
		page.hits = append(page.hits, newSearchHit(c.hit, ix, s.rs.BaseURL()))
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
		page.nextCursor = s.sealSearchCursor(searchCursor{V: 1, H: hash, S: state, A: a.shape()})
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

// coverageWarning tells a lexical search that found nothing, or whose
// ranking was not exhaustive, that semantic or hybrid search is offered,
// with the exact arguments to retry. The real RS's lexical index once
// covered one connection's bodies only while recall claimed complete;
// semantic and hybrid found the records (D5).
func (s *Server) coverageWarning(ctx context.Context, a searchArgs, page *searchPage) {
	if a.Mode != "lexical" || (len(page.hits) > 0 && len(page.recall) == 0) {
		return
	}
	modes := s.searchModes(ctx)
	alt := ""
	for _, m := range []string{"semantic", "hybrid"} {
		if contains(modes, m) {
			alt = m
			break
		}
	}
	if alt == "" {
		return
	}
	retry := searchRetry{Q: a.Q, Mode: alt, Streams: a.Streams, ConnectionID: a.ConnectionID, Filter: canonicalJSON(a.Filter)}
	why := "no lexical hits"
	if len(page.hits) > 0 {
		why = "lexical ranking not exhaustive"
	}
	var others []string
	for _, m := range modes {
		if m != "lexical" {
			others = append(others, m)
		}
	}
	page.warnings = append(page.warnings, warning{Code: "search_coverage",
		Message: fmt.Sprintf("%s (lexical indexes may miss streams or connections); %s also offered. Retry: search %s",
			why, strings.Join(others, "|"), marshalNoEscape(retry))})
}

// searchRetry is the exact search call a lexical miss suggests: the same
// arguments in another mode.
type searchRetry struct {
	Q            string          `json:"q"`
	Mode         string          `json:"mode"`
	Streams      []string        `json:"streams,omitempty"`
	ConnectionID string          `json:"connection_id,omitempty"`
	Filter       json.RawMessage `json:"filter,omitempty"`
}
