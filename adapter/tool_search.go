package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// defaultSearchLimit is the merged hit count when limit is omitted.
const defaultSearchLimit = 25

var searchTool = toolSpec{
	Name:  "search",
	Title: "Search PDPP records",
	Description: "Search granted records by text. mode: lexical (default, exact terms), semantic or hybrid when the server offers them. " +
		"limit caps merged hits across all sources (default 25); continue with cursor=next_cursor alone (it keeps q). " +
		"Hit ids are self-contained fetch handles." + wholePage,
	Handle: searchLogic.handle,
}

type searchArgs struct {
	Q            string          `json:"q"`
	Query        string          `json:"query"` // alias of q (ChatGPT's search/fetch connector contract)
	Mode         string          `json:"mode"`
	Streams      []string        `json:"streams"`
	Limit        int             `json:"limit"`
	Cursor       string          `json:"cursor"`
	Filter       json.RawMessage `json:"filter"`
	ConnectionID string          `json:"connection_id"`
	// GrantID searches only that grant (one of the cached grants; the RS
	// still enforces it), e.g. the other of two grants that serve one
	// connection and neither covers the other.
	GrantID string `json:"grant_id"`
}

// searchRead is a search call checked: the cursor it continues (nil for
// a first page) and its parsed filter.
type searchRead struct {
	prev   *searchCursor
	filter rsclient.Filter
}

// searchLogic is search's part of a call: every granted source searched
// at once, the hits merged into one page.
var searchLogic = toolLogic[searchArgs, searchRead]{
	check: func(s *Server, a *searchArgs) (searchRead, *toolError) {
		var r searchRead
		var te *toolError
		if r.prev, te = s.continueSearch(a); te != nil {
			return r, te
		}
		r.filter, te = a.prepare()
		return r, te
	},
	grantID: func(a searchArgs) string { return a.GrantID },
	run:     runSearch,
}

// runSearch searches the sources, refines the merged page (titles,
// coverage) and renders it.
func runSearch(ctx context.Context, c *routedCall, a searchArgs, r searchRead) (*mcp.CallToolResult, *toolError) {
	s, set := c.s, c.set
	if te := s.checkSearchable(ctx, set, a); te != nil {
		return nil, te
	}
	found, te := s.searchFanIn(ctx, set, a, r.filter, r.prev)
	if te != nil {
		return nil, te
	}
	s.refineSearchPage(ctx, set, a, r.filter, found)
	found.noteNeighbours(a.Mode)
	// Every read is done (hits, titles, coverage): the page is rendered
	// once, from them.
	return pageResult(page.Search(found.read())), nil
}

// continueSearch opens the cursor of a continued search and folds its
// arguments into a; nil for a first page. The query alias moves to q
// first, so the cursor's q is compared whichever name the call used.
func (s *Server) continueSearch(a *searchArgs) (*searchCursor, *toolError) {
	if a.Cursor == "" {
		return nil, nil
	}
	if a.Q == "" {
		a.Q, a.Query = a.Query, ""
	}
	return s.openSearchCursor(a)
}

// prepare checks what needs no RS call (search text, name grammar, filter
// shape), fills in the default mode and limit, and returns the parsed
// filter.
func (a *searchArgs) prepare() (rsclient.Filter, *toolError) {
	if e := a.searchText(); e != nil {
		return nil, e
	}
	if a.Mode == "" {
		a.Mode = "lexical"
	}
	if a.Limit == 0 {
		a.Limit = defaultSearchLimit
	}
	segs := []seg{{"connection_id", a.ConnectionID}, {"grant_id", a.GrantID}}
	for _, st := range a.Streams {
		segs = append(segs, seg{"streams", st})
	}
	if e := validateSegments(segs...); e != nil {
		return nil, e
	}
	return parseFilter(a.Filter)
}

// checkSearchable rejects names outside the grants and a mode the RS does
// not offer. Names first: a stream or connection outside the grant costs
// no RS call, not even the metadata read that lists the modes.
func (s *Server) checkSearchable(ctx context.Context, set *sourceSet, a searchArgs) *toolError {
	if te := set.checkNames(a.ConnectionID, a.Streams...); te != nil {
		return te
	}
	if a.Mode == "lexical" {
		// The default mode is not checked, but a lexical miss's retry
		// reads the modes: start that read beside the search, not after
		// it (held for minutes: at most one read per process and period).
		s.prm.prefetch(ctx, s.rs)
		return nil
	}
	modes, known := s.offeredModes(ctx)
	if contains(modes, a.Mode) || !known {
		return nil // unchecked: the RS answers for itself, never a false "not offered"
	}
	return newAdapterError("search_mode_unavailable",
		fmt.Sprintf("this resource server does not offer %s search; available: %s", a.Mode, strings.Join(modes, ", ")),
		field{"param", "mode"}, field{"available_modes", modes})
}

// searchText settles the q/query alias: exactly one of them, with text.
// q carries the text from here on.
func (a *searchArgs) searchText() *toolError {
	switch {
	case a.Q != "" && a.Query != "":
		return newAdapterError("invalid_request", "give the search text once: q or query (an alias), not both", field{"param", "query"})
	case a.Query != "":
		a.Q, a.Query = a.Query, ""
	}
	if strings.TrimSpace(a.Q) == "" {
		return newAdapterError("invalid_request", "q (or its alias query) must contain text", field{"param", "q"})
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
