package adapter

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pdpp/pdpp-mcp/contentladder"
	"github.com/pdpp/pdpp-mcp/page"
	"github.com/pdpp/pdpp-mcp/rsclient"
)

// Search rendering bounds.
const (
	searchResultSnippet = 320 // runes of a hit's snippet at most, in both channels
	searchTitleRunes    = 90
)

// searchHit is one merged hit with its source identity.
type searchHit struct {
	Ref                   contentladder.RecordRef
	ConnectionID          string
	ConnectorKey, Display string
	Title                 string
	Snippet, SnippetField string
	EmittedAt             string
	// EventTime is when the record happened: its event-time field as read
	// for the page (fillHitDetails), else the RS's authored_at.
	EventTime string
	grant     Grant // the grant the hit came through: its title read uses it
}

func newSearchHit(h rsclient.SearchHit, fields *streamFields) searchHit {
	ref := contentladder.RecordRef{ConnectionID: h.ConnectionID, Stream: h.Stream, RecordID: h.RecordKey}
	out := searchHit{Ref: ref, ConnectionID: h.ConnectionID, ConnectorKey: connectorKey(h.ConnectorID), Display: h.DisplayName,
		EmittedAt: h.EmittedAt, EventTime: h.AuthoredAt}
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
		out.SnippetField = h.Snippet.Field
		out.Snippet, _ = page.TruncateMarked(h.Snippet.Text, searchResultSnippet)
	}
	out.Title = hitTitle(out, fields.of(out).title)
	return out
}

// hitTitle is the record's own title when the snippet is a complete
// primary-title field, else source / stream / event time — never the
// snippet of body text. fillHitDetails replaces it with the
// record's title field where it can read one. titleField is the
// stream's title field ("" when it has none).
func hitTitle(h searchHit, titleField string) string {
	if h.SnippetField != "" && !strings.Contains(h.Snippet, page.Ellipsis) && titleField == h.SnippetField {
		if t := strings.TrimSpace(page.StripMarks(h.Snippet)); t != "" {
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

// maxRetryWarningText bounds a warning that ends in the exact call to
// retry: it repeats the caller's own arguments (q up to 1,000 characters,
// streams, filter), and a cut call is no call at all.
const maxRetryWarningText = 8 << 10

// warningTextLimit is how much of w one text line may show.
func warningTextLimit(w warning) int {
	if w.Code == "search_coverage" {
		return maxRetryWarningText
	}
	return maxWarningText
}

// maxHitLabel bounds a hit's source label in text.
const maxHitLabel = 40

// searchLayout is one search page fitted to its budget once, for both
// channels: the header facts, the warning lines, and each hit's title and
// snippet as shown (R-3: the text and structuredContent show the same).
type searchLayout struct {
	warnings []string   // the text's warning lines, without their newline
	shown    []hitShown // per hit, in page order
	lines    []hitLine  // per hit, prepared once for fitting and text
}

// hitShown is what one hit shows: the title and snippet as cut to fit.
type hitShown struct {
	title, snippet string
}

// hitJSONExtra is how many more bytes a hit takes in structuredContent
// than on its text line: member names and braces in place of the line's
// number and separators. The fit reserves it so both channels stay inside
// the page budget.
const hitJSONExtra = 24

// layout fits the page once; text and structured render from it.
func (p *searchPage) layout() *searchLayout {
	if p.laid != nil {
		return p.laid
	}
	l := &searchLayout{shown: make([]hitShown, len(p.hits)), warnings: p.layoutWarnings()}
	p.laid = l
	if len(p.hits) == 0 {
		return l
	}
	lines := make([]hitLine, len(p.hits))
	natural := make([]int, len(p.hits))
	floor := make([]int, len(p.hits))
	labels := make([]int, len(p.hits))
	for i, h := range p.hits {
		lines[i] = h.hitLine(i)
		labels[i] = len(h.label())
		natural[i] = len(lines[i].render(searchResultSnippet)) + hitJSONExtra + labels[i]
		floor[i] = len(lines[i].render(0)) + hitJSONExtra + labels[i]
	}
	l.lines = lines
	// A page that leaves hits for the next fills the ceiling; any other
	// keeps to searchTextBudget (within the ceiling).
	budget := searchTextBudget(len(p.hits))
	if p.ceiling > 0 {
		budget = min(budget, p.ceiling)
		if p.held > 0 {
			budget = p.ceiling
		}
	}
	room := budget - p.framing()
	sizes, ok := shareBudget(natural, floor, room)
	for i := range p.hits {
		n := 0 // unreachable with bounded ids and titles; never drop a hit
		switch {
		case ok && sizes[i] >= natural[i]: // the whole line fits (measured above)
			n = searchResultSnippet
		case ok:
			n = lines[i].fitRunes(sizes[i] - hitJSONExtra - labels[i])
		}
		l.shown[i] = lines[i].shown(n)
	}
	return l
}

// layoutWarnings are the page's warning lines: the sources', the recall
// note, and the note on hits left for the next page.
func (p *searchPage) layoutWarnings() []string {
	var out []string
	for _, w := range p.warnings {
		if w.Code == titlesPendingCode && !p.showsPendingTitle() {
			continue // every pending hit was left for the next page
		}
		out = append(out, truncateBytes("warning "+w.Code+": "+w.Message, warningTextLimit(w)))
	}
	if len(p.recall) > 0 {
		out = append(out, recallWarning)
	}
	if p.held > 0 {
		out = append(out, fmt.Sprintf("note: %d more hits did not fit this result (%d bytes at most); next_cursor continues with them",
			p.held, p.ceiling))
	}
	return out
}

// showsPendingTitle reports whether a hit the page shows has a pending
// title.
func (p *searchPage) showsPendingTitle() bool {
	for _, h := range p.hits {
		if strings.HasPrefix(h.Title, pendingTitleMark) {
			return true
		}
	}
	return false
}

// recallWarning is the line for a page ranked over a bounded window.
const recallWarning = "warning recall: ranked over a bounded candidate window, not all matches; more may exist, do not treat this page as exhaustive"

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
func (p *searchPage) text(a searchArgs) string {
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

// hitLine is one hit's text line with everything that does not depend on
// the snippet's length worked out once: fitting tries a dozen lengths.
type hitLine struct {
	head    string // "\n<n>. <fetch id> "
	title   string // the title on one line
	when    string // " — <event time>" after the title, never cut; "" when the title holds it
	label   string // " (<source>)" or ""
	field   string // " <matched field>: " or ""
	snippet page.Marked
	// full is the title as shown at any snippet length from
	// searchTitleRunes on (cut to searchTitleRunes, with its event time),
	// quotedFull its quoted form: worked out once, not at every probe.
	full, quotedFull string
	// fixed is the line's end when it does not depend on the length:
	// no matched field (""), or the match is the title itself.
	fixed    string
	hasFixed bool
}

// hitLine prepares hit i's line.
func (h searchHit) hitLine(i int) hitLine {
	l := hitLine{head: "\n" + strconv.Itoa(i+1) + ". " + h.Ref.ID() + " ", title: oneLine(h.Title)}
	if h.EventTime != "" && !strings.Contains(h.Title, h.EventTime) {
		l.when = " — " + h.EventTime
	}
	if label := h.label(); label != "" && !strings.Contains(h.Title, label) {
		l.label = " (" + label + ")"
	}
	switch {
	case h.SnippetField == "":
		l.hasFixed = true
	case page.StripMarks(h.Snippet) == h.Title:
		l.fixed, l.hasFixed = " "+h.SnippetField+": "+theTitle, true // the match is the title itself; do not repeat it
	default:
		l.field, l.snippet = " "+h.SnippetField+": ", page.ParseMarked(oneLine(h.Snippet))
	}
	full, _ := page.TruncateRunes(l.title, searchTitleRunes)
	l.full = full + l.when
	l.quotedFull = strconv.Quote(l.full)
	return l
}

// fitRunes is the longest snippet length (runes) whose line fits
// maxBytes, for a line that does not fit whole.
func (l hitLine) fitRunes(maxBytes int) int {
	return max(0, sort.Search(searchResultSnippet+1, func(n int) bool { return len(l.render(n)) > maxBytes })-1)
}

// render writes the line with the snippet cut to n runes.
func (l hitLine) render(n int) string { return l.line(l.shown(n)) }

// shown is the title and snippet the line shows with the snippet cut to n
// runes (the title is cut too when n is small, never below a readable
// stub; its event time never). A match on the title itself shows "(the
// title)".
func (l hitLine) shown(n int) hitShown {
	title := l.full
	if n < searchTitleRunes {
		title, _ = page.TruncateRunes(l.title, max(24, n))
		title += l.when
	}
	switch {
	case l.hasFixed && l.fixed == "":
		return hitShown{title: title}
	case l.hasFixed:
		return hitShown{title: title, snippet: theTitle}
	case n == 0:
		return hitShown{title: title, snippet: page.Ellipsis}
	}
	snippet, _ := l.snippet.Truncate(n)
	return hitShown{title: title, snippet: snippet}
}

// theTitle stands for a snippet that is the title itself.
const theTitle = "(the title)"

// line writes the text line of a hit as shown: number, fetch id, quoted
// title, source label, and the matched field with its snippet.
func (l hitLine) line(s hitShown) string {
	quoted := l.quotedFull
	if s.title != l.full {
		quoted = strconv.Quote(s.title)
	}
	out := l.head + quoted + l.label
	if l.hasFixed {
		return out + l.fixed
	}
	return out + l.field + s.snippet
}

// label names the hit's source: its connection's display name, else the
// connector key.
func (h searchHit) label() string {
	l := h.Display
	if l == "" {
		l = h.ConnectorKey
	}
	l, _ = page.TruncateRunes(oneLine(l), maxHitLabel)
	return l
}

// resourceLinks point resource-aware clients at the text around the top
// hit's match (a bounded field window whose resource read names the next
// and previous windows), or at the record when it has no matched field.
// One link, tersely named: Claude Code shows each link to the model as a
// line beside the page.
func (p *searchPage) resourceLinks(a searchArgs) []mcp.Content {
	if len(p.hits) == 0 || p.hits[0].ConnectionID == "" {
		return nil
	}
	h := p.hits[0]
	if h.SnippetField == "" {
		return []mcp.Content{mcp.NewResourceLink(contentladder.RecordURI(h.Ref), "hit 1", "", "application/json")}
	}
	q := markedTerm(h.Snippet)
	uri := contentladder.FieldWindowURI(contentladder.WindowSpec{Ref: h.Ref, FieldPath: h.SnippetField, Q: q, HasQ: q != ""})
	return []mcp.Content{mcp.NewResourceLink(uri, "hit 1 match", "", "text/plain")}
}

// oneLine folds whitespace runs (newlines included) to single spaces so a
// hit stays on its line.
func oneLine(s string) string {
	if isOneLine(s) {
		return s // most titles and snippets: no copy
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether strings.Join(strings.Fields(s), " ") is s:
// no leading, trailing or repeated white space, and none but ' '.
func isOneLine(s string) bool {
	prevSpace := true
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (r != ' ' || prevSpace) {
			return false
		}
		prevSpace = space
	}
	return !prevSpace || s == ""
}
