package adapter

// searchResult is search's structuredContent: the same page as the text,
// for a model reading JSON. Hosts such as Claude Code and Codex
// hand the model this object instead of the text, so it carries the same
// handles, warnings, source mix and hits (titles and snippets cut exactly
// as on the text's lines) and the same hint, and no REST envelope.
type searchResult struct {
	HitsShown    int               `json:"hits_shown"`
	HasMore      bool              `json:"has_more"`
	NextCursor   string            `json:"next_cursor,omitempty"` // continues with any limit
	FirstFetchID string            `json:"first_fetch_id,omitempty"`
	SourceMix    string            `json:"source_mix,omitempty"` // pages over more than one connection
	Warnings     []string          `json:"warnings,omitempty"`
	Results      []searchHitResult `json:"results"`
	How          string            `json:"how,omitempty"`
}

func (searchResult) toolOutput() {}

// searchHitResult is one hit as its text line shows it: fetch id, title,
// source label, matched field and snippet.
type searchHitResult struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Source  string `json:"source,omitempty"`
	Field   string `json:"field,omitempty"`
	Snippet string `json:"snippet,omitempty"`
}

// searchHow is the structured page's hint: what to do with a hit.
const searchHow = "fetch(id) returns a hit as a document; read_record_field(id, field_path=field, q) reads the text around a match; " +
	"snippets and titles ending in … are cut; pass next_cursor as cursor for more."

func (p *searchPage) structured() searchResult {
	l := p.layout()
	r := p.structuredHead()
	r.Warnings = l.warnings
	r.Results = make([]searchHitResult, len(p.hits))
	for i, h := range p.hits {
		r.Results[i] = searchHitResult{ID: h.Ref.ID(), Title: l.shown[i].title, Source: h.label(), Field: h.SnippetField,
			Snippet: l.shown[i].snippet}
	}
	if len(p.hits) > 0 {
		r.How = searchHow
	}
	return r
}

// structuredHead is the page's members besides warnings and hits.
func (p *searchPage) structuredHead() searchResult {
	r := searchResult{HitsShown: len(p.hits), HasMore: p.hasMore, NextCursor: p.nextCursor}
	if len(p.hits) > 0 {
		r.FirstFetchID = p.hits[0].Ref.ID()
	}
	if p.multiConn {
		r.SourceMix = p.sourceMixText()
	}
	return r
}

// structuredFraming is the bytes of the structured page besides its
// warnings and hits.
func (p *searchPage) structuredFraming() int {
	head := p.structuredHead()
	head.Results, head.How = []searchHitResult{}, searchHow
	return len(marshalNoEscape(head))
}
