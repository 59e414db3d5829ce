package page

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pdpp/pdpp-mcp/schemaindex"
)

// schemaMaxLabelRunes bounds human labels in schema pages: labels are
// context, not selectors, so a long one is cut rather than allowed to grow
// the result.
const schemaMaxLabelRunes = 60

// schemaMaxListed bounds a field list of one line (an aggregation kind's
// fields, filter or search fields) in a stream page.
const schemaMaxListed = 12

// schemaToken renders an identifier (stream, connector key, connection id,
// field) bare when it is plain, quoted otherwise, so that separators,
// spaces or newlines in RS-supplied names can neither break the line
// grammar nor inject text.
func schemaToken(s string) string {
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

// schemaLabel renders a display name quoted and bounded.
func schemaLabel(s string) string {
	if utf8.RuneCountInString(s) > schemaMaxLabelRunes {
		r := []rune(s)
		s = string(r[:schemaMaxLabelRunes]) + "…"
	}
	return strconv.Quote(s)
}

// schemaTokens renders each name as a token.
func schemaTokens(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = schemaToken(n)
	}
	return out
}

// schemaCapList joins names with "|", keeping at most schemaMaxListed.
func schemaCapList(names []string) string {
	if len(names) <= schemaMaxListed {
		return strings.Join(names, "|")
	}
	return strings.Join(names[:schemaMaxListed], "|") + fmt.Sprintf("|more:%d", len(names)-schemaMaxListed)
}

// schemaLegendLine renders the flag grammar's legend (schemaindex.Legend)
// as one compact line: "legend: t= type; role= …".
func schemaLegendLine() string {
	var b strings.Builder
	b.WriteString("legend:")
	for i, e := range schemaindex.Legend {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" ")
		b.WriteString(e.Token)
		b.WriteString(" ")
		b.WriteString(e.Meaning)
	}
	return b.String()
}

// schemaConnectionsText renders `id("label")|id2|more:N`, or "none".
func schemaConnectionsText(cs []schemaindex.Connection, omitted int) string {
	if len(cs) == 0 && omitted == 0 {
		return "none"
	}
	parts := make([]string, 0, len(cs)+1)
	for _, c := range cs {
		p := schemaToken(c.ID)
		if c.DisplayName != "" {
			p += "(" + schemaLabel(c.DisplayName) + ")"
		}
		parts = append(parts, p)
	}
	if omitted > 0 {
		parts = append(parts, fmt.Sprintf("more:%d", omitted))
	}
	return strings.Join(parts, "|")
}
