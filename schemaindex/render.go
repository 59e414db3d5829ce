package schemaindex

import (
	"strconv"
	"unicode/utf8"
)

// maxLabelRunes bounds human labels in texts: labels are context, not
// selectors, so a long one is cut rather than allowed to grow the result.
const maxLabelRunes = 60

// token renders an identifier (stream, connector key, connection id, field)
// bare when it is plain, quoted otherwise, so that separators, spaces or
// newlines in RS-supplied names can neither break the line grammar nor
// inject text.
func token(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r == ':' || r == '/' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return strconv.Quote(s)
		}
	}
	return s
}

// label renders a display name quoted and bounded.
func label(s string) string {
	if utf8.RuneCountInString(s) > maxLabelRunes {
		r := []rune(s)
		s = string(r[:maxLabelRunes]) + "…"
	}
	return strconv.Quote(s)
}
