package adapter

import "github.com/pdpp/pdpp-mcp/contentladder"

// searchResult is search's structuredContent: the hits in the
// OpenAI search shape, the page's handles and provenance under data, and
// a read around each top hit's match.
type searchResult struct {
	Results       []searchHitResult           `json:"results"`
	Data          searchPageData              `json:"data"`
	ContentLadder []contentladder.LadderEntry `json:"content_ladder,omitempty"`
}

func (searchResult) toolOutput() {}

// searchHitResult is one hit with its source identity.
type searchHitResult struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	URL          string `json:"url"`
	ConnectionID string `json:"connection_id"`
	ConnectorKey string `json:"connector_key"`
	Stream       string `json:"stream"`
	RecordID     string `json:"record_id"`
	DisplayName  string `json:"display_name,omitempty"`
	*hitSnippet
	MatchedFields []string `json:"matched_fields,omitempty"`
	AuthoredAt    string   `json:"authored_at,omitempty"`
	EmittedAt     string   `json:"emitted_at,omitempty"`
}

// hitSnippet is a hit's highlighted snippet and the field it came from;
// both members or neither.
type hitSnippet struct {
	Snippet      string `json:"snippet"`
	SnippetField string `json:"snippet_field"`
}

// searchPageData is the page's paging handles, source mix, recall and
// warnings.
type searchPageData struct {
	Object      string        `json:"object"` // always "search"
	Q           string        `json:"q"`
	Mode        string        `json:"mode"`
	ResultCount int           `json:"result_count"`
	HasMore     bool          `json:"has_more"`
	NextCursor  string        `json:"next_cursor,omitempty"`
	SourceMix   []sourceShare `json:"source_mix,omitempty"` // pages over more than one connection
	Recall      *searchRecall `json:"recall,omitempty"`
	Warnings    []warning     `json:"warnings,omitempty"`
}

// sourceShare is one connection's share of a search page.
type sourceShare struct {
	ConnectionID string `json:"connection_id"`
	Label        string `json:"label"`
	Count        int    `json:"count"`
}

// searchRecall says the ranking saw a bounded candidate window, with the
// RS's recall facts.
type searchRecall struct {
	Complete bool     `json:"complete"` // always false: only incomplete recall is reported
	Notes    []string `json:"notes"`
}

func (h searchHit) result() searchHitResult {
	r := searchHitResult{ID: h.Ref.ID(), Title: h.Title, URL: h.URL, ConnectionID: h.ConnectionID,
		ConnectorKey: h.ConnectorKey, Stream: h.Ref.Stream, RecordID: h.Ref.RecordID, DisplayName: h.Display,
		MatchedFields: h.MatchedFields, AuthoredAt: h.AuthoredAt, EmittedAt: h.EmittedAt}
	if h.Snippet != "" {
		r.hitSnippet = &hitSnippet{Snippet: h.Snippet, SnippetField: h.SnippetField}
	}
	return r
}

func (p *searchPage) structured(a searchArgs) searchResult {
	results := make([]searchHitResult, len(p.hits))
	for i, h := range p.hits {
		results[i] = h.result()
	}
	data := searchPageData{Object: "search", Q: a.Q, Mode: a.Mode, ResultCount: len(p.hits), HasMore: p.hasMore,
		NextCursor: p.nextCursor, Warnings: p.warnings}
	if p.multiConn {
		for _, m := range p.sourceMix() {
			data.SourceMix = append(data.SourceMix, sourceShare{ConnectionID: m.connectionID, Label: m.label, Count: m.count})
		}
	}
	if len(p.recall) > 0 {
		data.Recall = &searchRecall{Complete: false, Notes: p.recall}
	}
	return searchResult{Results: results, Data: data, ContentLadder: p.ladder(a)}
}
