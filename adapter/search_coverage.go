package adapter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pdpp/pdpp-mcp/internal/fanout"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// The real RS's semantic search has no relevance floor: it returns the
// limit nearest records for any query, nonsense included (reference
// implementation: server/search-semantic.ts, buildSemanticSnapshot keeps
// the nearest per connection whatever their distance), and hybrid merges
// those neighbours with the lexical matches. A semantic page therefore
// always "finds" something. Both the retry a lexical miss suggests and
// the semantic page itself say so, so a model does not present
// neighbours as matches.

// neighboursCaveat is what a semantic retry returns, said before the
// call.
const neighboursCaveat = "semantic search ranks records by meaning and returns the nearest ones for any query, " +
	"even when none contains these words or is about them: judge each hit by its title and snippet"

// Page notes of a semantic and a hybrid page.
const (
	semanticPageNote = "these hits are the records nearest in meaning to q: semantic search returns neighbours for any query, " +
		"so a hit need not contain the words of q or be about it; judge each by its title and snippet (lexical search finds exact words)"
	hybridPageNote = "hybrid mixes lexical matches (their snippets mark the words) with the records nearest in meaning to q, " +
		"which need not contain its words or be about it; judge an unmarked hit by its title and snippet"
)

// noteNeighbours puts a semantic or hybrid page's first warning: what its
// hits are. A lexical page, and a page without hits, needs none.
func (p *searchPage) noteNeighbours(mode string) {
	if len(p.hits) == 0 {
		return
	}
	var msg string
	switch mode {
	case "semantic":
		msg = semanticPageNote
	case "hybrid":
		msg = hybridPageNote
	default:
		return
	}
	p.warnings = append([]warning{{Code: "nearest_neighbours", Message: msg}}, p.warnings...)
}

// coverageWarnings tells a lexical search that found nothing, or whose
// ranking was not exhaustive, that semantic or hybrid search is offered,
// with the exact arguments to retry and what that retry returns
// (neighbours, not matches) — only when the retry returns anything at all
// (a stream without semantic fields answers 0 hits and
// source_skipped_not_applicable). The real RS's lexical index once covered
// one connection's bodies only while recall claimed complete; semantic and
// hybrid found the records.
func (s *Server) coverageWarnings(ctx context.Context, set *sourceSet, a searchArgs, filter rsclient.Filter, sp *searchPage) []warning {
	modes := s.searchModes(ctx)
	alt := ""
	for _, m := range []string{"semantic", "hybrid"} {
		if contains(modes, m) {
			alt = m
			break
		}
	}
	if alt == "" || !s.modeFinds(ctx, set, a, filter, alt) {
		return nil
	}
	retry := searchRetry{Q: a.Q, Mode: alt, Streams: a.Streams, ConnectionID: a.ConnectionID, GrantID: a.GrantID, Filter: canonicalJSON(a.Filter)}
	why := "no lexical hits"
	if len(sp.hits) > 0 {
		why = "lexical ranking not exhaustive"
	}
	caveat := neighboursCaveat
	if alt == "hybrid" {
		caveat = "hybrid search adds the records nearest in meaning for any query, " +
			"even ones that do not contain these words or are not about them: judge each unmarked hit by its title and snippet"
	}
	return []warning{{Code: "search_coverage",
		Message: fmt.Sprintf("%s (lexical indexes may miss streams or connections). %s. To try it: search %s",
			why, caveat, page.MarshalNoEscape(retry))}}
}

// mayWarnCoverage reports whether the page is a lexical miss that
// coverageWarnings checks: no hits, or a ranking that was not exhaustive.
// It reads only the page's hit count and recall notes, so it may run
// while the hits' titles are being filled in.
func (s *Server) mayWarnCoverage(a searchArgs, sp *searchPage) bool {
	return a.Mode == "lexical" && (len(sp.hits) == 0 || len(sp.recall) > 0)
}

// searchRetry is the exact search call a lexical miss suggests: the same
// arguments in another mode.
type searchRetry struct {
	Q            string          `json:"q"`
	Mode         string          `json:"mode,omitempty"`
	Streams      []string        `json:"streams,omitempty"`
	ConnectionID string          `json:"connection_id,omitempty"`
	GrantID      string          `json:"grant_id,omitempty"`
	Filter       json.RawMessage `json:"filter,omitempty"`
}

// modeFinds reports whether the search in another mode returns at least
// one hit: one limit-1 RS search per source, all at once (each under the
// process's refining-read limit and within Waits.Source from when its
// search starts), so checking three grants costs one round trip, not
// three; the first hit ends the others. The real RS advertises no search
// fields to client tokens, so trying is the only way to know a suggested
// retry is not a dead end. When no source could answer, the retry is
// still suggested: unchecked is not "none".
func (s *Server) modeFinds(ctx context.Context, set *sourceSet, a searchArgs, filter rsclient.Filter, mode string) bool {
	sources, te := set.searchSources(a)
	if te != nil {
		return true
	}
	ctx, found := context.WithCancel(ctx)
	defer found()
	hits, errs := fanout.Run(ctx, len(sources), fanout.Options{Shared: s.refining, Timeout: s.cfg.Waits.Source},
		func(ctx context.Context, i int) (bool, error) {
			src := sources[i]
			sp, _, err := s.rs.Search(ctx, src.grant.Bearer, rsclient.SearchQuery{Mode: mode, Q: a.Q, Streams: src.streams,
				Limit: 1, ConnectionID: src.connectionID, Filter: filter})
			if err != nil {
				return false, err
			}
			if len(sp.Data) > 0 {
				found() // the first hit ends the other checks
			}
			return len(sp.Data) > 0, nil
		})
	answered := false
	for i, hit := range hits {
		if hit {
			return true
		}
		answered = answered || errs[i] == nil
	}
	return !answered
}
