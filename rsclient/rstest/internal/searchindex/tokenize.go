package searchindex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isTokenRune reports whether r belongs inside a token. Like the FTS5
// unicode61 tokenizer, letters, numbers and combining marks are token
// characters and everything else (space, punctuation, symbols) separates
// tokens; keeping marks inside tokens keeps scripts such as Devanagari whole.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// forEachToken calls fn with every lower-cased token of s and its byte range
// [start, end) in s, stopping early when fn returns false. Invalid UTF-8
// bytes act as separators, so ranges always fall on rune boundaries of s.
func forEachToken(s string, fn func(tok string, start, end int) bool) {
	start := -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		inTok := isTokenRune(r) && !(r == utf8.RuneError && size == 1)
		switch {
		case inTok && start < 0:
			start = i
		case !inTok && start >= 0:
			if !fn(lower(s[start:i]), start, i) {
				return
			}
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(lower(s[start:]), start, len(s))
	}
}

// lower folds a token's case; ASCII tokens skip the allocation when already
// lower-case, which is the common case when indexing.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(s)
		}
	}
	return s
}

// Tokenize returns the lower-cased tokens of s in order, the same tokens the
// index stores and queries use. It exists for callers and tests that need to
// reason about what will match.
func Tokenize(s string) []string {
	var out []string
	forEachToken(s, func(tok string, _, _ int) bool {
		out = append(out, tok)
		return true
	})
	return out
}

// queryTerms returns the distinct tokens of a query in first-seen order,
// bounded by MaxQueryBytes and MaxQueryTerms. Duplicates are dropped: FTS5
// would score a repeated term twice, which no RS client relies on.
func queryTerms(text string) []string {
	if len(text) > MaxQueryBytes {
		text = text[:MaxQueryBytes]
	}
	var terms []string
	seen := make(map[string]bool)
	forEachToken(text, func(tok string, _, _ int) bool {
		if !seen[tok] {
			seen[tok] = true
			terms = append(terms, tok)
		}
		return len(terms) < MaxQueryTerms
	})
	return terms
}
