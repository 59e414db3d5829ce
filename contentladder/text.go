package contentladder

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks a cut. It is one rune and counts within every budget.
const Ellipsis = "…"

// validUTF8 replaces each invalid byte with U+FFFD (one for one, unlike
// strings.ToValidUTF8), so rune budgets stay predictable and output is
// always valid UTF-8.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// TruncateRunes returns s cut to at most n runes, never inside a rune, with
// Ellipsis as the last of the n runes when cut. Invalid UTF-8 becomes U+FFFD.
// The visible prefix of a cut result is n-1 runes of s.
func TruncateRunes(s string, n int) (string, bool) {
	s = validUTF8(s)
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	if n <= 0 {
		return "", true
	}
	i, kept := 0, 0
	for kept < n-1 {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		kept++
	}
	return s[:i] + Ellipsis, true
}

// CenterWindow returns at most n runes of text around the first
// case-insensitive match of q (Ellipsis on each cut side, counted within n)
// and the rune offset in text of the first returned text rune. Without q or
// a match it returns the head of text. Used for search evidence excerpts,
// where showing the match beats showing the opening.
func CenterWindow(text, q string, n int) (string, int) {
	rs := []rune(validUTF8(text))
	if len(rs) <= n {
		return string(rs), 0
	}
	if n <= 0 {
		return "", 0
	}
	m, l := indexFold(rs, []rune(validUTF8(q)))
	if m < 0 {
		out, _ := TruncateRunes(string(rs), n)
		return out, 0
	}
	start := min(max(m+l/2-n/2, 0), len(rs)-n)
	end := start + n
	left, right := "", ""
	if start > 0 {
		start++
		left = Ellipsis
	}
	if end < len(rs) {
		end--
		right = Ellipsis
	}
	if start >= end {
		// n is too small for both ellipses and any text.
		return Ellipsis, start
	}
	return left + string(rs[start:end]) + right, start
}

// indexFold finds q in rs ignoring case, rune by rune (so offsets stay rune
// offsets even where case mapping changes byte lengths).
func indexFold(rs, q []rune) (int, int) {
	if len(q) == 0 || len(q) > len(rs) {
		return -1, 0
	}
	for i := 0; i+len(q) <= len(rs); i++ {
		match := true
		for j, r := range q {
			if unicode.ToLower(rs[i+j]) != unicode.ToLower(r) {
				match = false
				break
			}
		}
		if match {
			return i, len(q)
		}
	}
	return -1, 0
}
