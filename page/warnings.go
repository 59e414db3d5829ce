package page

// Warning is a non-fatal note a page shows as a line of its text and a
// member of its structuredContent's warnings: a source that could not be
// read, an RS warning, a note on what the page left out.
// Its JSON is the warning as a document's metadata carries it.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// GrantID names the grant a source warning is about ("" for none).
	GrantID string `json:"grant_id,omitempty"`
}

// WarningLines are warnings as a page's text lines ("warning <code>:
// <message>"), which structuredContent carries as they are; nil for none.
func WarningLines(warns []Warning) []string {
	if len(warns) == 0 {
		return nil
	}
	out := make([]string, 0, len(warns))
	for _, w := range warns {
		out = append(out, "warning "+w.Code+": "+w.Message)
	}
	return out
}

// WithWarnings is text with the warnings' lines appended, one a line.
func WithWarnings(text string, warns []Warning) string {
	for _, l := range WarningLines(warns) {
		text += "\n" + l
	}
	return text
}

// WarningsRoom is what warnings add to a page after it is fitted: a line
// each in the text, a JSON string each in structuredContent's warnings
// (the larger of the two).
func WarningsRoom(warns []Warning) int {
	n := 0
	for _, l := range WarningLines(warns) {
		n += max(len(l)+1, jsonStringLen(l)+1)
	}
	return n
}
