package page

import (
	"strings"
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
