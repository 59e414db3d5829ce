package page

import (
	"fmt"
)

// maxRetryWarningText bounds a warning that ends in the exact call to
// retry: it repeats the caller's own arguments (q up to 1,000 characters,
// streams, filter), and a cut call is no call at all.
const maxRetryWarningText = 8 << 10

// warningTextLimit is how much of w one text line may show.
func warningTextLimit(w Warning) int {
	if w.Code == "search_coverage" {
		return maxRetryWarningText
	}
	return maxWarningText
}

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
		if w.Code == TitlesPendingCode && !p.showsPendingTitle() {
			continue // every pending hit was left for the next page
		}
		out = append(out, truncateBytes("warning "+w.Code+": "+w.Message, warningTextLimit(w)))
	}
	if p.boundedRecall {
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
		if hasPendingMark(h.Title) {
			return true
		}
	}
	return false
}

// recallWarning is the line for a page ranked over a bounded window.
const recallWarning = "warning recall: ranked over a bounded candidate window, not all matches; more may exist, do not treat this page as exhaustive"
