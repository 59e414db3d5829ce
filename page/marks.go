package page

import (
	"strings"
	"unicode/utf8"
)

// Highlight tags the RS puts in search snippets. Only these two exact
// spellings are tags; anything else (including <b> or <MARK>) is text.
const (
	markOpen  = "<mark>"
	markClose = "</mark>"
)

type markToken struct {
	text string // raw text, or a tag
	tag  int    // 0 text, +1 open, -1 close
}

// tokenizeMarks splits s into text runs and <mark>/</mark> tags in one
// left-to-right pass; StripMarks and TruncateMarked share it so they agree
// on what is a tag.
func tokenizeMarks(s string) []markToken {
	var toks []markToken
	start := 0
	for i := 0; i < len(s); {
		tag, w := 0, 0
		switch {
		case strings.HasPrefix(s[i:], markOpen):
			tag, w = 1, len(markOpen)
		case strings.HasPrefix(s[i:], markClose):
			tag, w = -1, len(markClose)
		}
		if tag == 0 {
			i++
			continue
		}
		if start < i {
			toks = append(toks, markToken{text: s[start:i]})
		}
		toks = append(toks, markToken{text: s[i : i+w], tag: tag})
		i += w
		start = i
	}
	if start < len(s) {
		toks = append(toks, markToken{text: s[start:]})
	}
	return toks
}

// StripMarks removes <mark> and </mark> tags, leaving plain prose. It
// reads the tags exactly as tokenizeMarks does (FuzzStripMarks), jumping
// from one '<' to the next, and returns s itself when it has no tag: a
// search page strips every hit's title and snippet.
func StripMarks(s string) string {
	var b strings.Builder
	start := 0
	for i := strings.IndexByte(s, '<'); i >= 0; {
		w := 0
		switch {
		case strings.HasPrefix(s[i:], markOpen):
			w = len(markOpen)
		case strings.HasPrefix(s[i:], markClose):
			w = len(markClose)
		}
		if w > 0 {
			if b.Cap() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[start:i])
			start = i + w
		}
		step := max(w, 1)
		next := strings.IndexByte(s[i+step:], '<')
		if next < 0 {
			break
		}
		i += step + next
	}
	if start == 0 {
		return s
	}
	b.WriteString(s[start:])
	return b.String()
}

// TruncateMarked cuts a highlighted snippet to at most n visible runes (tags
// do not count; Ellipsis does) and always returns balanced tags: it never
// cuts inside a tag, closes an open <mark> before the Ellipsis, drops a
// trailing <mark> that has no text after it, and repairs unbalanced input
// (a stray </mark> gets a matching <mark>; a nested <mark> first closes the
// open one) instead of deleting tags, because deleting a tag could splice
// the text around it into a new tag. Invalid UTF-8 becomes U+FFFD.
func TruncateMarked(s string, n int) (string, bool) { return ParseMarked(s).Truncate(n) }

// Marked is a highlighted snippet split once into text runs and tags, for
// callers that cut the same snippet at many lengths (fitting a page of
// hits tries a dozen per hit).
type Marked struct {
	toks    []markToken
	visible int    // runes of text, tags not counted
	whole   string // the snippet uncut, repaired: Truncate for any n >= visible
}

// ParseMarked splits s (invalid UTF-8 becomes U+FFFD) for Truncate.
func ParseMarked(s string) Marked {
	m := Marked{toks: tokenizeMarks(validUTF8(s))}
	for _, t := range m.toks {
		if t.tag == 0 {
			m.visible += utf8.RuneCountInString(t.text)
		}
	}
	// Fitting asks for the whole snippet first and most snippets fit
	// whole: rendered once here, not at every such ask.
	m.whole = renderMarks(dropTrailingOpens(balancedPrefix(m.toks, m.visible)), false)
	return m
}

// Truncate is TruncateMarked of the parsed snippet.
func (m Marked) Truncate(n int) (string, bool) {
	cut := m.visible > n
	if !cut {
		return m.whole, false
	}
	if n <= 0 {
		return "", true
	}
	budget := max(n-1, 0) // the Ellipsis is one of the n runes
	out := dropTrailingOpens(balancedPrefix(m.toks, budget))
	return renderMarks(out, true), true
}

// balancedPrefix keeps tokens until budget runes of text are spent, cutting
// the last text run at a rune boundary, and repairs tags as it goes: a
// <mark> while one is open first closes it, and a stray </mark> gets a
// <mark> before it. Tags are never deleted, so no text is spliced into a
// new tag.
func balancedPrefix(toks []markToken, budget int) []markToken {
	var out []markToken
	open := false
	for _, t := range toks {
		if t.tag == 0 {
			if budget == 0 {
				break
			}
			text := t.text
			if utf8.RuneCountInString(text) > budget {
				text = prefixRunes(text, budget)
			}
			budget -= utf8.RuneCountInString(text)
			out = append(out, markToken{text: text})
			continue
		}
		if t.tag == 1 && open {
			out = append(out, markToken{text: markClose, tag: -1})
		}
		if t.tag == -1 && !open {
			out = append(out, markToken{text: markOpen, tag: 1})
		}
		out = append(out, t)
		open = t.tag == 1
	}
	return out
}

// dropTrailingOpens removes <mark> tags at the end: they highlight nothing.
func dropTrailingOpens(out []markToken) []markToken {
	for len(out) > 0 && out[len(out)-1].tag == 1 {
		out = out[:len(out)-1]
	}
	return out
}

// renderMarks writes the tokens, closes a <mark> still open at the end, and
// appends the Ellipsis when the snippet was cut (after the close, so the
// Ellipsis is never highlighted).
func renderMarks(out []markToken, cut bool) string {
	var b strings.Builder
	open := false
	for _, t := range out {
		b.WriteString(t.text)
		if t.tag != 0 {
			open = t.tag == 1
		}
	}
	if open {
		b.WriteString(markClose)
	}
	if cut {
		b.WriteString(Ellipsis)
	}
	return b.String()
}

func prefixRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}
