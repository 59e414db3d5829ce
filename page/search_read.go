package page

import (
	"strings"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// Hit is one merged search hit as its reads left it: what the RS said of
// it, its source's names, and what the record's own title and
// event-time fields read for the page gave.
type Hit struct {
	Ref          contentladder.RecordRef
	ConnectionID string
	// ConnectorKey and Display name the hit's source.
	ConnectorKey, Display string
	// Snippet is the RS's snippet (<mark> tags kept) of SnippetField.
	Snippet, SnippetField string
	// EmittedAt is when the RS ingested the record, AuthoredAt when the
	// RS says it was authored ("" when it does not say).
	EmittedAt, AuthoredAt string
	// TitleField is the stream's title field ("" when it has none).
	TitleField string
	// ReadTitle and ReadTime are the record's title and event-time
	// fields as read for the page ("" when not read or empty).
	ReadTitle, ReadTime string
	// TitlePending marks a hit whose title read was still running when
	// the page was due: its stand-in title says so.
	TitlePending bool
}

// SearchRead is one search call's reads, everything its page is rendered
// from: the merged hits with their titles, the warnings in page order,
// and how the page continues.
type SearchRead struct {
	Hits     []Hit
	Warnings []Warning
	// BoundedRecall says a source ranked over a bounded candidate window:
	// more matches may exist.
	BoundedRecall bool
	// HasMore and NextCursor are the paging handles of a page that shows
	// every hit; Resume, when set, gives them for a page that shows only
	// its first shown hits (the rest are left for the next page), and
	// replaces them.
	HasMore    bool
	NextCursor string
	Resume     func(shown int) (hasMore bool, nextCursor string)
	// Bytes bounds both channels of the page (0: only the budget per hit).
	Bytes int
}

// TitlesPendingCode is the page warning of hits whose title read outlasted
// the page's title budget.
const TitlesPendingCode = "titles_pending"

// PendingTitleMark starts the stand-in title of a hit whose title read was
// still running when the page was due: the line says its title is a
// stand-in, in both channels (the title is cut from its end, so the mark
// survives any cut).
const PendingTitleMark = "(title pending) "

// maxEventTime bounds the event time a hit shows: a timestamp is far
// shorter; a misnamed field's long text is not shown whole.
const maxEventTime = 40

// searchHit is one hit as the page shows it: its snippet cut to the page's
// bound, its event time and its title settled.
type searchHit struct {
	Ref                   contentladder.RecordRef
	ConnectionID          string
	ConnectorKey, Display string
	Title                 string
	Snippet, SnippetField string
	EmittedAt             string
	// EventTime is when the record happened: its event-time field as read
	// for the page, else the RS's authored_at.
	EventTime string
}

// searchHitOf settles what hit h shows. Its title is the record's title
// field where one was read, else the snippet where it is the whole title
// field, else source / stream / event time.
func searchHitOf(h Hit) searchHit {
	out := searchHit{Ref: h.Ref, ConnectionID: h.ConnectionID, ConnectorKey: h.ConnectorKey, Display: h.Display,
		SnippetField: h.SnippetField, EmittedAt: h.EmittedAt, EventTime: h.AuthoredAt}
	if h.Snippet != "" {
		out.Snippet, _ = TruncateMarked(h.Snippet, searchResultSnippet)
	}
	if h.ReadTime != "" {
		out.EventTime, _ = TruncateRunes(oneLine(h.ReadTime), maxEventTime)
	}
	if title := oneLine(h.ReadTitle); title != "" {
		out.Title = title
	} else {
		out.Title = hitTitle(out, h.TitleField)
	}
	if h.TitlePending {
		out.Title = PendingTitleMark + out.Title
	}
	return out
}

// searchPage is one search page being fitted: the hits it shows, its
// handles and warnings, and the fit once made.
type searchPage struct {
	hits          []searchHit
	hasMore       bool
	nextCursor    string
	warnings      []Warning
	boundedRecall bool
	multiConn     bool
	laid          *searchLayout // the fitted page, once
	// ceiling is the result ceiling, and held the hits left for the next
	// page to stay within it.
	ceiling int
	held    int
}

// newSearchPage settles every hit and fits the page to its ceiling.
func newSearchPage(r SearchRead) *searchPage {
	p := &searchPage{hasMore: r.HasMore, nextCursor: r.NextCursor, warnings: r.Warnings, boundedRecall: r.BoundedRecall,
		ceiling: r.Bytes, hits: make([]searchHit, len(r.Hits))}
	for i, h := range r.Hits {
		p.hits[i] = searchHitOf(h)
	}
	p.multiConn = multiConnection(p.hits)
	if r.Resume != nil {
		p.fitCeiling(r.Resume)
	}
	return p
}

// Search renders a search page: first_fetch_id, the paging handles, the
// source mix and warnings, then every hit with its fetch id, title,
// source and snippet, cut evenly to fit; and a link to the top hit's
// match.
func Search(r SearchRead) Result {
	p := newSearchPage(r)
	return result(p.text(), p.structured(), p.resourceLinks())
}

// hasPendingMark reports whether a title starts with PendingTitleMark.
func hasPendingMark(title string) bool { return strings.HasPrefix(title, PendingTitleMark) }
