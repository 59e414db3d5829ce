package searchindex

import "strings"

// Snippet shape, after FTS5 snippet(…, '<mark>', '</mark>', '…', 48).
const (
	// SnippetTokens is the window size of a lexical snippet in tokens.
	SnippetTokens = 48
	// snippetLead is how many tokens of context precede the first match.
	snippetLead = SnippetTokens / 4
	// MaxSnippetBytes bounds the original text a snippet covers, so a
	// field of giant tokens or separator runs cannot make a huge hit.
	MaxSnippetBytes = 2048
	// MarkOpen and MarkClose wrap matched tokens in lexical snippets.
	MarkOpen  = "<mark>"
	MarkClose = "</mark>"
	// Ellipsis marks a snippet that does not reach its field's start/end.
	Ellipsis = "…"
)

// tokSpan is one token's byte range and whether it matches the query.
type tokSpan struct {
	start, end int
	match      bool
}

// lexicalHit builds the Hit for a ranked document: matched fields, the best
// field (most matching tokens, then field order) and its snippet.
func (ix *Index) lexicalHit(s scored, terms []string, q Query) Hit {
	dd := &ix.docs[s.doc]
	h := Hit{Key: dd.key, Score: s.score, Sources: []string{SourceLexical}}
	want := make(map[string]bool, len(terms))
	for _, t := range terms {
		want[t] = true
	}
	best, bestHits := -1, 0
	var bestSpans []tokSpan
	for fi, f := range dd.fields {
		if q.FieldAllowed != nil && !q.FieldAllowed(dd.key, f.name) {
			continue
		}
		spans, hits := matchSpans(f.text, want)
		if hits == 0 {
			continue
		}
		h.MatchedFields = append(h.MatchedFields, f.name)
		if hits > bestHits {
			best, bestHits, bestSpans = fi, hits, spans
		}
	}
	if best >= 0 {
		h.SnippetField = dd.fields[best].name
		h.Snippet = buildSnippet(dd.fields[best].text, bestSpans)
	}
	return h
}

// matchSpans tokenizes text and marks the tokens that are query terms.
func matchSpans(text string, want map[string]bool) (spans []tokSpan, hits int) {
	forEachToken(text, func(tok string, start, end int) bool {
		m := want[tok]
		if m {
			hits++
		}
		spans = append(spans, tokSpan{start, end, m})
		return true
	})
	return spans, hits
}

// Snippet returns the lexical snippet of text for query: a window of about
// SnippetTokens tokens around the first match, matches wrapped in
// MarkOpen/MarkClose on the original text, Ellipsis where the window stops
// short of the text's start or end. It is "" when nothing matches.
func Snippet(text, query string) string {
	want := make(map[string]bool)
	for _, t := range queryTerms(query) {
		want[t] = true
	}
	spans, hits := matchSpans(text, want)
	if hits == 0 {
		return ""
	}
	return buildSnippet(text, spans)
}

// buildSnippet renders the window around the first matching span.
func buildSnippet(text string, spans []tokSpan) string {
	first := 0
	for first < len(spans) && !spans[first].match {
		first++
	}
	if first == len(spans) {
		return ""
	}
	a := max(first-snippetLead, 0)
	b := min(a+SnippetTokens, len(spans)) // window is spans[a:b]
	a = max(b-SnippetTokens, 0)
	// Byte range covered; the window reaches the text's edges only when it
	// holds the first/last token.
	lo, hi := spans[a].start, spans[b-1].end
	if a == 0 {
		lo = 0
	}
	if b == len(spans) {
		hi = len(text)
	}
	// Shrink to MaxSnippetBytes, dropping the edge farther from the match.
	for hi-lo > MaxSnippetBytes && b-a > 1 {
		if first-a > b-1-first {
			a++
			lo = spans[a].start
		} else {
			b--
			hi = spans[b-1].end
		}
	}
	if hi-lo > MaxSnippetBytes {
		lo = max(lo, spans[a].start)
		hi = min(hi, spans[b-1].end)
		hi = runeFloor(text, min(hi, lo+MaxSnippetBytes))
	}
	var sb strings.Builder
	if lo > 0 {
		sb.WriteString(Ellipsis)
	}
	at := lo
	for _, sp := range spans[a:b] {
		if !sp.match || sp.start >= hi {
			continue
		}
		s, e := max(sp.start, lo), min(sp.end, hi)
		sb.WriteString(neutralizeMarks(text[at:s]))
		sb.WriteString(MarkOpen)
		sb.WriteString(neutralizeMarks(text[s:e]))
		sb.WriteString(MarkClose)
		at = e
	}
	sb.WriteString(neutralizeMarks(text[at:hi]))
	if hi < len(text) {
		sb.WriteString(Ellipsis)
	}
	return sb.String()
}

// runeFloor moves i back to the start of the rune it falls in.
func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// markNeutralizer defuses literal highlight tags in record text: FTS5 does
// not escape, but a record containing "</mark>" would otherwise unbalance
// every snippet built from it. Only the '<' is replaced, by its HTML entity,
// so the text stays readable and renders the same in HTML.
var markNeutralizer = strings.NewReplacer(MarkOpen, "&lt;mark>", MarkClose, "&lt;/mark>")

func neutralizeMarks(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	return markNeutralizer.Replace(s)
}
