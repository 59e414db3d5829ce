package adapter

import (
	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// searchHit is one merged hit as the search read it: the page's hit (what
// the RS said, the source's names, the title and time read for it) and
// the grant it came through, whose bearer its title read uses.
type searchHit struct {
	page.Hit
	grant Grant
}

// newSearchHit is an RS hit with its source's names from the index (where
// the RS gave none) and its stream's title field.
func newSearchHit(h rsclient.SearchHit, fields *streamFields) searchHit {
	ref := contentladder.RecordRef{ConnectionID: h.ConnectionID, Stream: h.Stream, RecordID: h.RecordKey}
	out := searchHit{Hit: page.Hit{Ref: ref, ConnectionID: h.ConnectionID, ConnectorKey: connectorKey(h.ConnectorID),
		Display: h.DisplayName, EmittedAt: h.EmittedAt, AuthoredAt: h.AuthoredAt}}
	if fields != nil && fields.ix != nil {
		if src, ok := fields.ix.Connection(h.ConnectionID); ok {
			if out.ConnectorKey == "" {
				out.ConnectorKey = src.ConnectorKey
			}
			if out.Display == "" {
				out.Display = src.DisplayName
			}
		}
	}
	if h.Snippet != nil {
		out.SnippetField, out.Snippet = h.Snippet.Field, h.Snippet.Text
	}
	out.TitleField = fields.of(out).title
	return out
}

// read is everything the search page is rendered from: the hits with
// their titles read, the warnings in page order, and how a page that
// shows fewer hits than it merged continues.
func (p *searchPage) read() page.SearchRead {
	r := page.SearchRead{Hits: make([]page.Hit, len(p.hits)), Warnings: pageWarnings(p.warnings),
		BoundedRecall: len(p.recall) > 0, Bytes: p.ceiling}
	for i, h := range p.hits {
		r.Hits[i] = h.Hit
	}
	if p.next != nil && len(p.sources) == len(p.hits) {
		// The ranked merge took a prefix of each source's hits: a page of
		// the first shown hits takes the sources of those.
		r.Resume = func(shown int) (bool, string) {
			taken := make([]int, p.sourceCount)
			for _, src := range p.sources[:shown] {
				taken[src]++
			}
			return p.next(taken)
		}
	}
	return r
}
