package page

import (
	"sort"
	"strconv"
	"strings"
)

// hitLine is one hit's text line with everything that does not depend on
// the snippet's length worked out once: fitting tries a dozen lengths.
type hitLine struct {
	head    string // "\n<n>. <fetch id> "
	title   string // the title on one line
	when    string // " — <event time>" after the title, never cut; "" when the title holds it
	label   string // " (<source>)" or ""
	field   string // " <matched field>: " or ""
	snippet Marked
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
	case StripMarks(h.Snippet) == h.Title:
		l.fixed, l.hasFixed = " "+h.SnippetField+": "+theTitle, true // the match is the title itself; do not repeat it
	default:
		l.field, l.snippet = " "+h.SnippetField+": ", ParseMarked(oneLine(h.Snippet))
	}
	full, _ := TruncateRunes(l.title, searchTitleRunes)
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
		title, _ = TruncateRunes(l.title, max(24, n))
		title += l.when
	}
	switch {
	case l.hasFixed && l.fixed == "":
		return hitShown{title: title}
	case l.hasFixed:
		return hitShown{title: title, snippet: theTitle}
	case n == 0:
		return hitShown{title: title, snippet: Ellipsis}
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
	l, _ = TruncateRunes(oneLine(l), maxHitLabel)
	return l
}
