package page

// searchResult is search's structuredContent: the same page as the text,
// for a model reading JSON. Hosts such as Claude Code and Codex
// hand the model this object instead of the text, so it carries the same
// handles, warnings, source mix and hits (titles and snippets cut exactly
// as on the text's lines) and the same hint, and no REST envelope.
type searchResult struct {
	// FirstFetchID is the text's first_fetch_id: the top hit's fetch id,
	// the one a model most often fetches next.
	FirstFetchID string      `json:"first_fetch_id,omitempty"`
	HitsShown    int         `json:"hits_shown"`
	HasMore      bool        `json:"has_more"`
	NextCursor   string      `json:"next_cursor,omitempty"` // continues with any limit
	SourceMix    string      `json:"source_mix,omitempty"`  // pages over more than one connection
	Warnings     []string    `json:"warnings,omitempty"`
	How          string      `json:"how,omitempty"` // what a hit row holds and what to do with it
	Hits         [][5]string `json:"hits"`
}

// A hit row's cells are the text line's parts in its order: id, title,
// source, field, snippet (searchHow names them). Rows of cells, not
// objects, keep the page near the text's size: member names on every hit
// cost a model more than the hits' own titles.

// hitRow is one hit as its text line shows it.
func hitRow(h searchHit, shown hitShown) [5]string {
	return [5]string{h.Ref.ID(), shown.title, h.label(), h.SnippetField, shown.snippet}
}

// searchHow is the structured page's hint: what to do with a hit. (How to
// page is the tool description's and the instructions': cursor alone.)
const searchHow = "hits are [id,title,source,field,snippet], cut with …; fetch(id) for the document; " +
	continuationHow

func (p *searchPage) structured() searchResult {
	l := p.layout()
	r := p.structuredHead()
	r.Warnings = l.warnings
	r.Hits = make([][5]string, len(p.hits))
	for i, h := range p.hits {
		r.Hits[i] = hitRow(h, l.shown[i])
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
	head.Hits, head.How = [][5]string{}, searchHow
	return len(MarshalNoEscape(head))
}
