package page

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TruncateBytes cuts s to at most n bytes on a rune boundary, ending in an
// ellipsis when cut.
func TruncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(0, n-len(Ellipsis))
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + Ellipsis
}

// truncateBytes is TruncateBytes, as the page's own code spells it.
func truncateBytes(s string, n int) string { return TruncateBytes(s, n) }

// jsonStringLen is the bytes s takes as a JSON string.
func jsonStringLen(s string) int { return JSONStringLen(s) }

// quote is s as a JSON string the way encoding/json's Marshal writes it
// (HTML characters escaped): the form the page's suggested calls quote
// their arguments in.
func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// oneLine folds whitespace runs (newlines included) to single spaces so a
// value stays on its line.
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

// ConnectorKey reduces a registry URI source id to its canonical key.
func ConnectorKey(k string) string {
	if i := strings.LastIndex(k, "/"); i >= 0 && strings.Contains(k, "://") {
		return k[i+1:]
	}
	return k
}

// fallbackTitle names an untitled record by source, stream and its
// authored time; the ingest time only when nothing better exists, and then
// labelled "ingested …", since an ingest time is not the record's date.
// Never the snippet or body.
func fallbackTitle(display, connector, stream, eventTime, emittedAt string) string {
	label := display
	if label == "" {
		label = ConnectorKey(connector)
	}
	ts := eventTime
	if ts == "" && emittedAt != "" {
		ts = "ingested " + emittedAt
	}
	var parts []string
	for _, p := range []string{label, stream, ts} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " / ")
}

// sum adds up sizes.
func sum(sizes []int) int {
	t := 0
	for _, s := range sizes {
		t += s
	}
	return t
}
