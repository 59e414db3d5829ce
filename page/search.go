package page

import (
	"fmt"
	"strings"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// Search rendering bounds.
const (
	searchResultSnippet = 320 // runes of a hit's snippet at most, in both channels
	searchTitleRunes    = 90
)

// hitTitle is the record's own title when the snippet is a complete
// primary-title field, else source / stream / event time — never the
// snippet of body text. A title read from the record's title field
// replaces it (searchHitOf). titleField is the stream's title field (""
// when it has none).
func hitTitle(h searchHit, titleField string) string {
	if h.SnippetField != "" && !strings.Contains(h.Snippet, Ellipsis) && titleField == h.SnippetField {
		if t := strings.TrimSpace(StripMarks(h.Snippet)); t != "" {
			return t
		}
	}
	return fallbackTitle(h.Display, h.ConnectorKey, h.Ref.Stream, h.EventTime, h.EmittedAt)
}

// sourceCount is one connection's share of a search page.
type sourceCount struct {
	connectionID, label string
	count               int
}

// sourceMix counts hits per connection, in first-seen order.
func (p *searchPage) sourceMix() []sourceCount {
	var out []sourceCount
	at := map[string]int{}
	for _, h := range p.hits {
		i, ok := at[h.ConnectionID]
		if !ok {
			i = len(out)
			at[h.ConnectionID] = i
			out = append(out, sourceCount{connectionID: h.ConnectionID, label: strings.Trim(h.ConnectorKey+" "+h.Display, " ")})
		}
		out[i].count++
	}
	return out
}

// markedTerm is the first highlighted term of a snippet: the exact text
// the field contains, so a case-sensitive field-window q finds it. "" when
// the snippet marks nothing (a semantic or hybrid hit): the query's words
// need not occur in the field then (on the reference RS 4 of 5 semantic
// continuations with q failed with query_not_found; D21).
func markedTerm(snippet string) string {
	if _, rest, ok := strings.Cut(snippet, "<mark>"); ok {
		if term, _, ok := strings.Cut(rest, "</mark>"); ok && strings.TrimSpace(term) != "" {
			return term
		}
	}
	return ""
}

// searchTextBudget is the content[] byte budget of a page of n hits:
// room for the handles plus a share per hit.
func searchTextBudget(n int) int { return 2000 + 250*n }

// searchFooter says what to do with a hit; printed once per page.
const searchFooter = "\nhit lines: fetch id \"title\" (source) matched_field: snippet, cut with …; " +
	"fetch(id) returns a hit as a document; " + continuationHow + "."

// continuationHow is the per-mode way on from a hit, the same in both
// channels: q only where the snippet marks a word the field contains.
const continuationHow = "read_record_field(id, field_path, q=a word marked in the snippet) reads the text around a lexical match; " +
	"a hit with no marked word (semantic, hybrid) reads from the field's start: read_record_field(id, field_path)"

// maxHitLabel bounds a hit's source label in text.
const maxHitLabel = 40

// header is the text's first line and the source mix: first_fetch_id
// first, then the paging handles.
func (p *searchPage) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "search: %d hits.", len(p.hits))
	if len(p.hits) > 0 {
		fmt.Fprintf(&b, " first_fetch_id=%s", p.hits[0].Ref.ID())
	}
	fmt.Fprintf(&b, " has_more=%t", p.hasMore)
	if p.nextCursor != "" {
		fmt.Fprintf(&b, " next_cursor=%s (any limit)", p.nextCursor)
	}
	if p.multiConn {
		b.WriteString("\nsource_mix:" + p.sourceMixText())
	}
	return b.String()
}

// sourceMixText is the source mix as the text's source_mix line shows it.
func (p *searchPage) sourceMixText() string {
	var b strings.Builder
	for _, m := range p.sourceMix() {
		fmt.Fprintf(&b, " %s(%s)=%d", m.connectionID, truncateBytes(m.label, maxHitLabel), m.count)
	}
	return strings.TrimPrefix(b.String(), " ")
}

// text renders every hit of the page for a model that reads only
// content[]: first_fetch_id first, paging handles, source mix, then one
// line per hit whose title and snippet are cut evenly to fit the budget.
func (p *searchPage) text() string {
	l := p.layout()
	var b strings.Builder
	// The page fits its budget (layout): one allocation, not a doubling
	// series.
	b.Grow(searchTextBudget(len(p.hits)))
	b.WriteString(p.header())
	for _, w := range l.warnings {
		b.WriteString("\n" + w)
	}
	if len(p.hits) == 0 {
		return b.String()
	}
	for i := range p.hits {
		b.WriteString(l.lines[i].line(l.shown[i]))
	}
	b.WriteString(searchFooter)
	return b.String()
}

// resourceLinks point resource-aware clients at the text around the top
// hit's match (a bounded field window whose resource read names the next
// and previous windows), or at the record when it has no matched field.
// One link, tersely named: Claude Code shows each link to the model as a
// line beside the page.
func (p *searchPage) resourceLinks() []Link {
	if len(p.hits) == 0 || p.hits[0].ConnectionID == "" {
		return nil
	}
	h := p.hits[0]
	if h.SnippetField == "" {
		return []Link{{URI: contentladder.RecordURI(h.Ref), Name: "hit 1", MIMEType: "application/json"}}
	}
	q := markedTerm(h.Snippet)
	uri := contentladder.FieldWindowURI(contentladder.WindowSpec{Ref: h.Ref, FieldPath: h.SnippetField, Q: q, HasQ: q != ""})
	return []Link{{URI: uri, Name: "hit 1 match", MIMEType: "text/plain"}}
}
