package page

import (
	"encoding/json"

	"github.com/pdpp/pdpp-mcp/contentladder"
)

// Window is one field window as read: the record and field, the RS's
// slice of the text with its range and match, and the continuation
// cursors and resource URIs the reader made for it.
type Window struct {
	Ref                  contentladder.RecordRef
	FieldPath, FieldType string
	// Text is the slice, StartChars to EndChars of TotalChars; LimitChars
	// the size asked; Complete the RS's word that nothing is left.
	Text                                         string
	StartChars, EndChars, LimitChars, TotalChars int
	Complete                                     bool
	// Q is the text searched for ("" for an offset read), and the match
	// its place in the field.
	Q                              string
	MatchStartChars, MatchEndChars *int
	// NextCursor and PrevCursor continue the read ("" at the field's
	// edge); URI, NextURI and PrevURI are the windows as resources.
	NextCursor, PrevCursor string
	URI, NextURI, PrevURI  string
}

// FitWindow reports whether the window fits room bytes in both channels
// (its text, and its structuredContent with the text JSON-escaped), and
// if not, how many of its characters do, at least one: the reader asks
// the RS again for that many, so every offset stays in the RS's own
// character count.
func FitWindow(r Window, room int) (int, bool) {
	text := r.Text
	textLen, jsonLen := len(r.text()), len(MarshalNoEscape(r.page(nil)))
	if max(textLen, jsonLen) <= room {
		return 0, true
	}
	// What the two channels take besides the window text; the longer
	// cursors of a shorter window's header are within the slack.
	room -= max(textLen-len(text), jsonLen-JSONStringLen(text)) + 64
	kept, used := 0, 0
	for i := 0; i < len(text); {
		w, c := JSONRuneCost(text, i)
		if used+max(w, c) > room {
			break
		}
		used += max(w, c)
		i += w
		kept++
	}
	return max(1, kept), false
}

// fieldWindowResult is the record/field/window/resource document:
// the application/json contents of a field-window resource read. The
// tool's structuredContent is windowPage, the text's own header and window.
type fieldWindowResult struct {
	Record   windowRecord   `json:"record"`
	Field    windowField    `json:"field"`
	Window   windowText     `json:"window"`
	Resource windowResource `json:"resource"`
}

// windowRecord names the record the window reads.
type windowRecord struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id"`
	Stream       string `json:"stream"`
	RecordID     string `json:"record_id"`
}

// windowField describes the field read.
type windowField struct {
	Path      string `json:"path"`
	TextLike  bool   `json:"text_like"` // always true: only text is windowed
	SizeChars int    `json:"size_chars"`
	Type      string `json:"type,omitempty"`
}

// windowText is the window with its range and continuation cursors; a
// cursor is null at the field's edge.
type windowText struct {
	Text           string       `json:"text"`
	StartChars     int          `json:"start_chars"`
	EndChars       int          `json:"end_chars"`
	LimitChars     int          `json:"limit_chars"`
	TotalChars     int          `json:"total_chars"`
	Complete       bool         `json:"complete"`
	NextCursor     *string      `json:"next_cursor"`
	PreviousCursor *string      `json:"previous_cursor"`
	Match          *windowMatch `json:"match,omitempty"`
}

// windowMatch locates the q match inside the field.
type windowMatch struct {
	Q          string `json:"q"`
	StartChars int    `json:"start_chars"`
	EndChars   int    `json:"end_chars"`
}

// windowResource is the window as field-window resource URIs; adjacent
// windows are null at the field's edge.
type windowResource struct {
	URI         string  `json:"uri"`
	NextURI     *string `json:"next_uri"`
	PreviousURI *string `json:"previous_uri"`
}

// structured is the field-window document of a resource read.
func (r Window) structured() fieldWindowResult {
	out := fieldWindowResult{
		Record: windowRecord{ID: r.Ref.ID(), ConnectionID: r.Ref.ConnectionID, Stream: r.Ref.Stream, RecordID: r.Ref.RecordID},
		Field:  windowField{Path: r.FieldPath, TextLike: true, SizeChars: r.TotalChars, Type: r.FieldType},
		Window: windowText{Text: r.Text, StartChars: r.StartChars, EndChars: r.EndChars, LimitChars: r.LimitChars,
			TotalChars: r.TotalChars, Complete: r.Complete, NextCursor: nullable(r.NextCursor), PreviousCursor: nullable(r.PrevCursor)},
		Resource: windowResource{URI: r.URI, NextURI: nullable(r.NextURI), PreviousURI: nullable(r.PrevURI)},
	}
	if r.Q != "" && r.MatchStartChars != nil && r.MatchEndChars != nil {
		out.Window.Match = &windowMatch{Q: r.Q, StartChars: *r.MatchStartChars, EndChars: *r.MatchEndChars}
	}
	return out
}

// windowHeader is the compact JSON line that precedes the window text:
// identity, range, completeness and the exact arguments of the next and
// previous reads.
type windowHeader struct {
	ID              string      `json:"id"`
	FieldPath       string      `json:"field_path"`
	StartChars      int         `json:"start_chars"`
	EndChars        int         `json:"end_chars"`
	TotalChars      int         `json:"total_chars"`
	Complete        bool        `json:"complete"`
	MatchStartChars *int        `json:"match_start_chars,omitempty"`
	Next            *windowCall `json:"next,omitempty"`
	Previous        *windowCall `json:"previous,omitempty"`
}

// windowCall is the read_record_field call that continues a window.
type windowCall struct {
	Tool string         `json:"tool"` // always read_record_field
	Args windowCallArgs `json:"args"`
}

type windowCallArgs struct {
	ID        string `json:"id"`
	FieldPath string `json:"field_path"`
	Cursor    string `json:"cursor"`
}

// header renders the windowHeader line.
func (r Window) header() string { return string(MarshalNoEscape(r.headerFacts())) }

// headerFacts are the window's identity, range and continuations.
func (r Window) headerFacts() windowHeader {
	// complete says nothing of the field is left to read after this
	// window: the whole field, or its last window (the RS's complete, the
	// whole field in one window, left a last window saying false with no
	// next call to make).
	done := r.Complete || (r.NextCursor == "" && r.EndChars >= r.TotalChars)
	h := windowHeader{ID: r.Ref.ID(), FieldPath: r.FieldPath, StartChars: r.StartChars,
		EndChars: r.EndChars, TotalChars: r.TotalChars, Complete: done}
	if r.Q != "" {
		h.MatchStartChars = r.MatchStartChars
	}
	h.Next, h.Previous = r.continuation(r.NextCursor), r.continuation(r.PrevCursor)
	return h
}

// continuation is the call that reads from cursor; nil without one.
func (r Window) continuation(cursor string) *windowCall {
	if cursor == "" {
		return nil
	}
	return &windowCall{Tool: "read_record_field", Args: windowCallArgs{ID: r.Ref.ID(), FieldPath: r.FieldPath, Cursor: cursor}}
}

func (r Window) text() string { return r.header() + "\n" + r.Text }

// windowPage is read_record_field's structuredContent: the text's header
// members (identity, range, completeness, the exact next and previous
// calls), the window text and the warning lines — the same page as the
// text for a model reading JSON.
type windowPage struct {
	windowHeader
	Text     string   `json:"text"`
	Warnings []string `json:"warnings,omitempty"`
}

// page is the window as structuredContent.
func (r Window) page(warns []Warning) windowPage {
	return windowPage{windowHeader: r.headerFacts(), Text: r.Text, Warnings: WarningLines(warns)}
}

// FieldWindow renders a read_record_field window with the call's source
// warnings. It links no resources: the next and previous calls are in
// both channels, and a resource-aware client pages by the URIs its
// resource read names (links would be two more lines a host such as
// Claude Code hands the model).
func FieldWindow(r Window, warns []Warning) Result {
	return result(WithWarnings(r.text(), warns), r.page(warns), nil)
}

// WindowText is the window as a field-window resource's text/plain
// contents: its header line and its text.
func WindowText(r Window) string { return r.text() }

// WindowDocument is the window as a field-window resource's
// application/json contents (encoding/json's Marshal, HTML escaped).
func WindowDocument(r Window) []byte {
	b, _ := json.Marshal(r.structured())
	return b
}

// nullable is s, or JSON null when s is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
